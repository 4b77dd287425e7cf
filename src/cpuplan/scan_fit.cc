// Placement by scanning and verification by a sweep over nodes (scan_fit.h).
#include "src/cpuplan/scan_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>

#include "memplan/error.h"
#include "src/cpuplan/align.h"

namespace memplan::cpuplan {

namespace {

std::string OverlapMessage(const Problem& problem, const std::vector<Bytes>& offsets,
                           std::uint32_t a, std::uint32_t b) {
  return fmt::format("overlap: {} at [{}, {}) and {} at [{}, {}) are alive at the same step",
                     problem.Describe(a), offsets[a], offsets[a] + problem.records[a].size,
                     problem.Describe(b), offsets[b], offsets[b] + problem.records[b].size);
}

}  // namespace

std::vector<std::size_t> GreedyBySizeOrder(const Problem& problem) {
  std::vector<std::size_t> order;  // empty: nothing earlier to keep
  GreedyBySizeOrder(problem, order);
  return order;
}

void GreedyBySizeOrder(const Problem& problem, std::vector<std::size_t>& order) {
  const auto before = [&](std::size_t a, std::size_t b) {
    const Bytes sa = problem.records[a].size, sb = problem.records[b].size;
    return sa != sb ? sa > sb : a < b;
  };
  if (problem.fixed_offsets.empty() && KeepIfStillSorted(order, problem.size(), before)) return;
  order.clear();
  order.reserve(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (!problem.IsFixed(i)) order.push_back(i);
  std::sort(order.begin(), order.end(), before);
}

OffsetPlan PlaceByScan(const Problem& problem, std::span<const std::size_t> order,
                       bool tflite_fit) {
  OffsetPlan plan;
  PlaceByScan(problem, order, tflite_fit, plan);
  return plan;
}

bool PlaceByScan(const Problem& problem, std::span<const std::size_t> order, bool tflite_fit,
                 OffsetPlan& plan, Bytes stop_at) {
  SweepScratch scratch;
  return PlaceByScan(problem, order, tflite_fit, plan, scratch, stop_at);
}

namespace {

// Keeps `p` in `placed`, sorted by offset with equal offsets in placement order: shifted in
// from the end (the buffer has room: no allocation, no call).
void InsertByOffset(std::vector<ScanPlaced>& placed, const ScanPlaced& p) {
  placed.push_back(p);
  auto it = placed.end() - 1;
  for (; it != placed.begin() && (it - 1)->offset > p.offset; --it) *it = *(it - 1);
  *it = p;
}

// PlaceByScan for one fit rule (a template: the rule is not tested per placed record).
template <bool kTfliteFit>
bool PlaceInOrder(const Problem& problem, std::span<const std::size_t> order, OffsetPlan& plan,
                  Bytes stop_at, std::vector<ScanPlaced>& placed) {
  const Bytes align = problem.alignment;
  const auto keep = [&](std::size_t r, Bytes offset) {
    const UsageRecord& rec = problem.records[r];
    plan.offsets[r] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + rec.size);
    if (rec.size == 0 && kTfliteFit) return;  // SimpleMemoryArena keeps no empty placement
    InsertByOffset(placed, {offset, offset + rec.size, rec.first, rec.last});
  };
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (problem.IsFixed(i)) keep(i, *problem.fixed_offsets[i]);
  if (plan.arena_bytes >= stop_at) return false;
  constexpr Bytes kNone = std::numeric_limits<Bytes>::max();
  for (const std::size_t r : order) {
    const UsageRecord& rec = problem.records[r];
    Bytes best = kNone, best_gap = kNone, cursor = 0;
    if (rec.size == 0 && kTfliteFit) {
      keep(r, 0);
      continue;
    }
    for (const ScanPlaced& p : placed) {
      if (p.last < rec.first || rec.last < p.first) continue;
      if constexpr (kTfliteFit) {
        const Bytes start = AlignUpFast(cursor, align);
        if (start + rec.size <= p.offset && p.offset - start < best_gap) {
          best = start;
          best_gap = p.offset - cursor;
        }
        cursor = std::max(cursor, p.end);
        if (best_gap == 0) break;
      } else {
        if (p.offset >= cursor) {
          const Bytes gap = p.offset - cursor;
          if (gap >= rec.size && gap < best_gap) {
            best_gap = gap;
            best = cursor;
          }
        }
        cursor = std::max(cursor, AlignUpFast(p.end, align));
      }
    }
    keep(r, best != kNone ? best : AlignUpFast(cursor, align));
    if (plan.arena_bytes >= stop_at) return false;
  }
  return true;
}

}  // namespace

bool PlaceByScan(const Problem& problem, std::span<const std::size_t> order, bool tflite_fit,
                 OffsetPlan& plan, SweepScratch& scratch, Bytes stop_at) {
  // Sorted by offset; equal offsets in placement order. The caller's: a re-plan of a small
  // graph would otherwise spend as long allocating as placing.
  std::vector<ScanPlaced>& placed = scratch.placed;
  placed.clear();
  placed.reserve(problem.size());
  plan.offsets.assign(problem.size(), 0);
  plan.arena_bytes = 0;
  plan.detail.clear();
  // Named only when the reused plan holds another name (no string copy per placement).
  const std::string_view name = tflite_fit ? "tflite_cpu" : "greedy_by_size";
  if (plan.strategy != name) plan.strategy.assign(name);
  return tflite_fit ? PlaceInOrder<true>(problem, order, plan, stop_at, placed)
                    : PlaceInOrder<false>(problem, order, plan, stop_at, placed);
}

namespace {

[[noreturn]] void Fail(const OffsetPlan& plan, const std::string& what) {
  throw InternalError(
      fmt::format("strategy '{}' produced an invalid plan:\n  {}", plan.strategy, what));
}

// Every offset aligned, fixed ones kept, none out of range, and the arena the plan claims.
void CheckOffsets(const Problem& problem, const OffsetPlan& plan) {
  Bytes arena = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const Bytes offset = plan.offsets[i];
    if (!IsAligned(offset, problem.alignment))
      Fail(plan, fmt::format("unaligned: {} at {}", problem.Describe(i), offset));
    if (problem.IsFixed(i) && *problem.fixed_offsets[i] != offset)
      Fail(plan, fmt::format("moved: {} must stay at {}", problem.Describe(i),
                             *problem.fixed_offsets[i]));
    if (offset > std::numeric_limits<Bytes>::max() / 2 - problem.records[i].size)
      Fail(plan, fmt::format("out of range: {} at {}", problem.Describe(i), offset));
    arena = std::max(arena, offset + problem.records[i].size);
  }
  if (arena != plan.arena_bytes)
    Fail(plan, fmt::format("the plan claims an arena of {} B but its records need {} B",
                           plan.arena_bytes, arena));
}

// Up to kSmallRecords records: the records in offset order, each checked against those
// that start before it ends (every overlapping pair is such a pair): no memory allocated,
// and fewer pairs than all. The last verification's order is kept when its offsets are
// still in order (a resize that scales every tensor alike): a permutation of the same n
// records, checked here against this plan's offsets only, so the check stays independent
// of the placement.
void CheckFewRecords(const Problem& problem, const OffsetPlan& plan, FewRecordsOrder& few) {
  const std::size_t n = problem.size();
  std::array<std::uint32_t, kSmallRecords>& by_offset = few.by_offset;
  std::size_t& by_offset_size = few.size;
  const auto begins_before = [&](std::uint32_t a, std::uint32_t b) {
    return plan.offsets[a] < plan.offsets[b];
  };
  bool in_order = by_offset_size == n;
  for (std::size_t k = 1; k < n && in_order; ++k)
    in_order = !begins_before(by_offset[k], by_offset[k - 1]);
  if (!in_order) {
    for (std::uint32_t i = 0; i < n; ++i) by_offset[i] = i;
    std::sort(by_offset.begin(), by_offset.begin() + static_cast<long>(n), begins_before);
    by_offset_size = n;
  }
  // The records' byte ranges and steps side by side in that order: the pair loop reads one
  // array (a third of the instructions of looking each record and offset up per pair). An
  // empty record is alive at no step.
  using Span = FewRecordsOrder::Span;
  std::array<Span, kSmallRecords>& spans = few.spans;
  for (std::size_t k = 0; k < n; ++k) {
    const UsageRecord& r = problem.records[by_offset[k]];
    const Bytes begin = plan.offsets[by_offset[k]];
    spans[k] = r.size == 0 ? Span{begin, begin, std::numeric_limits<Step>::max(),
                                  std::numeric_limits<Step>::min()}
                           : Span{begin, begin + r.size, r.first, r.last};
  }
  for (std::size_t k = 0; k < n; ++k) {
    const Span& a = spans[k];
    for (std::size_t m = k + 1; m < n && spans[m].begin < a.end; ++m)
      if (spans[m].first <= a.last && a.first <= spans[m].last)
        Fail(plan, OverlapMessage(problem, plan.offsets, by_offset[k], by_offset[m]));
  }
}

// The records of nonzero size bucketed by step into `b`, whose buffers are reused (a plan of a few
// hundred tensors allocated seven arrays here, more than its whole check cost otherwise).
void BucketBySteps(const Problem& problem, std::size_t count, StepBuckets& b) {
  std::vector<std::uint32_t>& arrive = b.arrive_start;
  std::vector<std::uint32_t>& leave = b.leave_start;
  arrive.assign(count + 1, 0);
  leave.assign(count + 1, 0);
  for (const UsageRecord& r : problem.records) {
    if (r.size == 0) continue;
    ++arrive[static_cast<std::size_t>(r.first) + 1];
    ++leave[static_cast<std::size_t>(r.last + 1) + 1];
  }
  for (std::size_t s = 1; s <= count; ++s) {
    arrive[s] += arrive[s - 1];
    leave[s] += leave[s - 1];
  }
  b.arriving.resize(arrive[count]);
  b.leaving.resize(leave[count]);
  b.next_arrival.assign(arrive.begin(), arrive.end() - 1);
  b.next_leaving.assign(leave.begin(), leave.end() - 1);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.size == 0) continue;
    b.arriving[b.next_arrival[static_cast<std::size_t>(r.first)]++] = static_cast<std::uint32_t>(i);
    b.leaving[b.next_leaving[static_cast<std::size_t>(r.last + 1)]++] =
        static_cast<std::uint32_t>(i);
  }
}

