// The memplan mode's main arena (docs/cpu-planner.md, "The memplan mode"). A node range is
// planned as an offsets problem: the tensors from the first node a change reaches onwards
// are placed around the earlier tensors, whose offsets stay fixed; planned from nothing,
// TensorFlow Lite's own placement is one of the candidates. Every plan is verified once
// (one sweep), checked against TensorFlow Lite's arena for the same calls
// (CheckAgainstTflite), and cached per shape signature; a call with nothing changed returns
// at once.
#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/offsets.h"
#include "memplan/plan.h"
#include "src/cpuplan/align.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"
#include "src/cpuplan/tflite_order.h"

namespace memplan {

using cpuplan::kEndOfRun;
using cpuplan::kRecheck;
using cpuplan::kRepairShare;
using cpuplan::kSmallRange;
using cpuplan::Layout;
using cpuplan::Placement;

namespace {

// A strategy by name, run without PlanOffsets' own validation and verification: the caller
// validates the problem once and verifies only the plan it keeps.
OffsetPlan RunStrategy(const Problem& problem, const std::string& name) {
  const OffsetStrategy* strategy = FindOffsetStrategy(name);
  if (!strategy) return PlanOffsets(problem, name);  // the UsageError naming the strategies
  OffsetPlan plan = strategy->plan(problem);
  plan.strategy = name;
  return plan;
}

// The lower bound of a problem's records, asked only as far as a decision needs: first the
// bytes alive at one node (where the previous layout met its bound: one pass, a lower bound,
// and the bound itself when a plan reaches it), the sweep over every node only when that
// does not settle the question.
class LazyBound {
 public:
  LazyBound(const Problem& problem, Step hint, cpuplan::SweepScratch& scratch)
      : problem_(problem), scratch_(scratch), hint_(hint) {}

  // Whether a plan of `arena` bytes is at the bound: asked at the hint, then (hints guessed)
  // over every step coarsely (two passes), then swept. A plan no larger than a lower bound is
  // at the bound.
  bool Reaches(Bytes arena) {
    if (exact_ == cpuplan::kUnknownBound && arena <= AtHint()) {
      exact_ = AtHint();
      peak_ = hint_;
    } else if (exact_ == cpuplan::kUnknownBound && guessed_ && arena <= Coarse()) {
      exact_ = Coarse();
      peak_ = coarse_peak_;
    }
    return arena <= Exact();
  }
  // Whether `arena` is within `slack` times the bound.
  bool Within(Bytes arena, double slack) {
    const auto within = [&](Bytes bound) {
      return static_cast<double>(arena) <= static_cast<double>(bound) * slack;
    };
    return (exact_ == cpuplan::kUnknownBound && (within(AtHint()) || within(Coarse()))) ||
           within(Exact());
  }
  // Without a node from an earlier layout, the first and the last node of the record a plan
  // tops out with: it is alive there with what it was placed above, so a plan at the bound is
  // usually at its bound at one of them (two passes instead of the sweep).
  void HintIfNone(const OffsetPlan& plan) {
    if (hint_ >= 0 || problem_.records.empty()) return;
    std::size_t top = 0;
    for (std::size_t i = 1; i < problem_.records.size(); ++i)
      if (plan.offsets[i] + problem_.records[i].size >
          plan.offsets[top] + problem_.records[top].size)
        top = i;
    hint_ = problem_.records[top].first;
    other_hint_ = problem_.records[top].last;
    guessed_ = true;
  }
  Bytes exact() const { return exact_; }  // kUnknownBound when never needed
  Step peak() const { return peak_; }

 private:
  // The live bytes at the hint (and at the other hint, when set; the hint becomes whichever
  // has more): each is a lower bound.
  Bytes AtHint() {
    if (at_hint_ != cpuplan::kUnknownBound) return at_hint_;
    at_hint_ = hint_ >= 0 ? cpuplan::LiveBytesAt(problem_.records, problem_.alignment, hint_) : 0;
    if (other_hint_ >= 0 && other_hint_ != hint_) {
      const Bytes other = cpuplan::LiveBytesAt(problem_.records, problem_.alignment, other_hint_);
      if (other > at_hint_) {
        at_hint_ = other;
        hint_ = other_hint_;
      }
    }
    return at_hint_;
  }
  Bytes Coarse() {
    if (coarse_ == cpuplan::kUnknownBound)
      coarse_ =
          cpuplan::CoarseLowerBound(problem_.records, problem_.alignment, &coarse_peak_, scratch_);
    return coarse_;
  }
  Bytes Exact() {
    if (exact_ == cpuplan::kUnknownBound)
      exact_ = cpuplan::SweepLowerBound(problem_.records, problem_.alignment, &peak_, scratch_);
    return exact_;
  }

