#pragma once
// The exact solver on the command line: its options, progress on stderr and the
// decision mode of `memplan plan --capacity N`.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "memplan/exact.h"
#include "memplan/workload.h"

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

// What decision mode reports: a JSON object and a table line.
struct Decision {
  nlohmann::ordered_json json;  // {"input", ..., "fits": true/false/null, ...}
  std::string line;             // "input: N tensors, capacity C B: fits: ..." and "\n"
};

// Decision mode: does the workload fit `capacity` bytes? Writes the plan to `out` (if not
// empty) when it fits; the caller prints the result (a batch prints a JSON array).
Decision RunDecision(const Workload& workload, Bytes capacity, const ExactOptions& options,
                     const std::string& out);

}  // namespace memplan::cli
