#pragma once
// The command's side of `plan --inplace=SET` and `--reorder` (the variants themselves are
// built and planned by include/memplan/pipeline.h): their plan files, JSON and notes.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memplan/pipeline.h"

namespace memplan::cli {

// The plan file of a variant row: as PlanFileJson, plus "variant", the op order when
// reordered and, per tensor, "shares_with" (the tensor owning the buffer it uses).
nlohmann::ordered_json VariantPlanFileJson(const Workload& workload, const Variant& variant,
                                           const StrategyRun& run);

// The variant a plan file (from plan --out) was made for, rebuilt from the model: its
// "variant" key, or nullopt when it has none. InputError for an unknown variant name or
// an "op_order" that is not the order memplan finds now.
std::optional<Variant> VariantOfPlanFile(const Workload& workload, const nlohmann::json& file,
                                         std::string_view source, bool intermediates_only);

// Adds "inplace_lower_bound_bytes", "reordered_lower_bound_bytes", "order_proven_optimal"
// and "order_changed" (those that apply) to a plan's JSON summary.
void AddVariantBounds(const Variants& variants, nlohmann::ordered_json& summary);

// The note under a table: the bounds above in words.
std::string VariantNote(const Variants& variants);

// BuildVariants, its usage errors naming the options that asked for the variants.
Variants BuildVariantsForOptions(const Workload& workload, const VariantOptions& options);

}  // namespace memplan::cli
