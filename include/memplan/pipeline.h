#pragma once
// The planning pipeline, as the command runs it: a workload planned with a selection of
// strategies (offsets and objects), each run timed and its plan verified, and the
// transformed problems ("variants": outputs in place, a new operator order) planned
// beside the model's own records and expanded back to one offset per tensor. Every
// output of `memplan plan`, `show` and `embed` is made from these results.
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "memplan/exact.h"
#include "memplan/inplace.h"
#include "memplan/objects.h"
#include "memplan/plan.h"
#include "memplan/schedule.h"
#include "memplan/workload.h"

namespace memplan {

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

// Expands a strategy selection ("all", "offsets", "offsets/NAME", "objects",
// "objects/NAME", "NAME" = offsets/NAME, else objects/NAME) into mode/name keys;
// UsageError for an unknown one.
std::vector<std::string> ExpandStrategies(const std::vector<std::string>& requested);

// Plans the workload with every selected strategy (keys from ExpandStrategies);
// "exact" runs with `exact` (time limit, progress). Objects strategies cannot keep fixed
// offsets: for a problem with some, objects rows are left out and Runs::objects_skipped
// says why. A strategy too slow or too large for a large problem (min_cost_flow above
// 10,000 records; objects best and exact above 20,000) is left out, with a line in
// Runs::left_out, unless `requested` (the selection as given) names it. best and
// greedy_best reuse the plans of strategies run before them. `starting`, when set, hears each
// strategy's key as it starts (for progress lines).
Runs RunStrategies(const Workload& workload, const std::vector<std::string>& keys,
                   const ExactOptions& exact = {}, const std::vector<std::string>& requested = {},
                   const std::function<void(const std::string&)>& starting = {});

// Variants: transformed problems planned beside the model's own records
// (docs/below-the-bound.md). Each is planned with the same offsets strategies; its rows
// carry a "variant" and expand back to one offset per tensor.

struct VariantOptions {
  std::string inplace = "none";     // the in-place rule set: none, tflite, tflm, all
  bool reorder = false;             // search a memory-saving operator order
  bool intermediates_only = false;  // the accounting the records were made with
  // The order search's wall-time budget per subgraph (OrderSearchOptions::time_budget_ms);
  // 0: bounded by its state cap only, so the order found never depends on the machine's load.
  double order_time_budget_ms = OrderSearchOptions{}.time_budget_ms;
};

// One transformed problem.
struct Variant {
  std::string name;                // "inplace=tflm", "reorder", "reorder+inplace=tflm"
  Problem tensors;                 // per-tensor records (the reordered lifetimes when reordered)
  InPlaceRecords merged;           // the records planned: one per buffer (no shares = tensors)
  std::optional<Graph> reordered;  // the graph in the new order, when reordered
  // Per subgraph: the file's op indices in the new order (empty when not reordered).
  std::vector<std::vector<std::int32_t>> op_order;
  bool order_proven_optimal = false;  // the new order is proven optimal (reorder only)
  bool intermediates_only = false;    // made from intermediates-only records
};

struct Variants {
  std::vector<Variant> list;
  std::optional<Bytes> inplace_lower_bound;    // lower bound with in place, file order
  std::optional<Bytes> reordered_lower_bound;  // with the new order (and in place)
  std::optional<bool> order_proven_optimal;
  std::optional<bool> order_changed;
};

// Builds the variants the options ask for; none when both are off. UsageError when the
// workload is not a model, or when a new order is asked of a model whose offline plan
// fixes offsets.
Variants BuildVariants(const Workload& workload, const VariantOptions& options);

// Plans each variant with the offsets strategies among `keys` and appends the rows to
// `runs` (each verified on its merged records and expanded back to tensors); `best` is
// updated.
void RunVariants(const Workload& workload, const Variants& variants,
                 const std::vector<std::string>& keys, const ExactOptions& exact, Runs& runs);

// The variant a row belongs to, or nullptr for a row of the model's own records.
const Variant* VariantOf(const Variants& variants, const StrategyRun& run);

// Every way per-tensor offsets fail a variant (up to `limit`): tensors of one buffer at
// different offsets, then the violations of the buffers' plan.
std::vector<Violation> FindVariantViolations(const Variant& variant, const OffsetPlan& plan,
                                             std::size_t limit);

}  // namespace memplan
