// objects/greedy_best: TensorFlow Lite GPU's GREEDY_BEST (BestGreedy), used by its
// OpenCL and Metal backends for buffers: greedy_by_size, unless greedy_by_breadth is
// strictly smaller.
#include <string_view>

#include "memplan/objects.h"

namespace memplan {

ObjectPlan PlanObjectsGreedyBest(const Problem& problem) {
  return PlanObjectsGreedyBestReusing(problem, {});
}

ObjectPlan PlanObjectsGreedyBestReusing(const Problem& problem, std::span<const ObjectPlan> known) {
  auto plan = [&](std::string_view name, ObjectPlan (*make)(const Problem&)) {
    for (const ObjectPlan& p : known)
      if (p.strategy == name) return p;
    return make(problem);
  };
  ObjectPlan by_size = plan("greedy_by_size", &PlanObjectsGreedyBySize);
  ObjectPlan by_breadth = plan("greedy_by_breadth", &PlanObjectsGreedyByBreadth);
  ObjectPlan& best = by_breadth.total_bytes < by_size.total_bytes ? by_breadth : by_size;
  best.strategy = "greedy_best";
  return std::move(best);
}

}  // namespace memplan
