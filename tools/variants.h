#pragma once
// `plan --inplace=SET` and `--reorder`: the transformed problems planned beside the
// model's own records (docs/below-the-bound.md). Each variant is planned with the
// same strategies; its rows carry a "variant" and expand back to one offset per tensor.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memplan/inplace.h"
#include "memplan/schedule.h"
#include "tools/strategy_runs.h"

namespace memplan::cli {

struct VariantOptions {
  std::string inplace = "none";     // --inplace: none, tflite, tflm, all
  bool reorder = false;             // --reorder
  bool intermediates_only = false;  // the accounting the records were made with
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

// Builds the variants a plan asks for; none when both options are off. UsageError when
// the workload is not a model.
Variants BuildVariants(const Workload& workload, const VariantOptions& options);

// Plans each variant with the offsets strategies among `keys` and appends the rows to
// `runs` (each verified on its merged records and expanded back to tensors); `best` is
// updated.
void RunVariants(const Workload& workload, const Variants& variants,
                 const std::vector<std::string>& keys, const ExactOptions& exact, Runs& runs);

// The variant a row belongs to, or nullptr for a row of the model's own records.
const Variant* VariantOf(const Variants& variants, const StrategyRun& run);

// The plan file of a variant row: as PlanFileJson, plus "variant", the op order when
// reordered and, per tensor, "shares_with" (the tensor owning the buffer it uses).
nlohmann::ordered_json VariantPlanFileJson(const Workload& workload, const Variant& variant,
                                           const StrategyRun& run);

// The variant a plan file (from plan --out) was made for, rebuilt from the model: its
// "variant" key, or nullopt when it has none. InputError for an unknown variant name or
// an "op_order" that is not the order memplan finds now.
std::optional<Variant> VariantOfPlanFile(const Workload& workload, const nlohmann::json& file,
                                         std::string_view source, bool intermediates_only);

// Every way per-tensor offsets fail a variant (up to `limit`): tensors of one buffer at
// different offsets, then the violations of the buffers' plan.
std::vector<Violation> FindVariantViolations(const Variant& variant, const OffsetPlan& plan,
                                             std::size_t limit);

// Adds "inplace_lower_bound_bytes", "reordered_lower_bound_bytes", "order_proven_optimal"
// and "order_changed" (those that apply) to a plan's JSON summary.
void AddVariantBounds(const Variants& variants, nlohmann::ordered_json& summary);

// The note under a table: the bounds above in words.
std::string VariantNote(const Variants& variants);

}  // namespace memplan::cli
