#pragma once
// Anchoring at the heaviest step (internal to src/offsets, used by `best`).
//
// An arena can only reach the lower bound if, at the step where the live bytes peak,
// the records live there are packed without a hole. A greedy order places those records
// among everything placed before them and often leaves a hole there that nothing else
// can fill (on pangu_2.6B, 40 MiB under a staircase of long-lived records). Anchoring
// places the peak's records first, packed from the bottom up in a chosen order, and only
// then the others around them: the peak is tight by construction and the rest, which
// live where there is slack, usually fit below the same top (docs/offsets.md).
#include <cstdint>
#include <span>
#include <vector>

#include "memplan/problem.h"
#include "src/offsets/placement.h"

namespace memplan::offsets {

// The renumbered step where the records' live bytes (sizes rounded up to the
// alignment) are largest, the earliest on ties; -1 when there are no records.
std::int32_t HeaviestStep(const Problem& problem, const CompactSteps& steps);

// The online (not fixed) records live at renumbered step `step`, ordered by `rank`
// (ascending; ties by record index).
std::vector<std::size_t> OnlineLiveAt(const Problem& problem, const CompactSteps& steps,
                                      std::int32_t step, std::span<const Bytes> rank);

// The problem's own step at which every record of `live` (all live at one renumbered
// step) is live: the latest of their first steps.
Step OriginalStep(const Problem& problem, std::span<const std::size_t> live);

// Places `anchor` packed bottom-up in its order (each at the lowest offset free of the
// records placed before it, fixed ones included), then `rest` with `fit`. Returns false
// as soon as the arena exceeds `give_up_above` (which other threads may lower).
bool PlaceAnchored(Placer& placer, std::span<const std::size_t> anchor,
                   std::span<const std::size_t> rest, Fit fit,
                   const std::atomic<Bytes>& give_up_above);

}  // namespace memplan::offsets
