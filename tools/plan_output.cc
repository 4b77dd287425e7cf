#include "tools/plan_output.h"

#include <fmt/format.h>

#include "memplan/table.h"

namespace memplan::cli {

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

}  // namespace memplan::cli