  const Problem& problem_;
  cpuplan::SweepScratch& scratch_;
  Step hint_;
  Step other_hint_ = -1;
  // The hints are guesses (no earlier layout's peak): the coarse bound is asked before the
  // sweep. With an earlier peak the hint usually settles it, and a miss goes to the sweep.
  bool guessed_ = false;
  Bytes at_hint_ = cpuplan::kUnknownBound;
  Bytes coarse_ = cpuplan::kUnknownBound;
  Step coarse_peak_ = -1;
  Bytes exact_ = cpuplan::kUnknownBound;
  Step peak_ = -1;
};

// The leading bytes of the main arena that must survive its growth from layout `before` (the
// one in use before the call) to `after`: up to the end of the highest placement that held
// data and keeps its tensor, offset and size. No layout before (a ResetAllocations since):
// no tensor has data, nothing is kept.
Bytes KeptPrefix(const Layout* before, const Layout& after) {
  if (!before) return 0;
  if (before == &after) return after.high_water;
  const std::vector<Placement>& old = before->placement;
  const std::size_t n = std::min(old.size(), after.placement.size());
  Bytes end = 0;
  for (std::size_t t = 0; t < n; ++t) {
    const Placement& p = old[t];
    const Placement& q = after.placement[t];
    if (p.size > 0 && p.offset == q.offset && p.size == q.size)
      end = std::max(end, p.offset + p.size);
  }
  return end;
}

Bytes HighWater(const std::vector<Placement>& placement) {
  Bytes high = 0;
  for (const Placement& p : placement) high = std::max(high, p.offset + p.size);
  return high;
}

}  // namespace

bool CpuArenaPlanner::Impl::TflitePlacement(const Problem& problem,
                                            const std::vector<std::int32_t>& free, OffsetPlan& plan,
                                            Bytes stop_at) {
  // TensorFlow Lite places in its own order (the last one's, when it still is).
  std::vector<std::size_t>& order = scratch_.tflite_order;
  const auto before = [&](std::size_t a, std::size_t b) {
    return cpuplan::TfliteOrderBefore(free[a], free[b], graph_, alloc_node_, dealloc_node_);
  };
  if (!cpuplan::KeepIfStillSorted(order, free.size(), before)) {
    order.resize(free.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    if (order.size() > kSmallRange) {
      std::sort(order.begin(), order.end(), before);
    } else {
      // By insertion: for a few dozen tensors as fast, and a fraction of std::sort's code to
      // fetch (cold where the steps before planned no range whole).
      for (std::size_t i = 1; i < order.size(); ++i) {
        const std::size_t k = order[i];
        std::size_t j = i;
        for (; j > 0 && before(k, order[j - 1]); --j) order[j] = order[j - 1];
        order[j] = k;
      }
    }
  }
  if (problem.size() <= cpuplan::kScanRecords)
    return cpuplan::PlaceByScan(problem, order, true, plan, sweep_, stop_at);
  // The indexed strategy places in record order: the records in that order, the offsets back.
  Problem sorted;
  sorted.alignment = problem.alignment;
  sorted.records.reserve(order.size());
  for (const std::size_t k : order) sorted.records.push_back(problem.records[k]);
  const OffsetPlan placed = PlanTfliteCpuInCallOrder(sorted);
  plan.strategy = "tflite_cpu";
  plan.detail.clear();
  plan.arena_bytes = placed.arena_bytes;
  // Sized as a copy of the placed offsets (one per record), then put back in record order: gcc
  // 12 at -O3 reports a false -Wstringop-overflow on resize() here.
  plan.offsets = placed.offsets;
  for (std::size_t i = 0; i < order.size(); ++i) plan.offsets[order[i]] = placed.offsets[i];
  return true;
}

// The call a returning shape makes after a reset, a cache hit, on a path of its own in as
// few lines of code as it takes: after an inference each line it touches is a fetch from
// memory (issue 32: a hit's time there is the lines it touches). Every other call - nothing
// changed, a hit with a layout in use, persistent tensors, a miss - goes out of line. With no
// layout in use the key has no base, no call is unchanged and no tensor holds data.
void CpuArenaPlanner::Impl::ExecuteMemplan(std::int32_t first, std::int32_t last) {
  if (!layout_ && persistent_tensors_ == 0) [[likely]] {
    const cpuplan::LayoutKey key{first, last, 0, shadow_.path()};
    std::uint64_t key_hash = 0;
    if (const cpuplan::CachedLayout* cached = cache_.Find(key, signature_, key_hash)) [[likely]] {
      // The same range was planned since PlanAllocations: its temporaries have lifetimes.
      // As ExecuteMemplanOther's hit, without a layout before to keep: a helper returning
      // it cost this path two lines of a shared count's release code.
      layout_ = cached->layout;
      logged_shapes_ = cached->shapes;
      shadow_.Executed(first, last, logged_shapes_, false);
      stats_.cache_hit = true;
      Commit(first, last, false, nullptr);
      return;
    }
    ExecuteMemplanOther(first, last, &key_hash);
    return;
  }
  ExecuteMemplanOther(first, last, nullptr);
}

void CpuArenaPlanner::Impl::ExecuteMemplanOther(std::int32_t first, std::int32_t last,
                                                const std::uint64_t* missed_hash) {
  const bool unchanged =
      layout_ && version_ == done_version_ && first == done_first_ && last == done_last_;
  // The layout in use before a new one replaces it (moved, not copied: no cost when unchanged):
  // its tensors hold data, which a growth of the buffer keeps where their offsets stay.
  cpuplan::LocalShared<const Layout> before;
  if (unchanged) {
    stats_.unchanged = true;
    shadow_.Executed(first, last, logged_shapes_, true);
  } else {
    const cpuplan::LayoutKey key{first, last, first == 0 || !layout_ ? 0 : layout_->id,
                                 shadow_.path()};
    std::uint64_t key_hash = missed_hash ? *missed_hash : 0;
    const cpuplan::CachedLayout* cached =
        missed_hash ? nullptr : cache_.Find(key, signature_, key_hash);
    if (cached) {
      before = std::exchange(layout_, cached->layout);
      logged_shapes_ = cached->shapes;
      shadow_.Executed(first, last, logged_shapes_, false);
      stats_.cache_hit = true;
    } else {
      before = std::exchange(layout_, PlanAndCache(key, key_hash));
    }
    if (persistent_tensors_ > 0) PlacePersistentOf(first, last);
  }
  Commit(first, last, unchanged, unchanged ? layout_.get() : before.get());
}

inline void CpuArenaPlanner::Impl::Commit(std::int32_t first, std::int32_t last, bool unchanged,
                                          const Layout* before) {
  if (!unchanged) {
    main_.SetHighWater(layout_->high_water);
    done_version_ = version_;
    done_first_ = first;
    done_last_ = last;
    last_active_node_ = last;
  }
  // A growth keeps only what must survive, the persistent arena all of it (variables).
  if (main_.WillGrow()) [[unlikely]]
    GrowMain(before);
  else
    main_.Commit(0);
  if (persistent_used_) persistent_.Commit(cpuplan::kKeepAll);
  stats_.buffer_bytes_copied = main_.bytes_copied();
  has_non_persistent_memory_ = true;
  stats_.planned_bytes = layout_->high_water;
  stats_.tflite_check = layout_->check;
}

void CpuArenaPlanner::Impl::GrowMain(const Layout* before) {
  main_.Commit(KeptPrefix(before, *layout_));
}

cpuplan::LocalShared<const Layout> CpuArenaPlanner::Impl::PlanAndCache(
    const cpuplan::LayoutKey& key, std::uint64_t key_hash) {
  const bool fresh = shadow_.CallsSinceReset() == 0;
  // A copy of the shapes for the log and the cache, in the new layout (one allocation for
  // both), unless the last one logged is the same (the first call after PlanAllocations, a
  // range after ResetAllocationsAfter).
  auto layout = cpuplan::MakeLocalShared<Layout>();
  if (!logged_shapes_ || !(*logged_shapes_ == signature_)) {
    layout->shapes = signature_;
    logged_shapes_ = cpuplan::LocalShared<const cpuplan::ShapeSignature>(layout, &layout->shapes);
  }
  shadow_.Executed(key.first, key.last, logged_shapes_, false);
  // Once per node since PlanAllocations (TensorFlow Lite assigns them at every call: the
  // same lifetimes, read from every node's list, cold after a cache hit).
  if (key.first < temporaries_first_ || key.last > temporaries_last_) [[unlikely]] {
    AssignTemporaries(key.first, key.last);
    const bool joins = key.first <= temporaries_last_ + 1 && temporaries_first_ <= key.last + 1;
    temporaries_first_ = joins ? std::min(key.first, temporaries_first_) : key.first;
    temporaries_last_ = joins ? std::max(key.last, temporaries_last_) : key.last;
  }
  cpuplan::LocalShared<const Layout> planned =
      PlanLayout(key.first, key.last, fresh, std::move(layout), key_hash);
  cache_.Insert(key_hash, key, logged_shapes_, planned);
  return planned;
}

void CpuArenaPlanner::Impl::PlacePersistentOf(std::int32_t first, std::int32_t last) {
  std::vector<std::int32_t> persistent;
  for (const std::int32_t t : RangeTensors(first, last))
    if (graph_.tensors[t].type == CpuAllocationType::kArenaRwPersistent) persistent.push_back(t);
  cpuplan::SortInTfliteOrder(persistent, graph_, alloc_node_, dealloc_node_);
  PlacePersistent(persistent);
}

std::vector<UsageRecord> CpuArenaPlanner::Impl::RecordsOf(
    const std::vector<Placement>& placement) const {
  std::vector<UsageRecord> records;
  records.reserve(placement.size());
  for (const Placement& p : placement)
    if (p.size > 0) records.push_back({p.size, p.first, RecordLast(p.first, p.last)});
  return records;
}

Bytes CpuArenaPlanner::Impl::BoundOf(const std::vector<Placement>& placement, Step* peak) const {
  std::vector<UsageRecord>& records = bound_records_;  // its buffer kept from call to call
  records.clear();
  for (const Placement& p : placement)
    if (p.size > 0) records.push_back({p.size, p.first, RecordLast(p.first, p.last)});
  return cpuplan::SweepLowerBound(records, options_.tensor_alignment, peak, sweep_);
}

const std::vector<std::int32_t>& CpuArenaPlanner::Impl::RangeTensors(std::int32_t first,
                                                                     std::int32_t last) {
  if (first != gathered_first_ || last != gathered_last_ || gathered_ != registrations_) {
    Registered(first, last, scratch_.registered);
    gathered_first_ = first;
    gathered_last_ = last;
    gathered_ = registrations_;
  }
  return scratch_.registered;
}

cpuplan::RangeToPlan& CpuArenaPlanner::Impl::GatherRange(std::int32_t first, std::int32_t last) {
  cpuplan::RangeToPlan& range = scratch_.range;  // its buffers kept from call to call
  range.tensors.clear();
  range.reach = range.first_node = cpuplan::kNoNode;
  range.last = last;
  range.previous = layout_ ? layout_ : hint_;
  range.start_taken = false;
  range.holding.clear();
  const std::vector<std::int32_t>& registered = RangeTensors(first, last);
  for (const std::int32_t t : registered) {
    // TensorFlow Lite drops, for good, a share that does not hold when it places the tensor:
    // the replay needs to know (tflite_shadow.h).
    const CpuTensor& tensor = graph_.tensors[t];
    if (share_root_[t] >= 0 && !SharesNowConst(t) &&
        ((tensor.type == CpuAllocationType::kArenaRw && tensor.bytes > 0) ||
         tensor.type == CpuAllocationType::kArenaRwPersistent)) [[unlikely]]
      shadow_.Dropped(static_cast<std::size_t>(t));
    if (!OwnsMemory(t)) continue;
    range.tensors.push_back(t);
    range.first_node = std::min(range.first_node, alloc_node_[t]);
    if (StillHolds(range, t))
      range.holding.push_back(t);
    else
      range.reach = std::min(range.reach, alloc_node_[t]);
  }
  return range;
}

bool CpuArenaPlanner::Impl::StillHolds(const cpuplan::RangeToPlan& range, std::int32_t t) const {
  if (!range.previous) return false;
  const Placement* p = PlacementIn(*range.previous, t);
  return p && p->size > 0 && Holds(*p, t);
}

void CpuArenaPlanner::Impl::TakeStart(cpuplan::RangeToPlan& range) {
  if (range.start_taken) return;
  range.start_taken = true;
  range.start.assign(Slots(), Placement{});
  if (!range.previous) return;
  const std::vector<Placement>& before = range.previous->placement;
  // The first call after a reset takes from the old layout only the offsets of the range's
  // tensors: the others have no memory until their own range is executed. Otherwise every
  // placement that still holds stays.
  if (!layout_) {
    for (const std::int32_t t : range.holding) range.start[Slot(t)] = before[Slot(t)];
    return;
  }
  if (before.size() > Slots()) return;
  for (std::size_t s = 0; s < before.size(); ++s)
    if (OwnsMemory(tensor_of_slot_[s]) && StillHolds(range, tensor_of_slot_[s]))
      range.start[s] = before[s];
}

cpuplan::Replan CpuArenaPlanner::Impl::StartReplan(std::vector<Placement> start,
                                                   std::int32_t range_last,
                                                   std::int32_t from) const {
  cpuplan::Replan out;
  out.from = from;
  out.placement = std::move(start);
  // Tensors beyond the range lose their places (their own range will place them again).
  if (static_cast<std::size_t>(range_last) + 1 < graph_.nodes.size())
    for (std::size_t s = 0; s < out.placement.size(); ++s) {
      const std::int32_t t = tensor_of_slot_[s];
      if (alloc_node_[t] != kEndOfRun && alloc_node_[t] > range_last)
        out.placement[s] = Placement{};
    }
  return out;
}

const Problem& CpuArenaPlanner::Impl::ProblemAround(const std::vector<Placement>& placement,
                                                    Step lo, Step hi,
                                                    const std::vector<std::int32_t>& free,
                                                    cpuplan::Replan& out) {
  Problem& problem = scratch_.problem;  // its buffers kept from call to call
  problem.alignment = options_.tensor_alignment;
  problem.records.clear();
  problem.fixed_offsets.clear();
  out.others = 0;
  out.others_high = 0;
  for (const Placement& p : placement) {
    if (p.size == 0) continue;
    const Step p_last = RecordLast(p.first, p.last);
    if (p_last < lo || p.first > hi) {  // never alive with a free tensor
      ++out.others;
      out.others_high = std::max(out.others_high, p.offset + p.size);
      continue;
    }
    problem.records.push_back({p.size, p.first, p_last});
    problem.fixed_offsets.push_back(p.offset);
  }
  const std::size_t fixed = out.fixed = problem.records.size();
  problem.records.resize(fixed + free.size());  // within the reserved room: no allocation
  UsageRecord* record = problem.records.data() + fixed;
  for (const std::int32_t t : free)
    *record++ = {graph_.tensors[t].bytes, alloc_node_[t],
                 RecordLast(alloc_node_[t], dealloc_node_[t])};
  // Without fixed records the problem has no fixed offsets at all.
  if (fixed > 0) problem.fixed_offsets.resize(problem.records.size(), std::nullopt);
  Validate(problem);
  return problem;
}

bool CpuArenaPlanner::Impl::CheapPlacement(const Problem& problem, const std::string& strategy,
                                           OffsetPlan& plan, Bytes stop_at) {
  if (strategy != "greedy_by_size" || problem.size() > cpuplan::kScanRecords) {
    plan = RunStrategy(problem, strategy);
    return true;
  }
  cpuplan::GreedyBySizeOrder(problem, scratch_.order);
  return cpuplan::PlaceByScan(problem, scratch_.order, false, plan, sweep_, stop_at);
}

// The cheap strategy goes first where it met the bound in the last plan from nothing;
// TensorFlow Lite's placement runs whenever the cheap plan misses the bound (it is what
// proves the arena no larger than TensorFlow Lite's), after the cheap strategy only as far
// as that proof needs; first otherwise, the cheap strategy then following only as far as
// it could win, and only where TensorFlow Lite's misses the slack or every kRecheck-th plan.
// The full strategy runs only when neither came within good_enough of the bound. The
// candidates are made in the scratch plans (no allocation once they have grown).
const OffsetPlan& CpuArenaPlanner::Impl::PlaceFromNothing(const Problem& problem,
                                                          const std::vector<std::int32_t>& free,
                                                          const cpuplan::Layout* previous,
                                                          cpuplan::Replan& out) {
  const bool replan = previous != nullptr;
  // The records are the whole layout's when it holds nothing else (PlanFrom): the bound's
  // peak then lets a later plan ask one node too.
  LazyBound bound(problem, previous ? previous->peak_step : -1, sweep_);
  OffsetPlan* chosen = &scratch_.plans[0];
  OffsetPlan* other = &scratch_.plans[1];
  const double slack = replan ? options_.replan_good_enough : options_.good_enough;
  if (!replan || cheap_at_bound_) {
    // The cheap strategy first where it met the bound last time: it most likely does again,
    // and then it is the whole plan.
    CheapPlacement(problem, options_.replan_strategy, *chosen);
    bound.HintIfNone(*chosen);
    cheap_at_bound_ = bound.Reaches(chosen->arena_bytes);
    if (!cheap_at_bound_) {
      // TensorFlow Lite's placement only until its arena passes ours: its arena only grows
      // as it places, so from there on it is larger (and ours stays). An equal one is
      // placed whole and taken (TensorFlow Lite's own plan: nothing left to prove).
      const bool whole = TflitePlacement(problem, free, *other, chosen->arena_bytes + 1);
      out.tflite_candidate = true;
      if (whole && other->arena_bytes <= chosen->arena_bytes) std::swap(chosen, other);
    }
  } else {
    // Otherwise TensorFlow Lite's placement first: it has to run anyway unless the cheap plan
    // meets the bound. The cheap strategy follows only where TensorFlow Lite's is not within
    // the slack of the bound, or on every kRecheck-th plan (shapes drift; it may meet the
    // bound again), and only until it reaches TensorFlow Lite's arena.
    TflitePlacement(problem, free, *chosen);
    out.tflite_candidate = true;
    bound.HintIfNone(*chosen);
    if ((++cheap_skipped_ % kRecheck == 0 || !bound.Within(chosen->arena_bytes, slack)) &&
        !bound.Reaches(chosen->arena_bytes) &&
        CheapPlacement(problem, options_.replan_strategy, *other, chosen->arena_bytes) &&
        other->arena_bytes < chosen->arena_bytes) {
      std::swap(chosen, other);
      cheap_at_bound_ = bound.Reaches(chosen->arena_bytes);
    }
  }
  // A re-plan skips the full strategy once it failed to bring a plan within the slack: it
  // costs a hundred cheap plans, worth it only where it reaches what the cheap ones missed.
  if ((!replan || strategy_helped_) && !bound.Within(chosen->arena_bytes, slack)) {
    OffsetPlan full = PlanOffsets(problem, options_.strategy);  // verified inside
    const bool smaller = full.arena_bytes < chosen->arena_bytes;
    strategy_helped_ = smaller && bound.Within(full.arena_bytes, options_.replan_good_enough);
    if (smaller) {
      *other = std::move(full);
      std::swap(chosen, other);
    }
  }
  out.bound = bound.exact();
  out.peak = bound.peak();
  return *chosen;
}

void CpuArenaPlanner::Impl::Settle(cpuplan::Replan& out, const Problem& problem,
                                   const std::vector<std::int32_t>& free,
                                   const OffsetPlan& plan) const {
  cpuplan::VerifyBySweep(problem, plan, sweep_);
  Apply(out, free, plan);
}

void CpuArenaPlanner::Impl::Apply(cpuplan::Replan& out, const std::vector<std::int32_t>& free,
                                  const OffsetPlan& plan) const {
  for (std::size_t k = 0; k < free.size(); ++k) {
    const std::int32_t t = free[k];
    out.placement[Slot(t)] = {plan.offsets[out.fixed + k], graph_.tensors[t].bytes, alloc_node_[t],
                              dealloc_node_[t]};
  }
  out.placed = free.size();
  // Every placement is the problem's (fixed or free: the verified arena covers them) or one
  // ProblemAround left out (others_high): no pass over the whole layout.
  out.high_water = std::max(plan.arena_bytes, out.others_high);
}

void CpuArenaPlanner::Impl::VerifyLayout(const std::vector<Placement>& placement, Bytes high,
                                         std::string_view strategy) {
  if (cpuplan::VerifyFewPlacements(placement, options_.tensor_alignment, high, strategy)) return;
  Problem& problem = scratch_.problem;
  OffsetPlan& plan = scratch_.plans[0];
  problem.alignment = options_.tensor_alignment;
  problem.records.clear();
  problem.fixed_offsets.clear();
  plan.offsets.clear();
  for (const Placement& p : placement) {
    if (p.size == 0) continue;
    problem.records.push_back({p.size, p.first, RecordLast(p.first, p.last)});
    plan.offsets.push_back(p.offset);
  }
  plan.arena_bytes = high;
  plan.strategy.assign(strategy);
  cpuplan::VerifyBySweep(problem, plan, sweep_);
}

cpuplan::Replan CpuArenaPlanner::Impl::PlanFrom(cpuplan::RangeToPlan& range, std::int32_t from,
                                                bool last_use) {
  // The range's last plan takes its placements rather than a copy (the layout keeps them).
  cpuplan::Replan out =
      StartReplan(last_use ? std::move(range.start) : range.start, range.last, from);
  std::vector<std::int32_t>& free = scratch_.free;
  free.clear();
  for (const std::int32_t t : range.tensors)
    if (alloc_node_[t] >= from) {
      free.push_back(t);
      out.placement[Slot(t)] = Placement{};
    }
  if (free.empty()) {  // never: `from` is the first node of a tensor to place
    out.high_water = HighWater(out.placement);
    return out;
  }
  const Problem& problem =
      ProblemAround(out.placement, from, std::numeric_limits<Step>::max(), free, out);
  const OffsetPlan* chosen = &scratch_.plans[0];
  if (out.fixed > 0) {
    // Around kept offsets: the cheap re-plan strategy alone. The records here are every one
    // alive from `from` on, so their bound is at most the whole layout's: an arena at this
    // bound is at the whole layout's bound.
    CheapPlacement(problem, options_.replan_strategy, scratch_.plans[0]);
    out.problem_bound =
        cpuplan::SweepLowerBound(problem.records, problem.alignment, nullptr, sweep_);
  } else {
    chosen = &PlaceFromNothing(problem, free, range.previous.get(), out);
  }
  Settle(out, problem, free, *chosen);
  // TensorFlow Lite's own plan, and the problem's bound, only when the layout holds nothing
  // else.
  const bool only_free = out.fixed == 0 && out.others == 0;
  out.tflite_candidate = out.tflite_candidate && only_free;
  if (!only_free) {
    out.bound = cpuplan::kUnknownBound;
    out.peak = -1;
  }
  return out;
}

// A change that reaches few tensors (one grew, say) is first repaired in place: only the
// tensors whose placement no longer holds are placed again, around every other placement, in
// time proportional to them and the placements alive with them. The repair is kept only when
// the arena is then at the layout's lower bound (no plan, TensorFlow Lite's included, can be
// smaller).
std::optional<cpuplan::Replan> CpuArenaPlanner::Impl::Repair(cpuplan::RangeToPlan& range,
                                                             cpuplan::Replan& missed) {
  const auto count = static_cast<std::size_t>(
      std::count_if(range.tensors.begin(), range.tensors.end(),
                    [&](std::int32_t t) { return range.start[Slot(t)].size == 0; }));
  if (count == 0 || count * kRepairShare > range.tensors.size()) return std::nullopt;
  std::vector<std::int32_t>& changed = scratch_.free;
  changed.clear();
  for (const std::int32_t t : range.tensors)
    if (range.start[Slot(t)].size == 0) changed.push_back(t);
  // The range's placements themselves, not a copy: a repair that misses gives them back with
  // only its own tensors cleared again (every plan that follows clears the tensors beyond the
  // range as StartReplan does here).
  cpuplan::Replan out = StartReplan(std::move(range.start), range.last, range.reach);
  Step lo = std::numeric_limits<Step>::max(), hi = 0;
  for (const std::int32_t t : changed) {
    lo = std::min<Step>(lo, alloc_node_[t]);
    hi = std::max(hi, RecordLast(alloc_node_[t], dealloc_node_[t]));
  }
  const Problem& problem = ProblemAround(out.placement, lo, hi, changed, out);
  const OffsetPlan& plan = scratch_.plans[0];
  CheapPlacement(problem, "greedy_by_size", scratch_.plans[0]);
  // Verified only when kept: a repair that misses the bound is dropped unseen.
  Apply(out, changed, plan);
  // A small range is planned whole when the repair misses (ChooseReplan): no sweep for it.
  if (!RepairAtBound(out, range.previous.get(), changed, range.tensors.size() > kSmallRange)) {
    missed.bound = out.bound;  // swept over every placement of the repaired layout, or unknown
    missed.peak = out.peak;
    for (const std::int32_t t : changed) out.placement[Slot(t)] = Placement{};
    range.start = std::move(out.placement);
    return std::nullopt;
  }
  cpuplan::VerifyBySweep(problem, plan, sweep_);
  return out;
}

// The bound is first asked at the node where the layout the repair started from met its
// bound: when that alone reaches the arena, the arena is the bound, without sweeping every
// node.
Bytes CpuArenaPlanner::Impl::AliveAt(const std::vector<Placement>& placement, Step step) const {
  cpuplan::LiveBytes alive(options_.tensor_alignment);
  for (const Placement& p : placement)
    if (p.size > 0 && p.first <= step && step <= RecordLast(p.first, p.last)) alive.Add(p.size);
  return alive.value();
}

bool CpuArenaPlanner::Impl::RepairAtBound(cpuplan::Replan& out, const cpuplan::Layout* previous,
                                          const std::vector<std::int32_t>& changed,
                                          bool may_sweep) const {
  // The bytes alive at one node are a lower bound: first the node where the layout before met
  // its bound, then the first and last node of each changed tensor (a grown tensor moves the
  // peak to its own nodes), a pass each.
  const auto at_bound_at = [&](Step node) {
    const Bytes alive = AliveAt(out.placement, node);
    if (out.high_water > alive) return false;
    out.bound = alive;
    out.peak = node;
    return true;
  };
  if (previous && previous->peak_step >= 0 && at_bound_at(previous->peak_step)) return true;
  for (const std::int32_t t : changed)
    if (at_bound_at(alloc_node_[t]) || at_bound_at(RecordLast(alloc_node_[t], dealloc_node_[t])))
      return true;
  // The sweep only where its bound serves the re-plan that follows (ChooseReplan).
  if (!may_sweep) return false;
  out.bound = BoundOf(out.placement, &out.peak);
  return out.high_water <= out.bound;
}

// A repair when it reaches the bound, else a re-plan from the reach; one around kept offsets
// that stays above the bound is compared with a plan of the whole range from its first node,
// so a re-plan that keeps offsets is never above a whole one. A small range goes to the
// whole plan directly (kSmallRange).
cpuplan::Replan CpuArenaPlanner::Impl::ChooseReplan(cpuplan::RangeToPlan& range) {
  cpuplan::Replan missed;  // bound and peak only
  if (!layout_) [[likely]] {
    // The candidates after a reset share one buffer for their placements.
    cpuplan::Replan candidate;
    // The first call after a reset, every tensor from its first node on without a place: a
    // resize, tried as a scaling of the layout before.
    if (range.reach <= range.first_node && ScaleLayout(range, candidate)) return candidate;
    // A small range is repaired (small_range.cc) or planned whole (small_whole.cc) in a few
    // passes over its placements; where the full strategy's turn comes, planned whole as
    // usual. Nothing of the layout before stays then (every placement it could keep is the
    // range's own), so no placements are taken from it.
    if (range.tensors.size() <= kSmallRange) {
      cpuplan::ClearKeepingRoom(candidate);
      if (RepairSmall(range, candidate)) return candidate;
      cpuplan::ClearKeepingRoom(candidate);
      if (PlanSmallWhole(range, candidate)) [[likely]]
        return candidate;
      range.start.assign(Slots(), Placement{});
      range.start_taken = true;
      return PlanFrom(range, range.first_node, true);
    }
  }
  TakeStart(range);
  if (std::optional<cpuplan::Replan> repaired = Repair(range, missed)) return std::move(*repaired);
  if (range.tensors.size() <= kSmallRange) return PlanFrom(range, range.first_node, true);
  cpuplan::Replan chosen = PlanFrom(range, range.reach);
  if (chosen.fixed == 0 || range.reach <= range.first_node) return chosen;
  // A missed repair swept the bound of the same records (every tensor the range keeps or
  // places, at its current size and lifetime): no second sweep.
  if (chosen.high_water <= chosen.problem_bound)
    chosen.bound = chosen.high_water;
  else if (missed.bound != cpuplan::kUnknownBound) {
    chosen.bound = missed.bound;
    chosen.peak = missed.peak;
  } else
    chosen.bound = BoundOf(chosen.placement, &chosen.peak);
  if (chosen.high_water > chosen.bound) {
    cpuplan::Replan again = PlanFrom(range, range.first_node, true);
    if (again.high_water < chosen.high_water) chosen = std::move(again);
  }
  return chosen;
}

cpuplan::LocalShared<const Layout> CpuArenaPlanner::Impl::PlanLayout(
    std::int32_t first, std::int32_t last, bool fresh, cpuplan::LocalShared<Layout> layout,
    std::uint64_t key_hash) {
  cpuplan::RangeToPlan& range = GatherRange(first, last);
  bool tflite_was_candidate = false;
  Bytes layout_bound = cpuplan::kUnknownBound;
  if (range.reach != cpuplan::kNoNode) [[likely]] {
    cpuplan::Replan chosen = ChooseReplan(range);
    layout_bound = chosen.bound;
    layout->peak_step = chosen.peak;
    layout->placement = std::move(chosen.placement);
    layout->high_water = chosen.high_water;
    stats_.placed = chosen.placed;
    stats_.kept = chosen.fixed;
    stats_.first_replanned_node = chosen.from;
    stats_.scaled = chosen.scaled;
    tflite_was_candidate = fresh && chosen.tflite_candidate && chosen.fixed == 0;
  } else {
    TakeStart(range);
    layout->placement = range.start;
    layout->high_water = HighWater(layout->placement);
  }
  CheckAgainstTflite(*layout, tflite_was_candidate, layout_bound);
  const std::uint64_t previous_id = range.previous ? range.previous->id : 0;
  scratch_.range.previous.reset();
  layout->id =
      cpuplan::Mix(key_hash ^ cpuplan::Mix(previous_id) ^ cpuplan::Mix(shadow_.path() + 3));
  return layout;
}

// Why each case holds (docs/cpu-planner.md, "Never above TensorFlow Lite"): TensorFlow Lite
// places at least the tensors this layout places, none smaller and none for fewer nodes (it
// keeps a shrunk tensor's larger place, never lowers its high-water mark before a reset, and
// drops a share for good where this layout may share again), so a valid plan of its is never
// below the lower bound of this layout's records.
void CpuArenaPlanner::Impl::CheckAgainstTflite(Layout& layout, bool tflite_was_candidate,
                                               Bytes bound) {
  // The first call since a reset, planned from nothing over exactly TensorFlow Lite's
  // tensors (no share of theirs dropped), with its placement as a candidate: no bound needed.
  const bool tflite_candidate = tflite_was_candidate && !shadow_.AnyDropped();
  if (bound == cpuplan::kUnknownBound && tflite_candidate) {
    layout.check = CpuTfliteCheck::kTfliteCandidate;
    return;
  }
  if (bound == cpuplan::kUnknownBound) bound = BoundOf(layout.placement, &layout.peak_step);
  if (layout.high_water <= bound) {
    layout.check = CpuTfliteCheck::kAtBound;
    return;
  }
  if (tflite_candidate) {
    layout.check = CpuTfliteCheck::kTfliteCandidate;
    return;
  }
  const Impl* tflite = shadow_.CatchUp(graph_, options_, signed_tensors_);
  if (!tflite) {
    layout.check = CpuTfliteCheck::kNone;
    return;
  }
  if (layout.high_water <= tflite->main_.high_water()) {
    layout.check = CpuTfliteCheck::kReplayed;
    return;
  }
  // Ours is larger: take TensorFlow Lite's offsets for our tensors (it placed each of them,
  // at least as large), when they form a valid plan.
  std::vector<Placement> theirs(layout.placement.size());
  bool complete = true;
  for (std::size_t s = 0; s < layout.placement.size() && complete; ++s) {
    const Placement& mine = layout.placement[s];
    if (mine.size == 0) continue;
    const auto t = static_cast<std::size_t>(tensor_of_slot_[s]);
    const Placement& q = tflite->placement_[t];
    complete = graph_.tensors[t].type == CpuAllocationType::kArenaRw && q.size >= mine.size;
    theirs[s] = {q.offset, mine.size, mine.first, mine.last};
  }
  if (complete) {
    Problem problem;
    problem.alignment = options_.tensor_alignment;
    problem.records = RecordsOf(theirs);
    std::vector<Bytes> offsets;
    for (const Placement& p : theirs)
      if (p.size > 0) offsets.push_back(p.offset);
    const OffsetPlan plan = MakeOffsetPlan(problem, "tflite_cpu", std::move(offsets));
    if (FindViolations(problem, plan, 1).empty()) {
      layout.placement = std::move(theirs);
      layout.high_water = plan.arena_bytes;
      layout.check = CpuTfliteCheck::kTookTflite;
      return;
    }
  }
  layout.check = CpuTfliteCheck::kTfliteOverlaps;
}

void CpuArenaPlanner::Impl::ResetAfterMemplan(std::int32_t node) {
  if (!layout_) return;
  auto layout = cpuplan::MakeLocalShared<Layout>();  // the placements, not the shapes
  layout->placement = layout_->placement;
  layout->check = layout_->check;
  layout->peak_step = layout_->peak_step;
  for (Placement& p : layout->placement)
    if (p.size > 0 && p.first > node) p = Placement{};
  layout->high_water = HighWater(layout->placement);
  layout->id = cpuplan::Mix(layout_->id ^ cpuplan::Mix(static_cast<std::uint64_t>(node) + 99));
  layout_ = std::move(layout);
}

}  // namespace memplan
