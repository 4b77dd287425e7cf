#include "tools/strategy_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/offsets.h"

namespace memplan::cli {

std::vector<std::string> ExpandStrategies(const std::vector<std::string>& requested) {
  std::vector<std::string> keys;
  auto add = [&](std::string key) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
  };
  for (const std::string& r : requested) {
    if (r == "all" || r == "offsets") {
      for (const OffsetStrategy& s : OffsetStrategies()) add("offsets/" + std::string(s.name));
      continue;
    }
    std::string name = r;
    if (r.starts_with("offsets/")) name = r.substr(8);
    if (!FindOffsetStrategy(name)) {
      std::string known;
      for (const OffsetStrategy& s : OffsetStrategies()) known += " offsets/" + std::string(s.name);
      throw UsageError(fmt::format("unknown strategy '{}'; choose all, offsets or one of:{}", r,
                                   known));
    }
    add("offsets/" + name);
  }
  if (keys.empty()) return ExpandStrategies({"all"});
  return keys;
}

Runs RunStrategies(const Workload& workload, const std::vector<std::string>& keys,
                   const ExactOptions& exact) {
  Runs out;
  const Problem& problem = workload.problem;
  Validate(problem);
  out.naive_bytes = NaiveBytes(problem);
  out.lower_bound_bytes = OffsetsLowerBound(problem);
  for (const std::string& key : keys) {
    const auto slash = key.find('/');
    StrategyRun run;
    run.mode = key.substr(0, slash);
    run.strategy = key.substr(slash + 1);
    const auto start = std::chrono::steady_clock::now();
    if (run.strategy == "exact") {
      ExactResult result = SolveExact(problem, exact);
      run.offsets = std::move(result.plan);
      run.proven_optimal = result.proven_optimal;
      run.bound_bytes = result.bound_bytes;
    } else {
      run.offsets = PlanOffsets(problem, run.strategy);
    }
    run.plan_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    run.bytes = run.offsets->arena_bytes;
    out.runs.push_back(std::move(run));
  }
  for (std::size_t i = 1; i < out.runs.size(); ++i)
    if (out.runs[i].bytes < out.runs[out.best].bytes) out.best = i;
  return out;
}

}  // namespace memplan::cli
