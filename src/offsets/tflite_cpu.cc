// tflite_cpu: TensorFlow Lite CPU's ArenaPlanner order with SimpleMemoryArena placement
// (docs/offsets.md, tflite_cpu). Whole-run records (first step 0, last step the
// last of all) first by index, then by size, largest first, equal sizes by earlier first
// step, then index. Each goes to the aligned start of the tightest gap among the live
// allocations it overlaps, the fit measured from the unaligned end below the gap; size 0
// sits at 0 and is not recorded. The alignment is the problem's: TensorFlow Lite itself
// aligns tensors to 64 bytes (kDefaultTensorAlignment), i.e. `--align 64`.
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

OffsetPlan PlanTfliteCpu(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, TfliteCpuOrder(problem), Fit::kArena, "tflite_cpu");
}

OffsetPlan PlanTfliteCpuInCallOrder(const Problem& problem) {
  using namespace offsets;
  return PlaceInOrder(problem, OnlineRecords(problem), Fit::kArena, "tflite_cpu");
}

}  // namespace memplan
