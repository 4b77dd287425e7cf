// tvm_greedy: TVM USMP's greedy_by_size on records (docs/offsets.md, tvm_greedy), a comparison row
// that shows what gap reuse is worth. Larger size first, ties by more conflicts, then
// record order; each record goes just above the highest placed record it conflicts with
// (aligned), never into a gap below it.
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

OffsetPlan PlanTvmGreedy(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, TvmOrder(problem), Fit::kAboveAll, "tvm_greedy");
}

}  // namespace memplan
