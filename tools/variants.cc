#include "tools/variants.h"

#include <fmt/format.h>

#include <chrono>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/table.h"
#include "tools/plan_output.h"

namespace memplan::cli {

nlohmann::ordered_json VariantPlanFileJson(const Workload& workload, const Variant& variant,
                                           const StrategyRun& run) {
  const Problem& p = variant.tensors;
  nlohmann::ordered_json j;
  j["mode"] = run.mode;
  j["strategy"] = run.strategy;
  j["variant"] = variant.name;
  j["arena_bytes"] = run.offsets->arena_bytes;
  j["alignment"] = p.alignment;
  if (variant.reordered) j["op_order"] = variant.op_order;
  // The record owning each buffer: the first of its tensors.
  std::vector<std::size_t> owner(variant.merged.problem.size(), p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    if (owner[variant.merged.buffer_of[i]] == p.size()) owner[variant.merged.buffer_of[i]] = i;
  auto& tensors = j["tensors"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < p.size(); ++i) {
    nlohmann::ordered_json t = PlanTensorJson(workload, p, i);
    t["offset"] = run.offsets->offsets[i];
    const std::size_t o = owner[variant.merged.buffer_of[i]];
    if (o != i) t["shares_with"] = o;
    tensors.push_back(std::move(t));
  }
  return j;
}

std::optional<Variant> VariantOfPlanFile(const Workload& workload, const nlohmann::json& file,
                                         std::string_view source, bool intermediates_only) {
  if (!file.is_object() || !file.contains("variant")) return std::nullopt;
  const std::string name = file["variant"].is_string() ? file["variant"].get<std::string>() : "";
  // "inplace=SET", "reorder" or "reorder+inplace=SET".
  VariantOptions options;
  std::string_view rest = name;
  options.reorder = rest.starts_with("reorder");
  if (options.reorder) rest.remove_prefix(7);
  if (options.reorder && rest.starts_with("+")) rest.remove_prefix(1);
  bool known = options.reorder && rest.empty();
  if (rest.starts_with("inplace=")) {
    rest.remove_prefix(8);
    known = FindInPlaceRuleSet(rest) != nullptr;
    if (known) options.inplace.assign(rest.begin(), rest.end());
  }
  if (!known)
    throw InputError(
        fmt::format("{}: unknown variant '{}'; expected inplace=SET, reorder or "
                    "reorder+inplace=SET",
                    source, name));
  options.intermediates_only = intermediates_only;
  const Variants variants = BuildVariants(workload, options);
  for (const Variant& v : variants.list) {
    if (v.name != name) continue;
    const nlohmann::json order = file.value("op_order", nlohmann::json::array());
    if (order != nlohmann::json(v.op_order))
      throw InputError(
          fmt::format("{}: the plan was made for another operator order than the "
                      "one memplan finds for {} ({})",
                      source, workload.label, name));
    return v;
  }
  throw InputError(
      fmt::format("{}: variant '{}' does not apply to {}", source, name, workload.label));
}

void AddVariantBounds(const Variants& variants, nlohmann::ordered_json& summary) {
  if (variants.inplace_lower_bound)
    summary["inplace_lower_bound_bytes"] = *variants.inplace_lower_bound;
  if (variants.reordered_lower_bound)
    summary["reordered_lower_bound_bytes"] = *variants.reordered_lower_bound;
  if (variants.order_proven_optimal)
    summary["order_proven_optimal"] = *variants.order_proven_optimal;
  if (variants.order_changed) summary["order_changed"] = *variants.order_changed;
}

std::string VariantNote(const Variants& variants) {
  std::string out;
  if (variants.inplace_lower_bound)
    out += fmt::format("  in place ({}): lower bound {} B\n", variants.list.front().name,
                       WithThousands(*variants.inplace_lower_bound));
  if (variants.reordered_lower_bound)
    out += fmt::format("  {}: lower bound {} B; {}, {}\n", variants.list.back().name,
                       WithThousands(*variants.reordered_lower_bound),
                       *variants.order_changed ? "new operator order" : "the model's own order",
                       *variants.order_proven_optimal ? "proven optimal" : "not proven optimal");
  return out;
}

Variants BuildVariantsForOptions(const Workload& workload, const VariantOptions& options) {
  try {
    return BuildVariants(workload, options);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{} (--inplace, --reorder)", e.what()));
  }
}

}  // namespace memplan::cli
