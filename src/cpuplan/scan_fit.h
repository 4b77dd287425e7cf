#pragma once
// The memplan mode's own placement and verification for node-range problems (records over
// node indices; docs/cpu-planner.md, "Planning time"). Placing: each record in turn among
// the placed records it conflicts with, walked in offset order, by TensorFlow Lite's
// SimpleMemoryArena fit or TensorFlow Lite GPU's best fit (greedy_by_size) - the same offsets
// as memplan's strategies (tests/cpu_planner_tflite_bound_test.cc checks), without their
// index, which only pays off above a few hundred records. Verifying: one sweep over the
// nodes with the live records in offset order, each newcomer checked against its
// neighbours; the project's VerifyOrThrow where steps are sparse.
#include <span>
#include <vector>

#include "memplan/plan.h"
#include "memplan/problem.h"
#include "src/cpuplan/simple_arena.h"
#include "src/cpuplan/sweep_scratch.h"

namespace memplan::cpuplan {

// Above this many records the indexed strategies are faster than a scan (GPT-2: a re-plan of
// 126 tensors around ~30 kept ones is faster by scan, a whole plan of 849 by the index).
inline constexpr std::size_t kScanRecords = 256;

// Fixed records where they are, then `order` (records without a fixed offset) one at a time.
// tflite_fit: SimpleMemoryArena's rule (aligned candidate starts, fit measured from the
// unaligned end, a perfect fit stops the walk); else greedy_by_size's smallest gap.
OffsetPlan PlaceByScan(const Problem& problem, std::span<const std::size_t> order, bool tflite_fit);
// The same into `plan`, whose buffer is reused, with `scratch`'s (a re-plan of a small graph
// allocates nothing; the overload without allocates its own). Stops, returning false with
// `plan` incomplete, once the arena reaches `stop_at`: the arena only grows as records are
// placed, so the whole plan would be no smaller - what a caller that only needs to know "no
// smaller than" wants, for a fraction of the placement.
bool PlaceByScan(const Problem& problem, std::span<const std::size_t> order, bool tflite_fit,
                 OffsetPlan& plan, SweepScratch& scratch, Bytes stop_at = ~Bytes{0});
bool PlaceByScan(const Problem& problem, std::span<const std::size_t> order, bool tflite_fit,
                 OffsetPlan& plan, Bytes stop_at = ~Bytes{0});
// greedy_by_size's order: records without a fixed offset, larger first, equal sizes in
// record order.
std::vector<std::size_t> GreedyBySizeOrder(const Problem& problem);
// The same into `order`, which on entry may hold an earlier order: kept, without sorting,
// when the problem has no fixed records and it is still the order (a shape that scales
// every tensor alike keeps it; KeepIfStillSorted checks).
void GreedyBySizeOrder(const Problem& problem, std::vector<std::size_t>& order);

// Whether `order` is a permutation of 0..n-1 already sorted by `before` (a strict total
// order, so the sorted permutation is unique and a sort would return `order` itself).
// O(n): a re-plan after a resize that kept the relative sizes skips its sort.
template <typename Before>
bool KeepIfStillSorted(const std::vector<std::size_t>& order, std::size_t n, Before before) {
  if (order.size() != n) return false;
  // Distinct (the values come from an earlier order) and all below n: a permutation.
  for (const std::size_t k : order)
    if (k >= n) return false;
  for (std::size_t i = 1; i < n; ++i)
    if (!before(order[i - 1], order[i])) return false;
  return true;
}

// InternalError naming the strategy and the first violation when the plan is not valid
// for the problem (the checks of memplan/plan.h FindViolations). `scratch`: buffers reused
// from call to call (the overload without allocates its own).
void VerifyBySweep(const Problem& problem, const OffsetPlan& plan, SweepScratch& scratch);
void VerifyBySweep(const Problem& problem, const OffsetPlan& plan);
// A repair verified on a layout's placements (size 0: none; a last node of kEndOfRun: alive
// to the end): only the `placed` slots are new, every other pair was verified with the layout
// they come from, so each placed one is checked - aligned, in range - against every
// placement alive with it, and `arena` must be their highest end. O(placed x placements).
// InternalError naming `strategy` and the slots otherwise.
void VerifyPlacedAmong(std::span<const Placement> placement, std::span<const std::uint32_t> placed,
                       Bytes alignment, Bytes arena, std::string_view strategy);
// A whole layout verified on its placements, as VerifyBySweep verifies a problem's plan, when
// at most kSmallRecords are placed (false otherwise, nothing checked): each aligned, in range,
// apart from every placement alive with it, `arena` their highest end. Sorted by offset on
// the stack: no buffer of the planner's is touched (a fresh step after cache hits finds them
// cold). InternalError naming `strategy` and the slots otherwise.
bool VerifyFewPlacements(std::span<const Placement> placement, Bytes alignment, Bytes arena,
                         std::string_view strategy);

}  // namespace memplan::cpuplan
