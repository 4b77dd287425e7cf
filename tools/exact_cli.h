#pragma once
// The exact solver on the command line: its options, progress on stderr and the
// decision mode of `memplan plan --capacity N`.
#include <optional>
#include <string>

#include "memplan/exact.h"
#include "memplan/workload.h"

namespace memplan::cli {

// ExactOptions for the command: `time_limit_s` in total, progress on stderr when it
// is a terminal, the work takes more than a second and `quiet` is off.
ExactOptions MakeExactOptions(double time_limit_s, bool quiet);

// Decision mode: does the workload fit `capacity` bytes? Prints a table line or JSON
// ("fits": true/false/null); writes the plan to `out` (if not empty) when it fits.
void RunDecision(const Workload& workload, Bytes capacity, const ExactOptions& options,
                 const std::string& format, const std::string& out);

}  // namespace memplan::cli
