#pragma once
// Checks the offline plan a model carries (TFLM's OfflineMemoryAllocation offsets) as
// TFLM would use it: what `memplan verify MODEL.tflite` reports, and the check of every
// plan `memplan embed` writes.
#include <cstddef>
#include <string>
#include <vector>

#include "memplan/inplace.h"
#include "memplan/plan.h"
#include "memplan/workload.h"

namespace memplan {

struct OfflineCheck {
  std::vector<Violation> violations;  // empty when the plan is sound
  std::size_t placed = 0;             // planned tensors with an offset
  std::size_t online = 0;             // planned tensors left to TFLM (-1)
  std::size_t shares = 0;             // in-place shares the offsets use (same offset)
  Bytes arena_bytes = 0;              // max(offset + size) over the placed tensors
  Bytes lower_bound = 0;              // the placed tensors' bound, their shares merged
  // Per ethos-u op of a Vela-compiled model: the tensors that live inside its scratch area,
  // in plain words (include/memplan/vela.h). They are checked as one buffer with it.
  std::vector<std::string> scratch_areas;
};

// `workload`: a .tflite model in TFLM's accounting whose offline plan is usable (its
// offsets are the problem's fixed offsets). The placed tensors must have offsets that
// are multiples of `alignment` and must not overlap while alive at the same step, except
// an output and the input it shares by `rules` (in place) at one offset. Tensors TFLM
// plans online are not checked: TFLM fits them around the others. The tensors Vela places
// inside an ethos-u op's scratch area count as the scratch's own bytes. Records marked in
// `trusted` (when not empty: offsets an earlier offline plan set, e.g. Vela's) may overlap
// each other, as TFLM allows.
OfflineCheck CheckOfflinePlan(const Workload& workload, const InPlaceRuleSet& rules,
                              Bytes alignment, std::size_t limit,
                              const std::vector<bool>& trusted = {});

// For commands that print or write a plan of `workload` (`input`, as given): InputError
// naming the first violations when the model's offline plan, which every plan keeps, fails
// CheckOfflinePlan with TFLM's in-place rules, so that no plan `verify` would reject is
// printed. Nothing for a workload without an offline plan.
void RefuseUnsoundOfflinePlan(const Workload& workload, const std::string& input);

}  // namespace memplan