// A sweep over the steps keeping the live records in offset order (they never overlap,
// so also in end order): each arrival is checked against its neighbours only.
void CheckBySweep(const Problem& problem, const OffsetPlan& plan, Step steps, StepBuckets& b) {
  const auto count = static_cast<std::size_t>(steps) + 1;
  BucketBySteps(problem, count, b);
  std::vector<std::uint32_t>& live = b.live;
  live.clear();
  auto begin_of = [&](std::uint32_t r) { return plan.offsets[r]; };
  auto end_of = [&](std::uint32_t r) { return plan.offsets[r] + problem.records[r].size; };
  auto before = [&](std::uint32_t a, std::uint32_t c) {
    return begin_of(a) != begin_of(c) ? begin_of(a) < begin_of(c) : a < c;
  };
  for (std::size_t s = 0; s < count; ++s) {
    for (std::uint32_t e = b.leave_start[s]; e < b.leave_start[s + 1]; ++e) {
      const auto it = std::lower_bound(live.begin(), live.end(), b.leaving[e], before);
      live.erase(it);
    }
    for (std::uint32_t e = b.arrive_start[s]; e < b.arrive_start[s + 1]; ++e) {
      const std::uint32_t r = b.arriving[e];
      const auto it = std::lower_bound(live.begin(), live.end(), r, before);
      const std::uint32_t* other = nullptr;
      if (it != live.end() && begin_of(*it) < end_of(r)) other = &*it;
      if (it != live.begin() && end_of(*std::prev(it)) > begin_of(r)) other = &*std::prev(it);
      if (other) Fail(plan, OverlapMessage(problem, plan.offsets, *other, r));
      live.insert(it, r);
    }
  }
}

}  // namespace

