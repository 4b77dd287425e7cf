#pragma once
// Runs the strategies a user selected on one workload, timing each and keeping the
// verified plans, so every output format reports the same results.
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "memplan/exact.h"
#include "memplan/objects.h"
#include "memplan/plan.h"
#include "memplan/workload.h"

namespace memplan::cli {

// One strategy's result.
struct StrategyRun {
  std::string mode;                    // "offsets" or "objects"
  std::string strategy;                // e.g. "greedy_by_size"
  Bytes bytes = 0;                     // arena bytes (offsets) or total of object sizes (objects)
  double plan_ms = 0;                  // wall time of planning and verification
  std::optional<OffsetPlan> offsets;   // the verified plan (offsets mode)
  std::optional<bool> proven_optimal;  // exact only: the bytes equal a proven bound
  std::optional<Bytes> bound_bytes;    // exact only: best proven lower bound
  std::string open_reason;             // objects/exact only: why optimality stays open
  std::optional<ObjectPlan> objects;   // the verified plan (objects mode)
  // Empty for the model's own records; else the transformed problem it planned
  // ("inplace=tflm", "reorder", ...), its offsets expanded to one per tensor.
  std::string variant;
  std::optional<Bytes> lower_bound;  // a variant's own lower bound (for "optimal")
  std::string Key() const { return mode + "/" + strategy; }
  // The strategy as tables and CSV show it: "greedy_by_size[inplace=tflm]" for variants.
  std::string Label() const {
    return variant.empty() ? strategy : fmt::format("{}[{}]", strategy, variant);
  }
};

struct Runs {
  std::vector<StrategyRun> runs;
  // Index of the smallest result. Ties: an offsets plan before an objects plan (one
  // arena is the more flexible layout), then the first in list order.
  std::size_t best = 0;
  Bytes naive_bytes = 0;
  Bytes lower_bound_bytes = 0;          // offsets lower bound
  Bytes objects_lower_bound_bytes = 0;  // objects lower bound (Σ positional maximums)
  std::string objects_skipped;          // why objects rows were left out, if they were
  std::vector<std::string> left_out;    // strategies a group brought in but skipped, and why
};

// Expands a --strategy list ("all", "offsets", "offsets/NAME", "objects",
// "objects/NAME", "NAME" = offsets/NAME, else objects/NAME) into mode/name keys;
// UsageError for an unknown one.
std::vector<std::string> ExpandStrategies(const std::vector<std::string>& requested);

// Plans the workload with every selected strategy (keys from ExpandStrategies);
// "exact" runs with `exact` (time limit, progress). Objects strategies cannot keep fixed
// offsets: for a problem with some, objects rows are left out and Runs::objects_skipped
// says why. A strategy too slow or too large for a large problem (min_cost_flow above
// 10,000 records; objects best and exact above 20,000) is left out, with a line in
// Runs::left_out, unless `requested` (the --strategy list as given) names it. best and
// greedy_best reuse the plans of strategies run before them. `starting`, when set, hears each
// strategy's key as it starts (for progress lines).
Runs RunStrategies(const Workload& workload, const std::vector<std::string>& keys,
                   const ExactOptions& exact = {}, const std::vector<std::string>& requested = {},
                   const std::function<void(const std::string&)>& starting = {});

}  // namespace memplan::cli
