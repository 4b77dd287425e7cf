// tflm_greedy: TensorFlow Lite Micro's GreedyMemoryPlanner (docs/offsets.md, tflm_greedy).
// Offline (fixed) buffers first, unchecked; then the online ones by size, largest first,
// equal sizes in reverse add order (its stable sort of buffers listed from the back);
// each at the lowest gap that fits among the buffers it overlaps in time (first fit),
// else above them all. TFLM rounds sizes up to 16 before planning; memplan rounds them up
// to the problem's alignment (so sizes that round alike tie in the sort) and fits them in
// aligned gaps.
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

OffsetPlan PlanTflmGreedy(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, TflmOrder(problem), Fit::kLowestGap, "tflm_greedy");
}

}  // namespace memplan
