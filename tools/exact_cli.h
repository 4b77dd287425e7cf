#pragma once
// The exact solver on the command line: its options, progress on stderr and the
// decision mode of `memplan plan --capacity N`.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "memplan/exact.h"
#include "memplan/workload.h"

namespace memplan::cli {

// ExactOptions for the command: `time_limit_s` in total, progress on stderr when it
// is a terminal, the work takes more than a second and `quiet` is off.
ExactOptions MakeExactOptions(double time_limit_s, bool quiet);

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
