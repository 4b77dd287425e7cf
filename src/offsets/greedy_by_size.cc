// greedy_by_size: TensorFlow Lite GPU's best fit (Pisarchyk & Lee, Algorithm 3;
// docs/offsets.md, greedy_by_size). Records in order of size (largest first, equal sizes in record
// order); each goes into the smallest gap between the already placed records it
// conflicts with, else just above the highest of them. Fixed records are placed first,
// where they are. The offsets are those of TensorFlow Lite's O(n^2) loop; only the way
// the conflicting records are found differs (tests/offsets_reference.cc cross-checks).
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

OffsetPlan PlanGreedyBySize(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, SizeOrder(problem), Fit::kSmallestGap, "greedy_by_size");
}

}  // namespace memplan
