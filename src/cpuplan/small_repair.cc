// The memplan mode's repair of a small range after a reset (docs/cpu-planner.md, "A small
// repair"): a kernel that sizes one output at Prepare, or a resize that changes a few tensors,
// leaves every other placement of the layout before valid. The tensors whose placement no
// longer holds are placed again by greedy_by_size's rule (the smallest gap among the tensors
// alive with them), the rest stay, and the result is kept when the bytes alive at one node
// show it at the lower bound. It runs the same passes as a scaled layout (the range's records
// and offsets in the verification's buffers, one bound pass, the verification, one write of
// the placements), so a late change runs code that the fresh shapes before it kept warm
// instead of a problem around fixed records of its own.
#include <algorithm>
#include <limits>

#include "src/cpuplan/align.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"

namespace memplan {

namespace {

constexpr Bytes kNone = std::numeric_limits<Bytes>::max();

bool AliveTogether(const UsageRecord& a, const UsageRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Puts record `k` into `by_offset` (record indices sorted by offset, equal offsets in the
// order they came): shifted in from the end, as few records as a small range has.
void InsertByOffset(std::vector<std::size_t>& by_offset, std::size_t k,
                    const std::vector<Bytes>& offsets) {
  by_offset.push_back(k);
  auto it = by_offset.end() - 1;
  for (; it != by_offset.begin() && offsets[*(it - 1)] > offsets[k]; --it) *it = *(it - 1);
  *it = k;
}

// greedy_by_size's offset for `record` among the placed records of `by_offset` alive with it,
// walked in offset order: the start of the smallest gap that holds it, else above them all
// (cpuplan::PlaceByScan's rule, the same offset).
Bytes SmallestGap(const UsageRecord& record, const std::vector<std::size_t>& by_offset,
                  const Problem& problem, const std::vector<Bytes>& offsets) {
  Bytes best = kNone, best_gap = kNone, cursor = 0;
  for (const std::size_t j : by_offset) {
    const UsageRecord& other = problem.records[j];
    if (!AliveTogether(record, other)) continue;
    if (offsets[j] >= cursor) {
      const Bytes gap = offsets[j] - cursor;
      if (gap >= record.size && gap < best_gap) {
        best_gap = gap;
        best = cursor;
      }
    }
    cursor = std::max(cursor, cpuplan::AlignUpFast(offsets[j] + other.size, problem.alignment));
  }
  return best != kNone ? best : cursor;
}

}  // namespace

bool CpuArenaPlanner::Impl::RepairSmall(const cpuplan::RangeToPlan& range, cpuplan::Replan& out) {
  const cpuplan::Layout* before = range.previous.get();
  const std::size_t n = range.tensors.size(), held = range.holding.size();
  if (!before || layout_ || n > cpuplan::kSmallRange || held == n ||
      (n - held) * cpuplan::kRepairShare > n)
    return false;
  // The range's records in its order, the held ones at their old offsets (range.holding is
  // the subsequence of range.tensors whose placement holds); the others to place, larger
  // first, equal sizes in range order (greedy_by_size's order).
  Problem& problem = scratch_.problem;
  OffsetPlan& plan = scratch_.plans[0];
  std::vector<std::size_t>& to_place = scratch_.order;
  problem.alignment = options_.tensor_alignment;
  problem.records.clear();
  problem.fixed_offsets.clear();
  plan.offsets.clear();
  to_place.clear();
  // Validate's room for every arena position: a total beyond it goes to the plan that
  // validates its problem and says so.
  constexpr Bytes kRoom = std::numeric_limits<Bytes>::max() / 4;
  Bytes total = 0;
  Step lo = std::numeric_limits<Step>::max(), hi = 0;
  std::size_t h = 0;
  for (const std::int32_t t : range.tensors) {
    const UsageRecord record{graph_.tensors[t].bytes, alloc_node_[t],
                             RecordLast(alloc_node_[t], dealloc_node_[t])};
    total += std::min(record.size, kRoom) + std::min(problem.alignment, kRoom);
    if (total > kRoom) return false;
    if (h < held && range.holding[h] == t) {
      ++h;
      plan.offsets.push_back(before->placement[static_cast<std::size_t>(t)].offset);
    } else {
      const std::size_t k = problem.records.size();
      std::size_t at = to_place.size();
      to_place.push_back(k);
      for (; at > 0 && problem.records[to_place[at - 1]].size < record.size; --at)
        to_place[at] = to_place[at - 1];
      to_place[at] = k;
      plan.offsets.push_back(kNone);
      lo = std::min(lo, record.first);
      hi = std::max(hi, record.last);
    }
    problem.records.push_back(record);
  }
  // The held records that can meet a placed one, in offset order; each placed one joins them.
  std::vector<std::size_t>& by_offset = scratch_.by_offset;
  by_offset.clear();
  for (std::size_t k = 0; k < problem.records.size(); ++k)
    if (plan.offsets[k] != kNone && problem.records[k].first <= hi && lo <= problem.records[k].last)
      InsertByOffset(by_offset, k, plan.offsets);
  for (const std::size_t k : to_place) {
    plan.offsets[k] = SmallestGap(problem.records[k], by_offset, problem, plan.offsets);
    InsertByOffset(by_offset, k, plan.offsets);
  }
  Bytes high = 0;
  for (std::size_t k = 0; k < problem.records.size(); ++k)
    high = std::max(high, plan.offsets[k] + problem.records[k].size);
  // At the bound when the bytes alive at one node reach the arena: the node where the layout
  // before met its bound, else a first or last node of a placed tensor (a grown tensor moves
  // the peak to its own nodes).
  const auto at_bound_at = [&](Step node) {
    const Bytes alive = cpuplan::LiveBytesAt(problem.records, problem.alignment, node);
    if (high > alive) return false;
    out.bound = alive;
    out.peak = node;
    return true;
  };
  bool at_bound = before->peak_step >= 0 && at_bound_at(before->peak_step);
  for (std::size_t i = 0; i < to_place.size() && !at_bound; ++i)
    at_bound = at_bound_at(problem.records[to_place[i]].first) ||
               at_bound_at(problem.records[to_place[i]].last);
  if (!at_bound) return false;
  plan.arena_bytes = high;
  plan.strategy.assign("repair");
  cpuplan::VerifyBySweep(problem, plan);
  WriteRange(range, plan.offsets, out);
  out.from = range.reach;
  out.placed = n - held;
  out.fixed = held;
  out.high_water = high;
  return true;
}

}  // namespace memplan
