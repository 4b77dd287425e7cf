// The memplan mode's repair of a small range after a reset (docs/cpu-planner.md, "A small
// range after a reset"): up to kSmallRange tensors, every one whose placement still holds
// keeping it (a kernel sizing one output at Prepare leaves the rest valid), the others placed
// by greedy_by_size's rule (each in the smallest gap among the tensors alive with it, larger
// ones first) straight into the new layout's placements - no problem, records or offsets
// copied - with the bound asked at a node or two over those placements and the verification
// on them (the passes a scaled layout makes). Kept only at the lower bound; otherwise the
// range is planned whole (small_whole.cc, or the general path).
#include <algorithm>

#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"
#include "src/cpuplan/small_placement.h"

namespace memplan {

using cpuplan::Placement;
using cpuplan::SmallList;

bool CpuArenaPlanner::Impl::RepairSmall(const cpuplan::RangeToPlan& range, cpuplan::Replan& out) {
  const cpuplan::Layout* before = range.previous.get();
  const std::size_t n = range.tensors.size(), held = range.holding.size();
  if (layout_ || !before || n == 0 || n > cpuplan::kSmallRange || held == n ||
      (n - held) * cpuplan::kRepairShare > n)
    return false;
  if (n - held == 1 && GrewOutOfItsSlotAtThePeak(range)) return false;
  const Bytes align = options_.tensor_alignment;
  // The held placements as they were (each its tensor's record exactly: StillHolds), the
  // others to place in greedy_by_size's order: larger first, equal sizes in range order.
  out.placement.assign(Slots(), Placement{});
  SmallList slots, held_slots, to_place;  // the range's, the held ones (range order), the others
  cpuplan::SmallRoom room;
  for (const std::int32_t t : range.tensors) {
    const Bytes size = graph_.tensors[t].bytes;
    if (!room.Take(size, align)) return false;
    const auto slot = static_cast<std::uint32_t>(Slot(t));
    slots.Add(slot);
    if (held_slots.size < held && range.holding[held_slots.size] == t) {
      held_slots.Add(slot);
      out.placement[slot] = before->placement[slot];
      continue;
    }
    out.placement[slot] = {cpuplan::kNoOffset, size, alloc_node_[t], dealloc_node_[t]};
    to_place.Insert(slot, [&](std::uint32_t a, std::uint32_t b) {
      return out.placement[a].size > out.placement[b].size;
    });
  }
  cpuplan::PlaceInGaps<cpuplan::FitRule::kSmallestGap>(out.placement, held_slots.span(), to_place,
                                                       align);
  const Placement& top = cpuplan::TopAmong(out.placement, slots);
  const Bytes high = top.offset + top.size;
  if (!SmallRepairAtBound(out.placement, slots.span(), high, before->peak_step, to_place.span(),
                          out))
    return false;
  // The held placements come unchanged from a verified layout: only the placed ones are
  // checked, against all.
  cpuplan::VerifyPlacedAmong(out.placement, to_place.span(), align, high, "repair");
  out.from = range.reach;
  out.placed = n - held;
  out.fixed = held;
  out.high_water = high;
  return true;
}

// The layout before was at its bound at its peak node P: there the tensors alive tile
// [0, high) but for their paddings, and the only free room below `high` at P is the changed
// tensor's old place. When it is alive at P before and after, was not the topmost there, and
// grew past its aligned old size, it fits nowhere below `high` (every tensor alive at P is
// alive with it) and goes above: the arena reaches high + its new size, while the bound grows
// by at most its aligned growth plus one padding (the bytes alive at a node count every
// padding but the largest) - less, as its old size is at least two alignments. The repair
// would miss; the whole plan goes first.
bool CpuArenaPlanner::Impl::GrewOutOfItsSlotAtThePeak(const cpuplan::RangeToPlan& range) const {
  const cpuplan::Layout& before = *range.previous;
  const Step peak = before.peak_step;
  if (before.check != CpuTfliteCheck::kAtBound || peak < 0) return false;
  // The one range tensor whose placement does not hold (range.holding is the subsequence of
  // range.tensors of those that do).
  std::size_t k = 0;
  while (k < range.holding.size() && range.holding[k] == range.tensors[k]) ++k;
  const std::int32_t t = range.tensors[k];
  const Placement* old = PlacementIn(before, t);
  const Bytes align = options_.tensor_alignment;
  const Bytes size = graph_.tensors[t].bytes;
  return old && old->size > 0 && old->first <= peak && peak <= RecordLast(old->first, old->last) &&
         alloc_node_[t] <= peak && peak <= RecordLast(alloc_node_[t], dealloc_node_[t]) &&
         old->offset + old->size < before.high_water &&
         cpuplan::AlignUpFast(old->size, align) >= 2 * align &&
         cpuplan::AlignUpFast(size, align) > cpuplan::AlignUpFast(old->size, align);
}

bool CpuArenaPlanner::Impl::SmallRepairAtBound(const std::vector<Placement>& placement,
                                               std::span<const std::uint32_t> slots, Bytes high,
                                               Step peak, std::span<const std::uint32_t> placed,
                                               cpuplan::Replan& out) const {
  const auto at_bound_at = [&](Step node) {
    const Bytes alive = cpuplan::AliveAmong(placement, slots, options_.tensor_alignment, node);
    if (high > alive) return false;
    out.bound = alive;
    out.peak = node;
    return true;
  };
  // First the node where the layout before met its bound (a resize seldom moves the peak),
  // then a first or last node of a placed tensor (a grown tensor moves the peak to its own
  // nodes); no more (a repair that misses is replaced by a whole plan, which finds the bound
  // itself).
  if (peak >= 0 && at_bound_at(peak)) return true;
  return std::any_of(placed.begin(), placed.end(), [&](std::uint32_t slot) {
    const Placement& p = placement[slot];
    return at_bound_at(p.first) || at_bound_at(RecordLast(p.first, p.last));
  });
}

}  // namespace memplan
