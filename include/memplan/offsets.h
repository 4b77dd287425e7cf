#pragma once
// Offset strategies: each is a pure, deterministic function from a Problem to an
// OffsetPlan. Look them up by name; PlanOffsets runs one and verifies the result.

#include <span>
#include <string_view>

#include "memplan/plan.h"

namespace memplan {

using OffsetStrategyFn = OffsetPlan (*)(const Problem&);

struct OffsetStrategy {
  std::string_view name;     // the name users type, e.g. "greedy_by_size"
  std::string_view summary;  // one line for --help and reports
  OffsetStrategyFn plan;     // the strategy itself; the plan is not yet verified
};

// Every offset strategy, in the order reports list them.
std::span<const OffsetStrategy> OffsetStrategies();

// The strategy called `name`, or nullptr.
const OffsetStrategy* FindOffsetStrategy(std::string_view name);

// Validates the problem, runs the named strategy, verifies the plan and returns it.
// Throws UsageError for an unknown name, InputError for a bad problem, InternalError
// if the strategy's plan fails verification.
OffsetPlan PlanOffsets(const Problem& problem, std::string_view name);

// The strategies one by one (declared here so tests and the portfolio can call them).
OffsetPlan PlanNaive(const Problem& problem);
OffsetPlan PlanGreedyBySize(const Problem& problem);

}  // namespace memplan
