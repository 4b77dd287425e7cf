// The memplan mode's whole plan of a small range after a reset (docs/cpu-planner.md, "A small
// range after a reset"): up to kSmallRange tensors, each placed by greedy_by_size's rule and
// by TensorFlow Lite's, in their own orders, straight into the new layout's placements. The
// choice between the two is PlaceFromNothing's, step for step (which goes first, when the
// second runs, which is kept), so the offsets are the general path's; what differs is what a
// plan touches: no problem, records, orders or offsets in the planner's buffers, the lists on
// the stack, the bound asked over the placements, the verification on them. A fresh shape
// after an inference finds little of the general path's code and buffers still cached
// (issue 32: LFM2's fresh step after cache hits took 2-3x TensorFlow Lite's there).
#include <algorithm>

#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"
#include "src/cpuplan/small_bound.h"
#include "src/cpuplan/small_placement.h"
#include "src/cpuplan/tflite_order.h"

namespace memplan {

using cpuplan::FitRule;
using cpuplan::Placement;
using cpuplan::SmallBound;
using cpuplan::SmallList;

namespace {

// The two candidates of a small whole plan, placed in turn into the same placements (each
// tensor's size and lifetime set, `slots` the range's): each order made when its plan is, the
// first candidate's offsets kept while the second is placed.
class SmallCandidates {
 public:
  SmallCandidates(std::vector<Placement>& placement, const SmallList& slots,
                  const std::vector<std::int32_t>& tensor_of_slot, Bytes alignment)
      : placement_(placement),
        slots_(slots),
        tensor_of_slot_(tensor_of_slot),
        alignment_(alignment) {}

  // greedy_by_size's plan (larger first, equal sizes in range order); returns its arena.
  Bytes Greedy() {
    if (by_size_.size == 0)
      for (const std::uint32_t slot : slots_)
        by_size_.Insert(slot, [&](std::uint32_t a, std::uint32_t b) {
          return placement_[a].size > placement_[b].size;
        });
    return cpuplan::PlaceInGaps<FitRule::kSmallestGap>(placement_, {}, by_size_, alignment_);
  }
  // TensorFlow Lite's plan (its order, SimpleMemoryArena's fit); returns its arena.
  Bytes Tflite() {
    if (in_tflite_order_.size == 0) {
      // Each slot's rank made once (the insertion compares each a dozen times); the
      // positions in `slots_` are sorted by it, then their slots taken in that order.
      std::array<cpuplan::TfliteRank, cpuplan::kSmallRange> rank;
      SmallList by_rank;
      for (std::uint32_t i = 0; i < slots_.size; ++i) {
        rank[i] = cpuplan::TfliteRankOf(Key(slots_.at[i]));
        by_rank.Insert(i, [&](std::uint32_t a, std::uint32_t b) {
          return cpuplan::TfliteRankBefore(rank[a], rank[b]);
        });
      }
      for (const std::uint32_t i : by_rank) in_tflite_order_.Add(slots_.at[i]);
    }
    return cpuplan::PlaceInGaps<FitRule::kTflite>(placement_, {}, in_tflite_order_, alignment_);
  }
  void Save() {
    for (std::size_t i = 0; i < slots_.size; ++i) saved_[i] = placement_[slots_.at[i]].offset;
  }
  void Restore() {
    for (std::size_t i = 0; i < slots_.size; ++i) placement_[slots_.at[i]].offset = saved_[i];
  }

 private:
  cpuplan::TfliteOrderKey Key(std::uint32_t slot) const {
    const Placement& p = placement_[slot];
    return cpuplan::TfliteOrderKeyOf(p.first, p.last, p.size, tensor_of_slot_[slot]);
  }

  std::vector<Placement>& placement_;
  const SmallList& slots_;
  const std::vector<std::int32_t>& tensor_of_slot_;
  Bytes alignment_;
  SmallList by_size_, in_tflite_order_;
  std::array<Bytes, cpuplan::kSmallRange> saved_;
};

}  // namespace

bool CpuArenaPlanner::Impl::PlanSmallWhole(const cpuplan::RangeToPlan& range,
                                           cpuplan::Replan& out) {
  const cpuplan::Layout* before = range.previous.get();
  const std::size_t n = range.tensors.size();
  if (layout_ || !cheap_is_greedy_ || n == 0 || n > cpuplan::kSmallRange) return false;
  const Bytes align = options_.tensor_alignment;
  // Every tensor of the range without an offset yet.
  out.placement.assign(Slots(), Placement{});
  SmallList slots;
  cpuplan::SmallRoom room;
  for (const std::int32_t t : range.tensors) {
    const Bytes size = graph_.tensors[t].bytes;
    if (!room.Take(size, align)) return false;
    const auto slot = static_cast<std::uint32_t>(Slot(t));
    out.placement[slot] = {cpuplan::kNoOffset, size, alloc_node_[t], dealloc_node_[t]};
    slots.Add(slot);
  }
  SmallCandidates plans(out.placement, slots, tensor_of_slot_, align);
  SmallBound bound(out.placement, slots, align, before ? before->peak_step : -1);
  const auto guess_from_top = [&] {
    const Placement& top = cpuplan::TopAmong(out.placement, slots);
    bound.GuessIfNone(top.first, RecordLast(top.first, top.last));
  };
  // PlaceFromNothing's choice, on the placements (its comments say why each step is there).
  const bool replan = before != nullptr;
  const double slack = replan ? options_.replan_good_enough : options_.good_enough;
  const bool was_at_bound = cheap_at_bound_;
  const std::uint32_t was_skipped = cheap_skipped_;
  Bytes high = 0;
  std::string_view name;
  if (!replan || cheap_at_bound_) {
    high = plans.Greedy();
    name = "greedy_by_size";
    guess_from_top();
    cheap_at_bound_ = bound.Reaches(high);
    if (!cheap_at_bound_) {
      plans.Save();
      out.tflite_candidate = true;
      if (const Bytes theirs = plans.Tflite(); theirs <= high) {
        high = theirs;
        name = "tflite_cpu";
      } else {
        plans.Restore();
      }
    }
  } else {
    high = plans.Tflite();
    name = "tflite_cpu";
    out.tflite_candidate = true;
    guess_from_top();
    if ((++cheap_skipped_ % cpuplan::kRecheck == 0 || !bound.Within(high, slack)) &&
        !bound.Reaches(high)) {
      plans.Save();
      if (const Bytes ours = plans.Greedy(); ours < high) {
        high = ours;
        name = "greedy_by_size";
        cheap_at_bound_ = bound.Reaches(high);
      } else {
        plans.Restore();
      }
    }
  }
  if ((!replan || strategy_helped_) && !bound.Within(high, slack)) {
    // The full strategy's turn: the general path makes the same candidates, and that call.
    cheap_at_bound_ = was_at_bound;
    cheap_skipped_ = was_skipped;
    return false;
  }
  cpuplan::VerifyFewPlacements(out.placement, align, high, name);
  out.from = range.first_node;
  out.placed = n;
  out.fixed = 0;
  out.high_water = high;
  out.bound = bound.exact();
  out.peak = bound.peak();
  return true;
}

}  // namespace memplan
