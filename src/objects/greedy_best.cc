// objects/greedy_best: TensorFlow Lite GPU's GREEDY_BEST (BestGreedy), used by its
// OpenCL and Metal backends for buffers: greedy_by_size, unless greedy_by_breadth is
// strictly smaller.
#include "memplan/objects.h"

namespace memplan {

ObjectPlan PlanObjectsGreedyBest(const Problem& problem) {
  ObjectPlan by_size = PlanObjectsGreedyBySize(problem);
  ObjectPlan by_breadth = PlanObjectsGreedyByBreadth(problem);
  ObjectPlan& best = by_breadth.total_bytes < by_size.total_bytes ? by_breadth : by_size;
  best.strategy = "greedy_best";
  return std::move(best);
}

}  // namespace memplan
