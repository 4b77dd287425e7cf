// The list of shared-objects strategies, and PlanObjects, the one way in that
// validates the problem and verifies the plan.
#include <array>

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/objects.h"
#include "memplan/strategy_table.h"

namespace memplan {

namespace {

constexpr std::array kStrategies = {
    ObjectStrategy{"naive", "every record its own object", &PlanObjectsNaive},
    ObjectStrategy{"equality", "TensorFlow Lite GPU: reuse only objects of exactly equal size",
                   &PlanObjectsEquality},
    ObjectStrategy{"greedy_in_order",
                   "TensorFlow Lite GPU: in step order, the free object closest in size",
                   &PlanObjectsGreedyInOrder},
    ObjectStrategy{"greedy_by_breadth",
                   "TensorFlow Lite GPU: busiest steps first, smallest fitting object",
                   &PlanObjectsGreedyByBreadth},
    ObjectStrategy{"greedy_by_size",
                   "TensorFlow Lite GPU: size classes first, then nearest in time",
                   &PlanObjectsGreedyBySize},
    ObjectStrategy{"greedy_best", "TensorFlow Lite GPU: the better of by_size and by_breadth",
                   &PlanObjectsGreedyBest, &PlanObjectsGreedyBestReusing},
    // Its network simplex takes seconds to minutes above 10,000 records (28 s at 20,000).
    ObjectStrategy{"min_cost_flow",
                   "TensorFlow Lite GPU: min-cost flow over reuse edges (solved with LEMON)",
                   &PlanObjectsMinCostFlow, nullptr, 10000, "it takes seconds to minutes above"},
    ObjectStrategy{"best", "memplan: the best of all, improved by local search", &PlanObjectsBest,
                   &PlanObjectsBestReusing},
    ObjectStrategy{"exact",
                   "memplan: best, then a branch and bound that proves it optimal or finds a "
                   "smaller total (200,000 nodes)",
                   &PlanObjectsExact},
};

}  // namespace

std::span<const ObjectStrategy> ObjectStrategies() {
  return kStrategies;
}

const ObjectStrategy* FindObjectStrategy(std::string_view name) {
  return FindInTable(ObjectStrategies(), name);
}

ObjectPlan PlanObjects(const Problem& problem, std::string_view name) {
  return PlanObjects(problem, name, {});
}

ObjectPlan PlanObjects(const Problem& problem, std::string_view name,
                       std::span<const ObjectPlan> known) {
  const ObjectStrategy& strategy = StrategyNamed(ObjectStrategies(), "objects", name);
  // Validate also keeps steps below 2^62, so the sweeps' `last + 1` cannot overflow.
  Validate(problem);
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (problem.IsFixed(i))
      throw UsageError(fmt::format(
          "objects strategy '{}' cannot keep fixed offsets ({} has one); use an offsets strategy",
          name, problem.Describe(i)));
  ObjectPlan plan = RunStrategy(strategy, problem, known, [&](const ObjectPlan& known_plan) {
    return known_plan.object_ids.size() == problem.size() &&
           FindObjectViolations(problem, known_plan, 1).empty();
  });
  VerifyObjectsOrThrow(problem, plan);
  return plan;
}

}  // namespace memplan
