#pragma once
// What the offsets and the shared-objects strategy tables (offsets.h, objects.h) share:
// the entry, finding an entry by name, refusing an unknown name with the names known, and running
// an entry, on the plans of others when it can reuse them.
#include <fmt/format.h>

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/error.h"
#include "memplan/problem.h"

namespace memplan {

// One entry of a strategy table that plans a Problem into a `Plan` (OffsetPlan, ObjectPlan).
template <class Plan>
struct StrategyEntry {
  std::string_view name;                   // the name users type, e.g. "greedy_by_size"
  std::string_view summary;                // one line for --help and reports
  Plan (*plan)(const Problem&) = nullptr;  // the strategy itself; the plan is not yet verified
  // The same, reusing the plans of others from `known`; nullptr: it runs no others.
  Plan (*reuse)(const Problem&, std::span<const Plan> known) = nullptr;
  // Above this many records a group of strategies ("all", or the table's mode) leaves it out
  // unless it is named; 0: no limit. `slow_because` says why, for the note that it was left out.
  std::size_t group_limit = 0;
  std::string_view slow_because = {};
};

// The entry called `name` in `table`, or nullptr. `Strategy` has a `name`.
template <class Strategy>
const Strategy* FindInTable(std::span<const Strategy> table, std::string_view name) {
  for (const Strategy& s : table)
    if (s.name == name) return &s;
  return nullptr;
}

// The entry called `name`, or a UsageError that names `mode` ("offsets", "objects") and
// lists the names known.
template <class Strategy>
const Strategy& StrategyNamed(std::span<const Strategy> table, std::string_view mode,
                              std::string_view name) {
  if (const Strategy* s = FindInTable(table, name)) return *s;
  std::string names;
  for (const Strategy& s : table) names += fmt::format(" {}", s.name);
  throw UsageError(fmt::format("unknown {} strategy '{}'; known:{}", mode, name, names));
}

// Runs `strategy` (its `plan`, or its `reuse` when it has one and a known plan is usable)
// and names the plan after it; the plan is not yet verified. A known plan is taken only
// once `usable(plan)` says it checks out against this problem.
template <class Strategy, class Plan, class Usable>
Plan RunStrategy(const Strategy& strategy, const Problem& problem, std::span<const Plan> known,
                 Usable usable) {
  std::vector<Plan> kept;
  for (const Plan& plan : known)
    if (usable(plan)) kept.push_back(plan);
  Plan plan =
      strategy.reuse && !kept.empty() ? strategy.reuse(problem, kept) : strategy.plan(problem);
  plan.strategy = std::string(strategy.name);
  return plan;
}

}  // namespace memplan
