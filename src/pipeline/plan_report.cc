// Tables, JSON, CSV and plan files of strategy runs (include/memplan/plan_report.h).
#include "memplan/plan_report.h"

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/table.h"

namespace memplan {

namespace {

double Ratio(Bytes bytes, Bytes bound) {
  return bound == 0 ? 1.0 : static_cast<double>(bytes) / static_cast<double>(bound);
}

// A plan is optimal when it reaches the lower bound of its mode: the live-bytes bound
// for offsets, Σ positional maximums for objects.
// A variant row (in place, reordered) against the bound of its own problem.
bool Optimal(const StrategyRun& run, const Runs& runs) {
  if (run.lower_bound) return run.bytes == *run.lower_bound;
  return run.bytes ==
         (run.mode == "objects" ? runs.objects_lower_bound_bytes : runs.lower_bound_bytes);
}

// Rounds to 4 decimals so JSON stays short and stable.
double Round4(double v) {
  return static_cast<double>(static_cast<long long>(v * 10000 + 0.5)) / 10000;
}

// "optimal" at the lower bound of its mode; for the exact strategies "optimal (proven)"
// or the gap to their proven bound.
std::string OptimalCell(const StrategyRun& run, Bytes lower_bound) {
  if (run.proven_optimal && *run.proven_optimal) return "optimal (proven)";
  if (run.bound_bytes && run.bytes > *run.bound_bytes)
    return fmt::format("gap ≤ {:.2f}%", 100.0 * static_cast<double>(run.bytes - *run.bound_bytes) /
                                            static_cast<double>(run.bytes));
  return run.bytes == lower_bound ? "optimal" : "";
}

}  // namespace

nlohmann::ordered_json RunsJson(const Workload& workload, const Runs& runs) {
  nlohmann::ordered_json j;
  j["input"] = workload.label;
  j["tensors"] = workload.problem.size();
  if (workload.graph) j["ops"] = workload.ops;
  j["alignment"] = workload.problem.alignment;
  j["naive_bytes"] = runs.naive_bytes;
  j["lower_bound_bytes"] = runs.lower_bound_bytes;
  j["objects_lower_bound_bytes"] = runs.objects_lower_bound_bytes;
  if (!runs.objects_skipped.empty()) j["objects_skipped"] = runs.objects_skipped;
  if (!runs.left_out.empty()) j["left_out"] = runs.left_out;
  if (!workload.notes.empty()) j["notes"] = workload.notes;
  auto& results = j["results"] = nlohmann::ordered_json::array();
  for (const StrategyRun& run : runs.runs) {
    nlohmann::ordered_json r;
    r["mode"] = run.mode;
    r["strategy"] = run.strategy;
    if (!run.variant.empty()) r["variant"] = run.variant;
    r["bytes"] = run.bytes;
    if (run.objects) r["objects"] = run.objects->object_sizes.size();
    // Every row's ratio is to the offsets lower bound, so rows of both modes compare.
    r["ratio"] = Round4(Ratio(run.bytes, runs.lower_bound_bytes));
    r["optimal"] = Optimal(run, runs);
    r["plan_ms"] = Round4(run.plan_ms);
    if (run.offsets && !run.offsets->detail.empty()) r["detail"] = run.offsets->detail;
    if (run.proven_optimal) r["proven_optimal"] = *run.proven_optimal;
    if (run.bound_bytes) r["bound_bytes"] = *run.bound_bytes;
    if (!run.open_reason.empty()) r["open_reason"] = run.open_reason;
    results.push_back(std::move(r));
  }
  if (!runs.runs.empty()) {
    const StrategyRun& best = runs.runs[runs.best];
    j["best"] = {{"mode", best.mode}, {"strategy", best.strategy}, {"bytes", best.bytes}};
    if (!best.variant.empty()) j["best"]["variant"] = best.variant;
  } else {
    j["best"] = nullptr;
  }
  return j;
}

std::string RunsTable(const Workload& workload, const Runs& runs) {
  std::string out = fmt::format("{}: {} tensors", workload.label, workload.problem.size());
  if (workload.graph) out += fmt::format(", {} ops", workload.ops);
  out += fmt::format(", naive {} B, lower bound {} B, objects lower bound {} B",
                     WithThousands(runs.naive_bytes), WithThousands(runs.lower_bound_bytes),
                     WithThousands(runs.objects_lower_bound_bytes));
  if (workload.problem.alignment > 1)
    out += fmt::format(", alignment {}", workload.problem.alignment);
  out += "\n";
  if (!runs.objects_skipped.empty())
    out += fmt::format("({}: objects rows left out)\n", runs.objects_skipped);
  for (const std::string& line : runs.left_out) out += fmt::format("({})\n", line);
  for (const std::string& note : workload.notes) out += note + "\n";
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < runs.runs.size(); ++i) {
    const StrategyRun& run = runs.runs[i];
    rows.push_back({i == runs.best ? "*" : "", run.mode, run.Label(), WithThousands(run.bytes),
                    fmt::format("{:.2f}", static_cast<double>(run.bytes) / (1024.0 * 1024.0)),
                    fmt::format("{:.3f}", Ratio(run.bytes, runs.lower_bound_bytes)),
                    OptimalCell(run, run.lower_bound.value_or(run.mode == "objects"
                                                                  ? runs.objects_lower_bound_bytes
                                                                  : runs.lower_bound_bytes)),
                    fmt::format("{:.2f}", run.plan_ms),
                    run.objects ? fmt::format("{}", run.objects->object_sizes.size()) : ""});
  }
  out += RenderTable({{""},
                      {"mode"},
                      {"strategy"},
                      {"bytes", true},
                      {"MiB", true},
                      {"× bound", true},
                      {"optimal"},
                      {"ms", true},
                      {"objects", true}},
                     rows);
  // How composite strategies (best) got their plans.
  for (const StrategyRun& run : runs.runs)
    if (run.offsets && !run.offsets->detail.empty())
      out += fmt::format("  {}: {}\n", run.strategy, run.offsets->detail);
  // Why a proof is missing, where the exact objects search says.
  for (const StrategyRun& run : runs.runs)
    if (!run.open_reason.empty())
      out += fmt::format("  {}/{}: optimality open: {}\n", run.mode, run.Label(), run.open_reason);
  return out;
}

