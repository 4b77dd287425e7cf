#pragma once
// Runs the strategies a user selected on one workload, timing each and keeping the
// verified plans, so every output format reports the same results.
#include <optional>
#include <string>
#include <vector>

#include "memplan/exact.h"
#include "memplan/plan.h"
#include "memplan/workload.h"

namespace memplan::cli {

// One strategy's result.
struct StrategyRun {
  std::string mode;      // "offsets" (later also "objects")
  std::string strategy;  // e.g. "greedy_by_size"
  Bytes bytes = 0;       // arena bytes (offsets) or total of object sizes (objects)
  double plan_ms = 0;    // wall time of planning and verification
  std::optional<OffsetPlan> offsets;  // the verified plan (offsets mode)
  std::optional<bool> proven_optimal;  // exact only: the arena equals a proven bound
  std::optional<Bytes> bound_bytes;    // exact only: best proven lower bound
  std::string Key() const { return mode + "/" + strategy; }
};

struct Runs {
  std::vector<StrategyRun> runs;
  std::size_t best = 0;              // index of the smallest result (first on ties)
  Bytes naive_bytes = 0;
  Bytes lower_bound_bytes = 0;       // offsets lower bound
};

// Expands a --strategy list ("all", "offsets", "offsets/NAME", "NAME") into
// mode/name keys; UsageError for an unknown one.
std::vector<std::string> ExpandStrategies(const std::vector<std::string>& requested);

// Plans the workload with every selected strategy (keys from ExpandStrategies);
// "exact" runs with `exact` (time limit, progress).
Runs RunStrategies(const Workload& workload, const std::vector<std::string>& keys,
                   const ExactOptions& exact = {});

}  // namespace memplan::cli
