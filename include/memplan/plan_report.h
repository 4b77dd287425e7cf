#pragma once
// The results of a strategy run (include/memplan/pipeline.h) as a reader sees them: a
// table, JSON and CSV summary per workload, and the plan file of one run (what `memplan
// plan --out` writes and include/memplan/plan_file.h reads back). Variants add their
// bounds, their plan files and, for a plan file that names one, the variant rebuilt.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "memplan/pipeline.h"

namespace memplan {

// The summary JSON of one workload: {"input", "tensors", ..., "results", "best"}.
nlohmann::ordered_json RunsJson(const Workload& workload, const Runs& runs);

// The human table of one workload, with a header line.
std::string RunsTable(const Workload& workload, const Runs& runs);

// One CSV block: a header line (when `header`) and a line per strategy.
std::string RunsCsv(const Workload& workload, const Runs& runs, bool header);

// One tensor of a plan file: index, name, subgraph and tensor (models), size, first, last;
// the caller adds where it lives ("offset" or "object").
nlohmann::ordered_json PlanTensorJson(const Workload& workload, const Problem& problem,
                                      std::size_t i);

// The plan file of one run: {"mode": "offsets", "strategy", "arena_bytes", ...} or
// {"mode": "objects", "strategy", "total_bytes", "objects": [sizes], "tensors": [...]}.
nlohmann::ordered_json PlanFileJson(const Workload& workload, const StrategyRun& run);

// The plan file of a variant row: as PlanFileJson, plus "variant", the op order when
// reordered and, per tensor, "shares_with" (the tensor owning the buffer it uses).
nlohmann::ordered_json VariantPlanFileJson(const Workload& workload, const Variant& variant,
                                           const StrategyRun& run);

// The variant a plan file (from PlanFileJson or VariantPlanFileJson) was made for, rebuilt
// from the model: its "variant" key, or nullopt when it has none. InputError for an
// unknown variant name or an "op_order" that is not the order memplan finds now.
std::optional<Variant> VariantOfPlanFile(const Workload& workload, const nlohmann::json& file,
                                         std::string_view source, bool intermediates_only);

// Adds "inplace_lower_bound_bytes", "reordered_lower_bound_bytes", "order_proven_optimal"
// and "order_changed" (those that apply) to a plan's JSON summary.
void AddVariantBounds(const Variants& variants, nlohmann::ordered_json& summary);

// The note under a table: the bounds above in words.
std::string VariantNote(const Variants& variants);

// Decision mode: does the workload fit `capacity` bytes? The exact solver's answer as a
// JSON object ({"input", ..., "fits": true/false/null, ...}), a table line ("input: N
// tensors, capacity C B: fits: ..." and "\n") and, when it fits, the plan as a run of
// offsets/exact (for PlanFileJson).
struct CapacityDecision {
  nlohmann::ordered_json json;
  std::string line;
  std::optional<StrategyRun> run;
};
CapacityDecision DecideCapacity(const Workload& workload, Bytes capacity,
                                const ExactOptions& options);

}  // namespace memplan