std::string RunsCsv(const Workload& workload, const Runs& runs, bool header) {
  std::string out =
      header ? "input,tensors,mode,strategy,bytes,ratio,optimal,plan_ms,best,objects\n" : "";
  for (std::size_t i = 0; i < runs.runs.size(); ++i) {
    const StrategyRun& run = runs.runs[i];
    out += fmt::format("{},{},{},{},{},{:.4f},{},{:.4f},{},{}\n", workload.label,
                       workload.problem.size(), run.mode, run.Label(), run.bytes,
                       Ratio(run.bytes, runs.lower_bound_bytes), Optimal(run, runs), run.plan_ms,
                       i == runs.best,
                       run.objects ? fmt::format("{}", run.objects->object_sizes.size()) : "");
  }
  return out;
}

namespace {

// {"mode": "objects", "strategy", "total_bytes", "objects": [sizes], "tensors": [...]}.
nlohmann::ordered_json ObjectsPlanFileJson(const Workload& workload, const StrategyRun& run) {
  const Problem& problem = workload.problem;
  const ObjectPlan& plan = *run.objects;
  nlohmann::ordered_json j;
  j["mode"] = run.mode;
  j["strategy"] = run.strategy;
  j["total_bytes"] = plan.total_bytes;
  j["objects"] = plan.object_sizes;
  auto& tensors = j["tensors"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < problem.size(); ++i) {
    nlohmann::ordered_json t = PlanTensorJson(workload, problem, i);
    t["object"] = plan.object_ids[i];
    tensors.push_back(std::move(t));
  }
  return j;
}

}  // namespace

nlohmann::ordered_json PlanTensorJson(const Workload& workload, const Problem& problem,
                                      std::size_t i) {
  const UsageRecord& r = problem.records[i];
  nlohmann::ordered_json t;
  t["index"] = i;
  t["name"] = problem.NameOf(i);
  if (i < workload.origins.size()) {
    t["subgraph"] = workload.origins[i].subgraph;
    t["tensor"] = workload.origins[i].tensor;
  }
  t["size"] = r.size;
  t["first"] = r.first;
  t["last"] = r.last;
  return t;
}

nlohmann::ordered_json PlanFileJson(const Workload& workload, const StrategyRun& run) {
  if (run.objects) return ObjectsPlanFileJson(workload, run);
  const Problem& problem = workload.problem;
  nlohmann::ordered_json j;
  j["mode"] = run.mode;
  j["strategy"] = run.strategy;
  j["arena_bytes"] = run.offsets->arena_bytes;
  j["alignment"] = problem.alignment;
  auto& tensors = j["tensors"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < problem.size(); ++i) {
    nlohmann::ordered_json t = PlanTensorJson(workload, problem, i);
    t["offset"] = run.offsets->offsets[i];
    tensors.push_back(std::move(t));
  }
  return j;
}

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

CapacityDecision DecideCapacity(const Workload& workload, Bytes capacity,
                                const ExactOptions& options) {
  ExactOptions decide = options;
  decide.capacity = capacity;
  const ExactResult result = SolveExact(workload.problem, decide);
  const bool fits = result.plan.has_value();
  CapacityDecision decision;
  if (fits) {
    StrategyRun& run = decision.run.emplace();
    run.mode = "offsets";
    run.strategy = "exact";
    run.bytes = result.plan->arena_bytes;
    run.offsets = result.plan;
  }
  {
    nlohmann::ordered_json& j = decision.json;
    j["input"] = workload.label;
    j["tensors"] = workload.problem.size();
    j["capacity_bytes"] = capacity;
    if (result.status == ExactStatus::kUnknown)
      j["fits"] = nullptr;
    else
      j["fits"] = fits;
    j["proven"] = result.status != ExactStatus::kUnknown;
    if (fits) j["arena_bytes"] = result.plan->arena_bytes;
    j["proven_optimal"] = result.proven_optimal;
    j["bound_bytes"] = result.bound_bytes;
    j["nodes"] = result.nodes;
    j["seconds"] = result.elapsed_s;
  }
  std::string verdict;
  switch (result.status) {
    case ExactStatus::kOptimal:
    case ExactStatus::kGap:
      verdict = fmt::format("fits: arena {} B{}", WithThousands(result.plan->arena_bytes),
                            result.proven_optimal ? ", optimal (proven)" : "");
      break;
    case ExactStatus::kInfeasible:
      verdict = "does not fit (proven: the search was exhausted)";
      break;
    case ExactStatus::kUnknown:
      verdict = "unknown: no plan found and no proof within the limit";
      break;
  }
  decision.line = fmt::format("{}: {} tensors, capacity {} B: {} ({} nodes, {:.2f} s)\n",
                              workload.label, workload.problem.size(), WithThousands(capacity),
                              verdict, result.nodes, result.elapsed_s);
  return decision;
}

}  // namespace memplan
