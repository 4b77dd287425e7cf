// greedy_by_breadth (offsets; memplan's definition, docs/offsets.md, greedy_by_breadth): steps by
// non-increasing breadth (live bytes), each step's records not yet placed by size,
// largest first; each with TensorFlow Lite GPU's best fit. The breadth order follows the
// paper of Pisarchyk & Lee, whose own breadth-based offset rule is not public.
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

OffsetPlan PlanGreedyByBreadth(const Problem& problem) {
  using namespace offsets;
  const CompactSteps steps = Compact(problem);
  const ConflictIndex index(steps);
  Placer placer(problem, steps, index);
  placer.PlaceAll(BreadthOrder(problem, steps), Fit::kSmallestGap);
  return MakeOffsetPlan(problem, "greedy_by_breadth", placer.Offsets());
}

}  // namespace memplan
