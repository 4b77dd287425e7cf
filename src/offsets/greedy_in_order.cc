// greedy_in_order (offsets; memplan's definition, docs/offsets.md, greedy_in_order): records in
// execution order (first step, then index), each with TensorFlow Lite GPU's best fit
// among the placed records it conflicts with. Every placed record starts no later, so
// this is an online best-fit allocator running the network once, as a run-time pattern
// planner would.
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

OffsetPlan PlanGreedyInOrder(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, StartOrder(problem), Fit::kSmallestGap, "greedy_in_order");
}

}  // namespace memplan
