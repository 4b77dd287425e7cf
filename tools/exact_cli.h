#pragma once
// The exact solver on the command line: its options and its progress on stderr.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "memplan/exact.h"

namespace memplan::cli {

// The exact solver's flags, shared by the commands that can run it.
struct ExactFlags {
  double time_limit_s = 10;  // --time-limit: the whole budget
  double probe_limit_s = 0;  // --probe-limit: one capacity question (0: adaptive)
  unsigned threads = 0;      // --threads: portfolio threads (0: every core)
};

void AddExactFlags(CLI::App& cmd, ExactFlags& flags);

// ExactOptions for the command: the flags, and progress on stderr when it is a terminal,
// the work takes more than a second and `quiet` is off.
ExactOptions MakeExactOptions(const ExactFlags& flags, bool quiet);

}  // namespace memplan::cli
