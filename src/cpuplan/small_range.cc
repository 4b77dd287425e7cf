// The memplan mode's plan of a small range after a reset (docs/cpu-planner.md, "A small
// range"): up to kSmallRange tensors, placed by greedy_by_size's rule (each in the smallest
// gap among the tensors alive with it, larger ones first) straight into the new layout's
// placements - no problem, records or offsets copied - with the bound asked at a node or two
// over those placements and the verification on them (the passes a scaled layout makes).
// The lists a plan walks (what to place, the placed ones in offset order) are on the stack:
// a fresh step after cache hits finds the planner's own buffers cold, and its stack warm.
// As a repair, every tensor whose placement still holds keeps it and only the others are
// placed (a kernel sizing one output at Prepare leaves the rest valid); as a whole plan,
// every tensor is placed (the offsets cpuplan::PlaceByScan's greedy_by_size gives). Either is
// kept only at the lower bound; otherwise the general path plans the range.
#include <algorithm>
#include <array>
#include <limits>

#include "src/cpuplan/align.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"

namespace memplan {

using cpuplan::Placement;

namespace {

constexpr Bytes kNone = std::numeric_limits<Bytes>::max();
// Validate's room for every arena position: a range whose sizes and paddings add up to more
// goes to the plan that validates its problem and says so.
constexpr Bytes kRoom = std::numeric_limits<Bytes>::max() / 4;

// Up to kSmallRange indices, on the stack.
struct SmallList {
  std::array<std::uint32_t, cpuplan::kSmallRange> at;
  std::size_t size = 0;
  const std::uint32_t* begin() const { return at.data(); }
  const std::uint32_t* end() const { return at.data() + size; }
  // Puts `k` in, shifted from the end past those that `before` puts after it (equal ones
  // keep the order they came in).
  template <typename Before>
  void Insert(std::uint32_t k, Before before) {
    std::size_t i = size++;
    for (; i > 0 && before(k, at[i - 1]); --i) at[i] = at[i - 1];
    at[i] = k;
  }
};

// The bytes alive at `node` among the placements of `slots`, sizes rounded up to the
// alignment but the topmost (cpuplan::LiveBytesAt over a small range's placements only).
Bytes AliveAmong(const std::vector<Placement>& placement, std::span<const std::uint32_t> slots,
                 Bytes alignment, Step node) {
  cpuplan::LiveBytes alive(alignment);
  for (const std::uint32_t s : slots)
    if (placement[s].first <= node && node <= placement[s].last) alive.Add(placement[s].size);
  return alive.value();
}

// greedy_by_size's offset for `p` among the `placed` placements (in offset order) alive with
// it: the start of the smallest gap that holds it, else above them all (cpuplan::PlaceByScan's
// rule, the same offset).
Bytes SmallestGap(const Placement& p, const SmallList& placed,
                  const std::vector<Placement>& placement, Bytes alignment) {
  Bytes best = kNone, best_gap = kNone, cursor = 0;
  for (const std::uint32_t j : placed) {
    const Placement& other = placement[j];
    if (!cpuplan::AliveTogether(p, other)) continue;
    if (other.offset >= cursor && other.offset - cursor >= p.size &&
        other.offset - cursor < best_gap) {
      best_gap = other.offset - cursor;
      best = cursor;
    }
    cursor = std::max(cursor, cpuplan::AlignUpFast(other.offset + other.size, alignment));
  }
  return best != kNone ? best : cursor;
}

// Places the `to_place` placements in that order, each in its smallest gap among the `held`
// ones (in range order) and those placed before it; of the held ones only those alive within
// the steps of the ones to place can meet one.
void PlaceInGaps(std::vector<Placement>& placement, const SmallList& held,
                 const SmallList& to_place, Bytes alignment) {
  std::int32_t lo = std::numeric_limits<std::int32_t>::max(), hi = 0;
  for (const std::uint32_t slot : to_place) {
    lo = std::min(lo, placement[slot].first);
    hi = std::max(hi, placement[slot].last);
  }
  const auto by_offset = [&](std::uint32_t a, std::uint32_t b) {
    return placement[a].offset < placement[b].offset;
  };
  SmallList placed;  // in offset order, equal offsets in the order they came
  for (const std::uint32_t slot : held)
    if (placement[slot].first <= hi && lo <= placement[slot].last) placed.Insert(slot, by_offset);
  for (const std::uint32_t slot : to_place) {
    placement[slot].offset = SmallestGap(placement[slot], placed, placement, alignment);
    placed.Insert(slot, by_offset);
  }
}

// The highest end among the placements of `slots`, and the first of them to reach it (`top`).
Bytes TopAmong(const std::vector<Placement>& placement, const SmallList& slots, std::size_t& top) {
  Bytes high = 0;
  for (const std::uint32_t slot : slots) {
    const Placement& p = placement[slot];
    if (p.offset + p.size > high) {
      high = p.offset + p.size;
      top = slot;
    }
  }
  return high;
}

}  // namespace

bool CpuArenaPlanner::Impl::PlaceSmall(const cpuplan::RangeToPlan& range, bool repair,
                                       cpuplan::Replan& out) {
  const cpuplan::Layout* before = range.previous.get();
  const std::size_t n = range.tensors.size(), held = repair ? range.holding.size() : 0;
  if (layout_ || n == 0 || n > cpuplan::kSmallRange) return false;
  if (repair && (!before || held == n || (n - held) * cpuplan::kRepairShare > n)) return false;
  if (repair && n - held == 1 && GrewOutOfItsSlotAtThePeak(range)) return false;
  const Bytes align = options_.tensor_alignment;
  // The held placements as they were (each its tensor's record exactly: StillHolds), the
  // others to place in greedy_by_size's order: larger first, equal sizes in range order.
  out.placement.assign(Slots(), Placement{});
  SmallList slots, held_slots, to_place;  // the range's, the held ones (range order), the others
  Bytes total = 0;
  for (const std::int32_t t : range.tensors) {
    const Bytes size = graph_.tensors[t].bytes;
    total += std::min(size, kRoom) + std::min(align, kRoom);
    if (total > kRoom) return false;
    const auto slot = static_cast<std::uint32_t>(Slot(t));
    slots.at[slots.size++] = slot;
    if (held_slots.size < held && range.holding[held_slots.size] == t) {
      held_slots.at[held_slots.size++] = slot;
      out.placement[slot] = before->placement[slot];
      continue;
    }
    out.placement[slot] = {kNone, size, alloc_node_[t], dealloc_node_[t]};
    to_place.Insert(slot, [&](std::uint32_t a, std::uint32_t b) {
      return out.placement[a].size > out.placement[b].size;
    });
  }
  PlaceInGaps(out.placement, held_slots, to_place, align);
  std::size_t top = 0;
  const Bytes high = TopAmong(out.placement, slots, top);
  if (!SmallAtBound(out.placement, {slots.begin(), slots.size}, high,
                    before ? before->peak_step : -1,
                    repair ? std::span<const std::uint32_t>(to_place.begin(), to_place.size)
                           : std::span<const std::uint32_t>(),
                    top, out))
    return false;
  // A repair's held placements come unchanged from a verified layout: only the placed ones
  // are checked, against all.
  if (repair)
    cpuplan::VerifyPlacedAmong(out.placement, {to_place.begin(), to_place.size}, align, high,
                               "repair");
  else
    cpuplan::VerifyFewPlacements(out.placement, align, high, "greedy_by_size");
  out.from = repair ? range.reach : range.first_node;
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

bool CpuArenaPlanner::Impl::SmallAtBound(const std::vector<Placement>& placement,
                                         std::span<const std::uint32_t> slots, Bytes high,
                                         Step peak, std::span<const std::uint32_t> placed,
                                         std::size_t top, cpuplan::Replan& out) const {
  const auto at_bound_at = [&](Step node) {
    const Bytes alive = AliveAmong(placement, slots, options_.tensor_alignment, node);
    if (high > alive) return false;
    out.bound = alive;
    out.peak = node;
    return true;
  };
  // First the node where the layout before met its bound (a resize seldom moves the peak).
  if (peak >= 0 && at_bound_at(peak)) return true;
  // A repair: a first or last node of a placed tensor (a grown tensor moves the peak to its
  // own nodes); no more (a repair that misses is replaced by a whole plan, which finds the
  // bound itself).
  const auto at_ends = [&](std::size_t slot) {
    const Placement& p = placement[slot];
    return at_bound_at(p.first) || at_bound_at(RecordLast(p.first, p.last));
  };
  if (!placed.empty()) return std::any_of(placed.begin(), placed.end(), at_ends);
  // A whole plan: the first and last node of the tensor that tops it (it is alive there with
  // everything it was placed above), else every node where a tensor arrives: the most bytes
  // alive at a node are at one of those (a departure only lowers them: it takes its aligned
  // size off and at most its padding back), so the plan is at the bound if one reaches it.
  if (at_ends(top)) return true;
  return std::any_of(slots.begin(), slots.end(),
                     [&](std::uint32_t s) { return at_bound_at(placement[s].first); });
}

}  // namespace memplan