namespace {

// A layout's verification failure: the strategy and what is wrong.
[[noreturn]] void FailPlacements(std::string_view strategy, const std::string& what) {
  throw InternalError(fmt::format("strategy '{}' produced an invalid plan:\n  {}", strategy, what));
}

// The checks below test inline and fail out of line: the messages' formatting stays out of
// the loops' code.
[[noreturn]] void FailRange(std::span<const Placement> placement, std::size_t k, Bytes alignment,
                            std::string_view strategy) {
  const Bytes offset = placement[k].offset;
  FailPlacements(strategy, fmt::format("{}: tensor slot {} at {}",
                                       IsAligned(offset, alignment) ? "out of range" : "unaligned",
                                       k, offset));
}

[[noreturn]] void FailOverlap(std::span<const Placement> placement, std::size_t j, std::size_t k,
                              std::string_view strategy) {
  const Placement& a = placement[k];
  const Placement& b = placement[j];
  FailPlacements(strategy,
                 fmt::format("overlap: tensor slot {} at [{}, {}) and tensor slot {} at [{}, {}) "
                             "are alive at the same node",
                             j, b.offset, b.offset + b.size, k, a.offset, a.offset + a.size));
}

[[noreturn]] void FailArena(Bytes claimed, Bytes high, std::string_view strategy) {
  FailPlacements(strategy, fmt::format("the plan claims an arena of {} B but its records need {} B",
                                       claimed, high));
}

// Aligned, and far enough from the top of Bytes that arena arithmetic cannot wrap.
bool InRange(const Placement& p, Bytes alignment) {
  return IsAligned(p.offset, alignment) &&
         p.offset <= std::numeric_limits<Bytes>::max() / 2 - p.size;
}

}  // namespace

