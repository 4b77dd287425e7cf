// objects/best: memplan's own. Runs every TensorFlow Lite strategy and keeps the
// smallest plan (first in list order on ties).
#include "memplan/objects.h"

namespace memplan {

ObjectPlan PlanObjectsBest(const Problem& problem) {
  ObjectPlan best = PlanObjectsGreedyInOrder(problem);
  for (ObjectStrategyFn fn : {&PlanObjectsEquality, &PlanObjectsGreedyByBreadth,
                              &PlanObjectsGreedyBySize, &PlanObjectsMinCostFlow}) {
    ObjectPlan plan = fn(problem);
    if (plan.total_bytes < best.total_bytes) best = std::move(plan);
  }
  best.strategy = "best";
  return best;
}

}  // namespace memplan
