// The memplan mode's plan of a small range after a reset (docs/cpu-planner.md, "A small
// range"): up to kSmallRange tensors, placed by greedy_by_size's rule (each in the smallest
// gap among the tensors alive with it, larger ones first) in a few short passes - the range's
// records and offsets in the verification's buffers, the placement, one bound pass at a node
// or two, the verification, one write of the placements - the passes a scaled layout makes,
// so a first plan, a late change and a fresh shape run code that the others keep warm.
// As a repair, every tensor whose placement still holds keeps it and only the others are
// placed (a kernel sizing one output at Prepare leaves the rest valid); as a whole plan,
// every tensor is placed (the offsets cpuplan::PlaceByScan's greedy_by_size gives). Either is
// kept only at the lower bound; otherwise the general path plans the range.
#include <algorithm>
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

bool AliveTogether(const UsageRecord& a, const UsageRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Puts `k` into `by_offset` (indices sorted by offset_of(index), equal offsets in the order
// they came): shifted in from the end, as few as a small range has.
template <typename OffsetOf>
void InsertByOffset(std::vector<std::size_t>& by_offset, std::size_t k, OffsetOf offset_of) {
  by_offset.push_back(k);
  auto it = by_offset.end() - 1;
  for (; it != by_offset.begin() && offset_of(*(it - 1)) > offset_of(k); --it) *it = *(it - 1);
  *it = k;
}

// greedy_by_size's offset for `record` among the placed ones of `by_offset` alive with it,
// walked in offset order (extent(j): index j's offset and record): the start of the
// smallest gap that holds it, else above them all (cpuplan::PlaceByScan's rule, the same
// offset).
template <typename Extent>
Bytes SmallestGap(const UsageRecord& record, const std::vector<std::size_t>& by_offset,
                  Bytes alignment, Extent extent) {
  Bytes best = kNone, best_gap = kNone, cursor = 0;
  for (const std::size_t j : by_offset) {
    const auto [offset, other] = extent(j);
    if (!AliveTogether(record, other)) continue;
    if (offset >= cursor) {
      const Bytes gap = offset - cursor;
      if (gap >= record.size && gap < best_gap) {
        best_gap = gap;
        best = cursor;
      }
    }
    cursor = std::max(cursor, cpuplan::AlignUpFast(offset + other.size, alignment));
  }
  return best != kNone ? best : cursor;
}

// Places the `to_place` records (offsets kNone) in that order, each in its smallest gap among
// the records placed already (the others at their offsets; of those, only the ones alive
// within the placed records' steps can meet one). cpuplan::PlaceByScan gives the same offsets
// with the held records as fixed ones, but orders every fixed record first: on keyword
// spotting's first late change that was 7,145 instructions against 5,827 here.
void PlaceInGaps(const Problem& problem, std::vector<Bytes>& offsets,
                 const std::vector<std::size_t>& to_place, std::vector<std::size_t>& by_offset) {
  Step lo = std::numeric_limits<Step>::max(), hi = 0;
  for (const std::size_t k : to_place) {
    lo = std::min(lo, problem.records[k].first);
    hi = std::max(hi, problem.records[k].last);
  }
  const auto offset_of = [&](std::size_t k) { return offsets[k]; };
  const auto extent = [&](std::size_t k) { return std::pair{offsets[k], problem.records[k]}; };
  by_offset.clear();
  for (std::size_t k = 0; k < problem.records.size(); ++k)
    if (offsets[k] != kNone && problem.records[k].first <= hi && lo <= problem.records[k].last)
      InsertByOffset(by_offset, k, offset_of);
  for (const std::size_t k : to_place) {
    offsets[k] = SmallestGap(problem.records[k], by_offset, problem.alignment, extent);
    InsertByOffset(by_offset, k, offset_of);
  }
}

}  // namespace

bool CpuArenaPlanner::Impl::PlaceSmall(const cpuplan::RangeToPlan& range, bool repair,
                                       cpuplan::Replan& out) {
  const cpuplan::Layout* before = range.previous.get();
  const std::size_t n = range.tensors.size(), held = repair ? range.holding.size() : 0;
  if (layout_ || n == 0 || n > cpuplan::kSmallRange) return false;
  if (repair && (!before || held == n || (n - held) * cpuplan::kRepairShare > n)) return false;
  if (repair && n - held == 1) return !GrewOutOfItsSlotAtThePeak(range) && RepairOne(range, out);
  Problem& problem = scratch_.problem;
  OffsetPlan& plan = scratch_.plans[0];
  std::vector<std::size_t>& to_place = scratch_.to_place;
  if (!RangeRecords(range, held, problem, plan.offsets, to_place)) return false;
  PlaceInGaps(problem, plan.offsets, to_place, scratch_.by_offset);
  std::size_t top = 0;
  const Bytes high = TopOf(problem, plan.offsets, top);
  if (!SmallAtBound(problem, high, before ? before->peak_step : -1, !repair, to_place, top, out))
    return false;
  plan.arena_bytes = high;
  plan.strategy.assign(repair ? "repair" : "greedy_by_size");
  // A repair's held records come unchanged from a verified layout: only the placed ones are
  // checked, against all.
  if (repair)
    cpuplan::VerifyPlaced(problem, plan, to_place);
  else
    cpuplan::VerifyBySweep(problem, plan, sweep_);
  WriteRange(range, plan.offsets, out);
  out.from = repair ? range.reach : range.first_node;
  out.placed = n - held;
  out.fixed = held;
  out.high_water = high;
  return true;
}

bool CpuArenaPlanner::Impl::RangeRecords(const cpuplan::RangeToPlan& range, std::size_t held,
                                         Problem& problem, std::vector<Bytes>& offsets,
                                         std::vector<std::size_t>& to_place) const {
  problem.alignment = options_.tensor_alignment;
  problem.records.clear();
  problem.fixed_offsets.clear();
  offsets.clear();
  to_place.clear();
  Bytes total = 0;
  std::size_t h = 0;
  for (const std::int32_t t : range.tensors) {
    const UsageRecord record{graph_.tensors[t].bytes, alloc_node_[t],
                             RecordLast(alloc_node_[t], dealloc_node_[t])};
    total += std::min(record.size, kRoom) + std::min(problem.alignment, kRoom);
    if (total > kRoom) return false;
    if (h < held && range.holding[h] == t) {
      ++h;
      offsets.push_back(range.previous->placement[Slot(t)].offset);
    } else {
      // Larger first, equal sizes in range order: shifted in from the end.
      const std::size_t k = problem.records.size();
      std::size_t at = to_place.size();
      to_place.push_back(k);
      for (; at > 0 && problem.records[to_place[at - 1]].size < record.size; --at)
        to_place[at] = to_place[at - 1];
      to_place[at] = k;
      offsets.push_back(kNone);
    }
    problem.records.push_back(record);
  }
  return true;
}

// The records are the layout before's placements (every held one is its tensor's record
// exactly: StillHolds) and the changed tensor's: the placements are written straight into
// out.placement, the gap found among them, the bound asked at three nodes over them, and the
// one placed tensor verified against them - no problem, records or offsets copied
// (PlaceSmall's repair of one tensor, the same offsets; a kernel resizing one output at
// Prepare is the common late change).
bool CpuArenaPlanner::Impl::RepairOne(const cpuplan::RangeToPlan& range, cpuplan::Replan& out) {
  const cpuplan::Layout& before = *range.previous;
  std::size_t k = 0;  // range.holding: the subsequence of range.tensors that holds
  while (k < range.holding.size() && range.holding[k] == range.tensors[k]) ++k;
  const std::int32_t t = range.tensors[k];
  const UsageRecord record{graph_.tensors[t].bytes, alloc_node_[t],
                           RecordLast(alloc_node_[t], dealloc_node_[t])};
  const auto extent = [&](std::size_t slot) {
    const Placement& p = out.placement[slot];
    return std::pair{p.offset, UsageRecord{p.size, p.first, RecordLast(p.first, p.last)}};
  };
  out.placement.assign(Slots(), Placement{});
  std::vector<std::size_t>& alive = scratch_.by_offset;  // held slots alive with it, by offset
  alive.clear();
  // Validate's room, as RangeRecords counts it: beyond it, the plan that validates its
  // problem says so.
  const Bytes align = options_.tensor_alignment;
  Bytes total = std::min(record.size, kRoom) + std::min(align, kRoom), high = 0;
  for (const std::int32_t h : range.holding) {
    const std::size_t slot = Slot(h);
    const Placement& p = out.placement[slot] = before.placement[slot];
    total += std::min(p.size, kRoom) + std::min(align, kRoom);
    high = std::max(high, p.offset + p.size);
    if (AliveTogether(record, extent(slot).second))
      InsertByOffset(alive, slot, [&](std::size_t s) { return out.placement[s].offset; });
  }
  if (total > kRoom) return false;
  const Bytes offset = SmallestGap(record, alive, align, extent);
  const std::size_t slot = Slot(t);
  out.placement[slot] = {offset, record.size, alloc_node_[t], dealloc_node_[t]};
  high = std::max(high, offset + record.size);
  // At the bound where the bytes alive at one node reach the arena: the layout before's peak,
  // then the tensor's first and last node (SmallAtBound's nodes for a repair).
  bool at_bound = false;
  for (const Step node : {before.peak_step, record.first, record.last}) {
    if (node < 0) continue;
    const Bytes alive_bytes = AliveAt(out.placement, node);
    if ((at_bound = high <= alive_bytes)) {
      out.bound = alive_bytes;
      out.peak = node;
      break;
    }
  }
  if (!at_bound) return false;
  cpuplan::VerifyOnePlaced(out.placement, slot, align, high, "repair");
  out.from = range.reach;
  out.placed = 1;
  out.fixed = range.holding.size();
  out.high_water = high;
  return true;
}

Bytes CpuArenaPlanner::Impl::TopOf(const Problem& problem, const std::vector<Bytes>& offsets,
                                   std::size_t& top) {
  Bytes high = 0;
  for (std::size_t k = 0; k < problem.records.size(); ++k)
    if (offsets[k] + problem.records[k].size > high) {
      high = offsets[k] + problem.records[k].size;
      top = k;
    }
  return high;
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

bool CpuArenaPlanner::Impl::SmallAtBound(const Problem& problem, Bytes high, Step peak,
                                         bool may_sweep, const std::vector<std::size_t>& placed,
                                         std::size_t top, cpuplan::Replan& out) const {
  const auto at_bound_at = [&](Step node) {
    const Bytes alive = cpuplan::LiveBytesAt(problem.records, problem.alignment, node);
    if (high > alive) return false;
    out.bound = alive;
    out.peak = node;
    return true;
  };
  // First the node where the layout before met its bound (a resize seldom moves the peak).
  if (peak >= 0 && at_bound_at(peak)) return true;
  // A repair: a first or last node of a placed tensor (a grown tensor moves the peak to its
  // own nodes); no sweep (a repair that misses is replaced by a whole plan, which finds the
  // bound itself; a scaled layout places nothing and has its peak).
  if (!may_sweep) {
    for (const std::size_t k : placed)
      if (at_bound_at(problem.records[k].first) || at_bound_at(problem.records[k].last))
        return true;
    return false;
  }
  // A whole plan: the first and last node of the record that tops it (it is alive there with
  // everything it was placed above), then the coarse bound over every node (two passes),
  // else the sweep.
  if (at_bound_at(problem.records[top].first) || at_bound_at(problem.records[top].last))
    return true;
  Step coarse_peak = -1;
  if (const Bytes coarse =
          cpuplan::CoarseLowerBound(problem.records, problem.alignment, &coarse_peak, sweep_);
      high <= coarse) {
    out.bound = coarse;
    out.peak = coarse_peak;
    return true;
  }
  out.bound = cpuplan::SweepLowerBound(problem.records, problem.alignment, &out.peak, sweep_);
  return high <= out.bound;
}

}  // namespace memplan
