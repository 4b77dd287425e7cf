#include "memplan/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <tuple>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/objects.h"
#include "memplan/offsets.h"
#include "memplan/table.h"

namespace memplan {

std::vector<std::string> ExpandStrategies(const std::vector<std::string>& requested) {
  std::vector<std::string> keys;
  auto add = [&](std::string key) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  };
  for (const std::string& r : requested) {
    if (r == "all" || r == "offsets")
      for (const OffsetStrategy& s : OffsetStrategies()) add("offsets/" + std::string(s.name));
    if (r == "all" || r == "objects")
      for (const ObjectStrategy& s : ObjectStrategies()) add("objects/" + std::string(s.name));
    if (r == "all" || r == "offsets" || r == "objects") continue;
    if (r.starts_with("offsets/") && FindOffsetStrategy(r.substr(8))) {
      add(r);
    } else if (r.starts_with("objects/") && FindObjectStrategy(r.substr(8))) {
      add(r);
    } else if (r.find('/') == std::string::npos && FindOffsetStrategy(r)) {
      add("offsets/" + r);
    } else if (r.find('/') == std::string::npos && FindObjectStrategy(r)) {
      add("objects/" + r);
    } else {
      std::string known;
      for (const OffsetStrategy& s : OffsetStrategies()) known += " offsets/" + std::string(s.name);
      for (const ObjectStrategy& s : ObjectStrategies()) known += " objects/" + std::string(s.name);
      throw UsageError(fmt::format(
          "unknown strategy '{}'; choose all, offsets, objects or one of:{}", r, known));
    }
  }
  if (keys.empty()) return ExpandStrategies({"all"});
  return keys;
}

namespace {

// Why a group leaves a strategy out on a problem of `records` records (its table entry's
// size limit), or nothing.
template <typename Strategy>
std::string LeftOutReason(const Strategy* entry, std::size_t records) {
  if (!entry || entry->group_limit == 0 || records <= entry->group_limit) return {};
  return fmt::format("{} {}", entry->slow_because, WithThousands(entry->group_limit));
}

bool Named(const std::vector<std::string>& requested, const std::string& key) {
  const std::string name = key.substr(key.find('/') + 1);
  return std::find(requested.begin(), requested.end(), key) != requested.end() ||
         std::find(requested.begin(), requested.end(), name) != requested.end();
}

// The plans of one mode made so far, for a strategy that reuses them.
template <typename Plan>
std::vector<Plan> PlansSoFar(const std::vector<StrategyRun>& runs,
                             std::optional<Plan> StrategyRun::*plan) {
  std::vector<Plan> out;
  for (const StrategyRun& done : runs)
    if (done.*plan) out.push_back(*(done.*plan));
  return out;
}

}  // namespace

Runs RunStrategies(const Workload& workload, const std::vector<std::string>& keys,
                   const ExactOptions& exact, const std::vector<std::string>& requested,
                   const std::function<void(const std::string&)>& starting) {
  Runs out;
  const Problem& problem = workload.problem;
  Validate(problem);
  out.naive_bytes = NaiveBytes(problem);
  out.lower_bound_bytes = OffsetsLowerBound(problem);
  out.objects_lower_bound_bytes = ObjectsLowerBound(problem);
  // The exact strategies start from best's plan when best has already run.
  auto ran = [&](const std::string& ran_key) -> const StrategyRun* {
    for (const StrategyRun& done : out.runs)
      if (done.Key() == ran_key) return &done;
    return nullptr;
  };
  for (const std::string& key : keys) {
    const auto slash = key.find('/');
    StrategyRun run;
    run.mode = key.substr(0, slash);
    run.strategy = key.substr(slash + 1);
    if (run.mode == "objects" && problem.HasFixed()) {
      out.objects_skipped = "objects strategies cannot keep fixed offsets";
      continue;
    }
    const OffsetStrategy* offsets_entry =
        run.mode == "offsets" ? FindOffsetStrategy(run.strategy) : nullptr;
    const ObjectStrategy* objects_entry =
        run.mode == "objects" ? FindObjectStrategy(run.strategy) : nullptr;
    if (!offsets_entry && !objects_entry)
      throw UsageError(fmt::format("unknown strategy '{}'", key));
    const std::string why = offsets_entry ? LeftOutReason(offsets_entry, problem.size())
                                          : LeftOutReason(objects_entry, problem.size());
    if (!why.empty() && !Named(requested, key)) {
      out.left_out.push_back(fmt::format("{} left out: {} records ({}); name it to run it", key,
                                         WithThousands(problem.size()), why));
      continue;
    }
    if (starting) starting(key);
    const auto start = std::chrono::steady_clock::now();
    if (run.mode == "objects" && run.strategy == "exact") {
      const StrategyRun* best = ran("objects/best");
      ObjectsExactResult result =
          SolveObjectsExact(problem, kObjectsExactNodeLimit, best ? &*best->objects : nullptr);
      run.bytes = result.plan.total_bytes;
      run.proven_optimal = result.proven_optimal;
      run.bound_bytes = result.bound_bytes;
      run.open_reason = std::move(result.open_reason);
      run.objects = std::move(result.plan);
    } else if (run.mode == "objects") {
      // A strategy that runs others first (greedy_best, best) reuses those already run.
      const std::vector<ObjectPlan> known = objects_entry->reuse
                                                ? PlansSoFar(out.runs, &StrategyRun::objects)
                                                : std::vector<ObjectPlan>{};
      run.objects = PlanObjects(problem, run.strategy, known);
      run.bytes = run.objects->total_bytes;
    } else if (run.strategy == "exact") {
      ExactOptions options = exact;
      if (const StrategyRun* best = ran("offsets/best")) options.start = best->offsets;
      ExactResult result = SolveExact(problem, options);
      if (!result.plan) throw InternalError("the exact solver returned no plan");
      run.bytes = result.plan->arena_bytes;
      run.proven_optimal = result.proven_optimal;
      run.bound_bytes = result.bound_bytes;
      run.offsets = std::move(result.plan);
    } else {
      // A strategy that runs others first (best) reuses those already run.
      const std::vector<OffsetPlan> known = offsets_entry->reuse
                                                ? PlansSoFar(out.runs, &StrategyRun::offsets)
                                                : std::vector<OffsetPlan>{};
      run.offsets = PlanOffsets(problem, run.strategy, known);
      run.bytes = run.offsets->arena_bytes;
    }
    run.plan_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    out.runs.push_back(std::move(run));
  }
  auto rank = [&](std::size_t i) {
    return std::tuple(out.runs[i].bytes, out.runs[i].mode != "offsets", i);
  };
  for (std::size_t i = 1; i < out.runs.size(); ++i)
    if (rank(i) < rank(out.best)) out.best = i;
  return out;
}

}  // namespace memplan
