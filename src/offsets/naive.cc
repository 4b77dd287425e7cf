// naive: every record its own space, back to back in record order (TensorFlow Lite
// Micro's LinearMemoryPlanner when the alignment is 1). Fixed records keep their
// offsets; the others are stacked above the highest fixed end so nothing can overlap.
#include "memplan/offsets.h"

#include <algorithm>

namespace memplan {

OffsetPlan PlanNaive(const Problem& problem) {
  Bytes next = 0;
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (problem.IsFixed(i))
      next = std::max(next, *problem.fixed_offsets[i] + problem.records[i].size);
  std::vector<Bytes> offsets(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i) {
    if (problem.IsFixed(i)) {
      offsets[i] = *problem.fixed_offsets[i];
      continue;
    }
    next = AlignUp(next, problem.alignment);
    offsets[i] = next;
    next += problem.records[i].size;
  }
  return MakeOffsetPlan(problem, "naive", std::move(offsets));
}

}  // namespace memplan
