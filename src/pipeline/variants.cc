// The variants of a model's problem (outputs in place, a new operator order) and their
// plans, expanded back to the model's tensors and verified there.
#include <fmt/format.h>

#include <chrono>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/pipeline.h"

namespace memplan {

namespace {

// TFLM rounds every buffer to 16 bytes; the search counts sizes as the records do.
constexpr Bytes kTflmRounding = 16;

Variant InPlaceVariant(const Workload& w, const InPlaceRuleSet& rules, const VariantOptions& o) {
  Variant v;
  v.name = fmt::format("inplace={}", rules.name);
  v.intermediates_only = o.intermediates_only;
  v.tensors = w.problem;
  v.merged = ApplyInPlace(*w.graph, {w.problem, w.origins, w.ops}, rules);
  return v;
}

Variant ReorderVariant(const Workload& w, const InPlaceRuleSet& rules, const VariantOptions& o,
                       Variants& out) {
  if (w.problem.HasFixed())
    throw UsageError(fmt::format(
        "{}: reordering: the model carries an offline plan (fixed offsets) made for its own "
        "operator order; a new order would invalidate it",
        w.label));
  OrderSearchOptions search;
  search.inplace = rules.empty() ? nullptr : &rules;
  search.size_alignment =
      o.intermediates_only ? w.problem.alignment : std::max(kTflmRounding, w.problem.alignment);
  search.plan_entry_io = !o.intermediates_only;
  search.time_budget_ms = o.order_time_budget_ms;
  const OrderSearchResult orders = SearchOperatorOrder(*w.graph, search);
  const Accounting accounting =
      o.intermediates_only ? Accounting::kIntermediatesOnly : Accounting::kTflm;
  Variant v;
  v.name = rules.empty() ? std::string("reorder") : fmt::format("reorder+inplace={}", rules.name);
  v.intermediates_only = o.intermediates_only;
  const Bytes file_bound =
      OffsetsLowerBound(ApplyInPlace(*w.graph, {w.problem, w.origins, w.ops}, rules).problem);
  if (orders.changed) {
    Graph reordered = ReorderOperators(*w.graph, orders);
    GraphRecords records = RecordsFromGraph(reordered, {accounting});
    records.problem.alignment = w.problem.alignment;
    if (records.origins != w.origins)
      throw InternalError(
          fmt::format("{}: the reordered model has other tensors to plan", w.label));
    InPlaceRecords merged = ApplyInPlace(reordered, records, rules);
    // Never worse than the model's own order, measured on the records themselves.
    if (OffsetsLowerBound(merged.problem) <= file_bound) {
      v.tensors = std::move(records.problem);
      v.merged = std::move(merged);
      v.reordered = std::move(reordered);
      for (const SubgraphOrder& sub : orders.subgraphs) v.op_order.push_back(sub.order);
      v.order_proven_optimal = orders.proven_optimal;
    }
  } else {
    v.order_proven_optimal = orders.proven_optimal;
  }
  if (!v.reordered) {
    v.tensors = w.problem;
    v.merged = ApplyInPlace(*w.graph, {w.problem, w.origins, w.ops}, rules);
  }
  out.order_changed = v.reordered.has_value();
  out.order_proven_optimal = v.order_proven_optimal;
  out.reordered_lower_bound = OffsetsLowerBound(v.merged.problem);
  return v;
}

}  // namespace

Variants BuildVariants(const Workload& workload, const VariantOptions& options) {
  Variants out;
  const InPlaceRuleSet& rules = InPlaceRuleSetNamed(options.inplace);
  if (rules.empty() && !options.reorder) return out;
  if (!workload.graph)
    throw UsageError(fmt::format(
        "{}: outputs in place and reordering need a model (.tflite, .onnx): records have no "
        "operators",
        workload.label));
  if (!rules.empty()) {
    out.list.push_back(InPlaceVariant(workload, rules, options));
    out.inplace_lower_bound = OffsetsLowerBound(out.list.back().merged.problem);
  }
  if (options.reorder) out.list.push_back(ReorderVariant(workload, rules, options, out));
  return out;
}

void RunVariants(const Workload& workload, const Variants& variants,
                 const std::vector<std::string>& keys, const ExactOptions& exact, Runs& runs) {
  // Shares and new orders are offsets plans: one arena, tensors at their buffer's offset.
  std::vector<std::string> offsets_keys;
  for (const std::string& key : keys)
    if (key.starts_with("offsets/")) offsets_keys.push_back(key);
  for (const Variant& v : variants.list) {
    Workload buffers = workload;
    buffers.problem = v.merged.problem;
    buffers.origins = v.merged.origins;
    Runs planned = RunStrategies(buffers, offsets_keys, exact);
    for (StrategyRun& run : planned.runs) {
      const auto start = std::chrono::steady_clock::now();
      OffsetPlan expanded = ExpandPlan(v.tensors, v.merged, *run.offsets);
      VerifyExpandedOrThrow(v.tensors, v.merged, *run.offsets, expanded);
      run.plan_ms +=
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      run.offsets = std::move(expanded);
      run.variant = v.name;
      run.lower_bound = planned.lower_bound_bytes;
      runs.runs.push_back(std::move(run));
      if (runs.runs.back().bytes < runs.runs[runs.best].bytes) runs.best = runs.runs.size() - 1;
    }
  }
}

const Variant* VariantOf(const Variants& variants, const StrategyRun& run) {
  for (const Variant& v : variants.list)
    if (v.name == run.variant) return &v;
  return nullptr;
}

std::vector<Violation> FindVariantViolations(const Variant& variant, const OffsetPlan& plan,
                                             std::size_t limit) {
  std::vector<Violation> out;
  const InPlaceRecords& m = variant.merged;
  std::vector<std::optional<Bytes>> offset(m.problem.size());
  std::vector<std::size_t> first(m.problem.size(), 0);
  for (std::size_t i = 0; i < variant.tensors.size() && out.size() < limit; ++i) {
    const std::size_t b = m.buffer_of[i];
    if (!offset[b]) {
      offset[b] = plan.offsets[i];
      first[b] = i;
    } else if (*offset[b] != plan.offsets[i]) {
      out.push_back({fmt::format("{} shares the memory of {} but sits at offset {}, not {}",
                                 variant.tensors.Describe(i), variant.tensors.Describe(first[b]),
                                 plan.offsets[i], *offset[b])});
    }
  }
  if (!out.empty()) return out;
  std::vector<Bytes> buffers(m.problem.size(), 0);
  for (std::size_t b = 0; b < buffers.size(); ++b) buffers[b] = offset[b].value_or(0);
  return FindViolations(m.problem, MakeOffsetPlan(m.problem, plan.strategy, std::move(buffers)),
                        limit);
}

}  // namespace memplan