void VerifyPlacedAmong(std::span<const Placement> placement, std::span<const std::uint32_t> placed,
                       Bytes alignment, Bytes arena, std::string_view strategy) {
  Bytes high = 0;
  for (const Placement& p : placement)
    if (p.size > 0) high = std::max(high, p.offset + p.size);
  if (high != arena) FailArena(arena, high, strategy);
  for (const std::uint32_t k : placed) {
    const Placement& a = placement[k];
    if (!InRange(a, alignment)) FailRange(placement, k, alignment, strategy);
    for (std::size_t j = 0; j < placement.size(); ++j) {
      const Placement& b = placement[j];
      if (j != k && b.size > 0 && AliveTogether(a, b) && b.offset < a.offset + a.size &&
          a.offset < b.offset + b.size)
        FailOverlap(placement, j, k, strategy);
    }
  }
}

bool VerifyFewPlacements(std::span<const Placement> placement, Bytes alignment, Bytes arena,
                         std::string_view strategy) {
  std::array<std::uint32_t, kSmallRecords> by_offset;
  std::size_t n = 0;
  for (std::size_t s = 0; s < placement.size(); ++s) {
    if (placement[s].size == 0) continue;
    if (n == kSmallRecords) return false;
    // Shifted in from the end: offset order, as few as a small layout has.
    std::size_t at = n++;
    for (; at > 0 && placement[by_offset[at - 1]].offset > placement[s].offset; --at)
      by_offset[at] = by_offset[at - 1];
    by_offset[at] = static_cast<std::uint32_t>(s);
  }
  Bytes high = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Placement& a = placement[by_offset[i]];
    if (!InRange(a, alignment)) FailRange(placement, by_offset[i], alignment, strategy);
    const Bytes end = a.offset + a.size;
    high = std::max(high, end);
    // Every overlapping pair has one that starts no later than the other and before its end:
    // those that follow it in offset order and start before its end meet it in bytes.
    for (std::size_t m = i + 1; m < n && placement[by_offset[m]].offset < end; ++m)
      if (AliveTogether(a, placement[by_offset[m]]))
        FailOverlap(placement, by_offset[m], by_offset[i], strategy);
  }
  if (high != arena) FailArena(arena, high, strategy);
  return true;
}

void VerifyBySweep(const Problem& problem, const OffsetPlan& plan) {
  SweepScratch scratch;
  VerifyBySweep(problem, plan, scratch);
}

void VerifyBySweep(const Problem& problem, const OffsetPlan& plan, SweepScratch& scratch) {
  const std::size_t n = problem.size();
  Step steps = 0;
  for (const UsageRecord& r : problem.records) steps = std::max(steps, r.last + 2);
  const bool dense = std::all_of(problem.records.begin(), problem.records.end(),
                                 [](const UsageRecord& r) { return r.first >= 0; }) &&
                     steps <= 4 * static_cast<Step>(n) + 1024;
  if (!dense || plan.offsets.size() != n) return VerifyOrThrow(problem, plan);
  CheckOffsets(problem, plan);
  if (n <= kSmallRecords) return CheckFewRecords(problem, plan, scratch.few);
  CheckBySweep(problem, plan, steps, scratch.buckets);
}

}  // namespace memplan::cpuplan
