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

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/offsets.h"
#include "memplan/plan.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"
#include "src/cpuplan/tflite_order.h"

namespace memplan {

using cpuplan::kEndOfRun;
using cpuplan::Layout;
using cpuplan::Placement;

namespace {

constexpr Bytes kUnknown = ~Bytes{0};
// After the cheap strategy lost to TensorFlow Lite's placement, it runs again on every
// kRecheck-th plan from nothing (shapes drift; it may win again).
constexpr std::uint32_t kRecheck = 8;
// A change is repaired in place (only the tensors whose placement no longer holds placed
// again) when at most one in kRepairShare of the range's tensors changed; a larger change
// is planned again from its first node, which costs about the same.
constexpr std::size_t kRepairShare = 8;

// A strategy by name, run without PlanOffsets' own validation and verification: the caller
// validates the problem once and verifies only the plan it keeps.
OffsetPlan RunStrategy(const Problem& problem, const std::string& name) {
  const OffsetStrategy* strategy = FindOffsetStrategy(name);
  if (!strategy) return PlanOffsets(problem, name);  // the UsageError naming the strategies
  OffsetPlan plan = strategy->plan(problem);
  plan.strategy = name;
  return plan;
}

}  // namespace

OffsetPlan CpuArenaPlanner::Impl::TflitePlacement(const Problem& problem,
                                                  const std::vector<std::int32_t>& free) const {
  // TensorFlow Lite places in its own order.
  std::vector<std::size_t> order(free.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  cpuplan::SortInTfliteOrder(order, free, graph_, alloc_node_, dealloc_node_);
  if (problem.size() <= cpuplan::kScanRecords) return cpuplan::PlaceByScan(problem, order, true);
  // The indexed strategy places in record order: the records in that order, the offsets back.
  Problem sorted;
  sorted.alignment = problem.alignment;
  sorted.records.reserve(order.size());
  for (const std::size_t k : order) sorted.records.push_back(problem.records[k]);
  const OffsetPlan placed = PlanTfliteCpuInCallOrder(sorted);
  OffsetPlan plan;
  plan.strategy = "tflite_cpu";
  plan.arena_bytes = placed.arena_bytes;
  // Sized as a copy of the placed offsets (one per record), then put back in record order: gcc
  // 12 at -O3 reports a false -Wstringop-overflow on resize() here.
  plan.offsets = placed.offsets;
  for (std::size_t i = 0; i < order.size(); ++i) plan.offsets[order[i]] = placed.offsets[i];
  return plan;
}

void CpuArenaPlanner::Impl::ExecuteMemplan(std::int32_t first, std::int32_t last) {
  const bool unchanged =
      layout_ && version_ == done_version_ && first == done_first_ && last == done_last_;
  if (unchanged) {
    stats_.unchanged = true;
    shadow_.Executed(first, last, logged_shapes_, true);
  } else {
    const cpuplan::LayoutKey key{first, last, first == 0 || !layout_ ? 0 : layout_->id,
                                 shadow_.path()};
    const bool fresh = shadow_.CallsSinceReset() == 0;
    if (const cpuplan::CachedLayout* cached = cache_.Find(key, signature_)) {
      // The same range was planned since PlanAllocations: its temporaries have lifetimes.
      layout_ = cached->layout;
      logged_shapes_ = cached->shapes;
      shadow_.Executed(first, last, logged_shapes_, false);
      stats_.cache_hit = true;
    } else {
      logged_shapes_ = std::make_shared<const cpuplan::ShapeSignature>(signature_);
      shadow_.Executed(first, last, logged_shapes_, false);
      AssignTemporaries(first, last);
      layout_ = PlanLayout(first, last, fresh);
      cache_.Insert(key, logged_shapes_, layout_);
    }
    if (persistent_tensors_ > 0) {
      std::vector<std::int32_t> persistent;
      for (const std::int32_t t : Registered(first, last))
        if (graph_.tensors[t].type == CpuAllocationType::kArenaRwPersistent)
          persistent.push_back(t);
      cpuplan::SortInTfliteOrder(persistent, graph_, alloc_node_, dealloc_node_);
      PlacePersistent(persistent);
    }
    main_.SetHighWater(layout_->high_water);
    done_version_ = version_;
    done_first_ = first;
    done_last_ = last;
    last_active_node_ = last;
  }
  main_.Commit();
  persistent_.Commit();
  has_non_persistent_memory_ = true;
  stats_.planned_bytes = layout_->high_water;
  stats_.tflite_check = layout_->check;
}

Step CpuArenaPlanner::Impl::RecordLast(std::int32_t first, std::int32_t last) const {
  return last == kEndOfRun ? std::max<Step>(static_cast<Step>(graph_.nodes.size()), first)
                           : Step{last};
}

std::vector<UsageRecord> CpuArenaPlanner::Impl::RecordsOf(
    const std::vector<Placement>& placement) const {
  std::vector<UsageRecord> records;
  records.reserve(placement.size());
  for (const Placement& p : placement)
    if (p.size > 0) records.push_back({p.size, p.first, RecordLast(p.first, p.last)});
  return records;
}

std::shared_ptr<const Layout> CpuArenaPlanner::Impl::PlanLayout(std::int32_t first,
                                                                std::int32_t last, bool fresh) {
  const std::shared_ptr<const Layout> previous = layout_ ? layout_ : hint_;
  const std::size_t n = graph_.tensors.size();
  auto layout = std::make_shared<Layout>();
  layout->placement.resize(n);
  if (previous && previous->placement.size() <= n)
    std::copy(previous->placement.begin(), previous->placement.end(), layout->placement.begin());

  auto owns_memory = [&](std::int32_t t) {
    return graph_.tensors[t].type == CpuAllocationType::kArenaRw && !SharesNowConst(t) &&
           alloc_node_[t] != kEndOfRun && graph_.tensors[t].bytes > 0;
  };
  // A placement holds when it was made for the tensor's current bytes and lifetime.
  auto holds = [&](std::int32_t t) {
    const Placement& p = layout->placement[t];
    return p.size == graph_.tensors[t].bytes && p.first == alloc_node_[t] &&
           p.last == dealloc_node_[t];
  };
  const std::vector<std::int32_t> registered = Registered(first, last);  // marks seen_
  // The first call after a reset takes from the old layout only the offsets of the range's
  // tensors: the others have no memory until their own range is executed.
  const bool from_hint = !layout_;
  for (std::size_t t = 0; t < n; ++t) {
    const auto i = static_cast<std::int32_t>(t);
    if (layout->placement[t].size > 0 &&
        (!owns_memory(i) || !holds(i) || (from_hint && seen_[t] != epoch_)))
      layout->placement[t] = Placement{};
  }

  // The range's tensors (in TensorFlow Lite's placement order); the first node whose tensors
  // changed. TensorFlow Lite drops, for good, a share that does not hold when it places the
  // tensor: the replay needs to know (tflite_shadow.h).
  std::vector<std::int32_t> range;
  std::int32_t reach = std::numeric_limits<std::int32_t>::max();
  std::int32_t range_first = reach;
  for (const std::int32_t t : registered) {
    const CpuTensor& tensor = graph_.tensors[t];
    if (share_root_[t] >= 0 && !SharesNowConst(t) &&
        ((tensor.type == CpuAllocationType::kArenaRw && tensor.bytes > 0) ||
         tensor.type == CpuAllocationType::kArenaRwPersistent))
      shadow_.Dropped(static_cast<std::size_t>(t));
    if (!owns_memory(t)) continue;
    range.push_back(t);
    range_first = std::min(range_first, alloc_node_[t]);
    if (layout->placement[t].size == 0) reach = std::min(reach, alloc_node_[t]);
  }

  // One way to re-plan: the range's tensors first used from node `from` on, placed around
  // every placement that stays (all others first used up to `last`).
  struct Replan {
    std::int32_t from = 0;
    std::vector<Placement> placement;  // the whole layout after it
    std::size_t placed = 0;
    std::size_t fixed = 0;
    Bytes high_water = 0;
    bool tflite_candidate = false;  // planned from nothing, TensorFlow Lite's order among
    Bytes bound = kUnknown;         // the lower bound of the whole layout, when known
    Bytes problem_bound = 0;        // around kept offsets: the bound of the problem's records
    Step peak = -1;                 // where the whole layout's bound is reached, when known
  };
  auto plan_from = [&](std::int32_t from) {
    Replan out{from, layout->placement, 0, 0, 0, false, kUnknown, 0};
    std::vector<std::int32_t> free;
    for (const std::int32_t t : range)
      if (alloc_node_[t] >= from) free.push_back(t);
    // Tensors beyond the range lose their places (their own range will place them again).
    for (std::size_t t = 0; t < n; ++t)
      if (alloc_node_[t] != kEndOfRun && alloc_node_[t] > last) out.placement[t] = Placement{};
    for (const std::int32_t t : free) out.placement[t] = Placement{};
    Problem problem;
    problem.alignment = options_.tensor_alignment;
    problem.records.reserve(n);
    for (const Placement& p : out.placement) {
      if (p.size == 0 || p.last < from) continue;  // cannot be alive with a free tensor
      problem.records.push_back({p.size, p.first, RecordLast(p.first, p.last)});
      problem.fixed_offsets.push_back(p.offset);
    }
    out.fixed = problem.records.size();
    for (const std::int32_t t : free) {
      problem.records.push_back(
          {graph_.tensors[t].bytes, alloc_node_[t], RecordLast(alloc_node_[t], dealloc_node_[t])});
      problem.fixed_offsets.push_back(std::nullopt);
    }
    if (!free.empty()) {
      if (out.fixed == 0) problem.fixed_offsets.clear();
      Validate(problem);
      // Around kept offsets: the cheap re-plan strategy alone. From nothing: the cheap
      // strategy, then (unless it met the lower bound) TensorFlow Lite's placement, then the
      // full strategy only when neither came within good_enough of the bound.
      auto cheap = [&] {
        return options_.replan_strategy == "greedy_by_size" &&
                       problem.size() <= cpuplan::kScanRecords
                   ? cpuplan::PlaceByScan(problem, cpuplan::GreedyBySizeOrder(problem), false)
                   : RunStrategy(problem, options_.replan_strategy);
      };
      OffsetPlan chosen;
      if (out.fixed > 0) {
        chosen = cheap();
        // The records here are every one alive from `from` on, so their bound is at most the
        // whole layout's: an arena at this bound is at the whole layout's bound.
        out.problem_bound = cpuplan::SweepLowerBound(problem.records, problem.alignment);
      } else {
        const Bytes bound = cpuplan::SweepLowerBound(problem.records, problem.alignment);
        out.bound = bound;
        // The candidate that won the last plan goes first; the other runs when it missed the
        // bound. TensorFlow Lite's placement always runs then (it is what proves the arena no
        // larger than TensorFlow Lite's); the cheap strategy, after it lost, only on every
        // kRecheck-th such plan.
        if (cheap_won_ || !previous) {
          chosen = cheap();
          if (chosen.arena_bytes > bound) {
            OffsetPlan tflite = TflitePlacement(problem, free);
            out.tflite_candidate = true;
            cheap_won_ = chosen.arena_bytes < tflite.arena_bytes;
            if (!cheap_won_) chosen = std::move(tflite);
          }
        } else {
          chosen = TflitePlacement(problem, free);
          out.tflite_candidate = true;
          if (chosen.arena_bytes > bound && ++cheap_skipped_ % kRecheck == 0) {
            OffsetPlan other = cheap();
            cheap_won_ = other.arena_bytes < chosen.arena_bytes;
            if (cheap_won_) chosen = std::move(other);
          }
        }
        const double slack = previous ? options_.replan_good_enough : options_.good_enough;
        // A re-plan skips the full strategy once it failed to beat the cheap plans.
        if (static_cast<double>(chosen.arena_bytes) > static_cast<double>(bound) * slack &&
            (!previous || strategy_helped_)) {
          OffsetPlan full = PlanOffsets(problem, options_.strategy);  // verified inside
          strategy_helped_ = full.arena_bytes < chosen.arena_bytes;
          if (strategy_helped_) chosen = std::move(full);
        }
      }
      cpuplan::VerifyBySweep(problem, chosen);
      for (std::size_t k = 0; k < free.size(); ++k) {
        const std::int32_t t = free[k];
        out.placement[t] = {chosen.offsets[out.fixed + k], graph_.tensors[t].bytes, alloc_node_[t],
                            dealloc_node_[t], t};
      }
      out.placed = free.size();
    }
    std::size_t placements = 0;
    for (const Placement& p : out.placement) {
      out.high_water = std::max(out.high_water, p.offset + p.size);
      placements += p.size > 0 ? 1 : 0;
    }
    // TensorFlow Lite's own plan, and the problem's bound, only when the layout holds
    // nothing else.
    out.tflite_candidate = out.tflite_candidate && placements == free.size();
    if (placements != free.size()) out.bound = kUnknown;
    return out;
  };

  // A change that reaches few tensors (one grew, say) is first repaired in place: only the
  // tensors whose placement no longer holds are placed again, around every other placement,
  // in time proportional to them and the placements alive with them. The repair is kept only
  // when the arena is then at the layout's lower bound (no plan, TensorFlow Lite's included,
  // can be smaller); otherwise the tensors from the first changed node on are planned again.
  auto repair = [&]() -> std::optional<Replan> {
    std::vector<std::int32_t> changed;
    for (const std::int32_t t : range)
      if (layout->placement[t].size == 0) changed.push_back(t);
    if (changed.empty() || changed.size() * kRepairShare > range.size()) return std::nullopt;
    Replan out{reach, layout->placement, 0, 0, 0, false, kUnknown, 0};
    for (std::size_t t = 0; t < n; ++t)
      if (alloc_node_[t] != kEndOfRun && alloc_node_[t] > last) out.placement[t] = Placement{};
    Step lo = std::numeric_limits<Step>::max(), hi = 0;
    for (const std::int32_t t : changed) {
      lo = std::min<Step>(lo, alloc_node_[t]);
      hi = std::max(hi, RecordLast(alloc_node_[t], dealloc_node_[t]));
    }
    Problem problem;
    problem.alignment = options_.tensor_alignment;
    for (const Placement& p : out.placement) {
      if (p.size == 0) continue;
      const Step p_last = RecordLast(p.first, p.last);
      if (p_last < lo || p.first > hi) continue;  // never alive with a changed tensor
      problem.records.push_back({p.size, p.first, p_last});
      problem.fixed_offsets.push_back(p.offset);
    }
    out.fixed = problem.records.size();
    for (const std::int32_t t : changed) {
      problem.records.push_back(
          {graph_.tensors[t].bytes, alloc_node_[t], RecordLast(alloc_node_[t], dealloc_node_[t])});
      problem.fixed_offsets.push_back(std::nullopt);
    }
    Validate(problem);
    const OffsetPlan plan =
        problem.size() <= cpuplan::kScanRecords
            ? cpuplan::PlaceByScan(problem, cpuplan::GreedyBySizeOrder(problem), false)
            : RunStrategy(problem, "greedy_by_size");
    cpuplan::VerifyBySweep(problem, plan);
    for (std::size_t k = 0; k < changed.size(); ++k) {
      const std::int32_t t = changed[k];
      out.placement[t] = {plan.offsets[out.fixed + k], graph_.tensors[t].bytes, alloc_node_[t],
                          dealloc_node_[t], t};
    }
    out.placed = changed.size();
    for (const Placement& p : out.placement)
      out.high_water = std::max(out.high_water, p.offset + p.size);
    // The bound at the node where the layout it started from met its bound: when that alone
    // reaches the arena, the arena is the bound, without sweeping every node.
    if (previous && previous->peak_step >= 0) {
      const Step peak = previous->peak_step;
      Bytes padded = 0, top_pad = 0;
      for (const Placement& p : out.placement) {
        if (p.size == 0 || p.first > peak || RecordLast(p.first, p.last) < peak) continue;
        const Bytes aligned = AlignUp(p.size, options_.tensor_alignment);
        padded += aligned;
        top_pad = std::max(top_pad, aligned - p.size);
      }
      const Bytes at_peak = padded > top_pad ? padded - top_pad : 0;
      if (out.high_water <= at_peak) {
        out.bound = at_peak;
        out.peak = peak;
        return out;
      }
    }
    out.bound =
        cpuplan::SweepLowerBound(RecordsOf(out.placement), options_.tensor_alignment, &out.peak);
    if (out.high_water > out.bound) return std::nullopt;
    return out;
  };

  bool tflite_was_candidate = false;
  Bytes layout_bound = kUnknown;
  if (reach != std::numeric_limits<std::int32_t>::max()) {
    std::optional<Replan> repaired = repair();
    const bool was_repaired = repaired.has_value();
    Replan chosen = was_repaired ? std::move(*repaired) : plan_from(reach);
    if (!was_repaired && chosen.fixed > 0 && reach > range_first) {
      chosen.bound = chosen.high_water <= chosen.problem_bound
                         ? chosen.high_water
                         : cpuplan::SweepLowerBound(RecordsOf(chosen.placement),
                                                    options_.tensor_alignment, &chosen.peak);
      if (chosen.high_water > chosen.bound) {
        // Kept offsets cost something (the arena is above the bound): the whole range is
        // planned again too, and the smaller kept, so a re-plan is never above a whole one.
        Replan again = plan_from(range_first);
        if (again.high_water < chosen.high_water) chosen = std::move(again);
      }
    }
    layout_bound = chosen.bound;
    layout->peak_step = chosen.peak;
    layout->placement = std::move(chosen.placement);
    stats_.placed = chosen.placed;
    stats_.kept = chosen.fixed;
    stats_.first_replanned_node = chosen.from;
    tflite_was_candidate = fresh && chosen.tflite_candidate && chosen.fixed == 0;
  }
  for (const Placement& p : layout->placement)
    layout->high_water = std::max(layout->high_water, p.offset + p.size);
  CheckAgainstTflite(*layout, tflite_was_candidate, layout_bound);
  layout->id =
      cpuplan::Mix(cpuplan::LayoutCache::Hash({first, last, 0, 0}, signature_) ^
                   cpuplan::Mix(previous ? previous->id : 0) ^ cpuplan::Mix(shadow_.path() + 3));
  return layout;
}

// Why each case holds (docs/cpu-planner.md, "Never above TensorFlow Lite"): TensorFlow Lite
// places at least the tensors this layout places, none smaller and none for fewer nodes (it
// keeps a shrunk tensor's larger place, never lowers its high-water mark before a reset, and
// drops a share for good where this layout may share again), so a valid plan of its is never
// below the lower bound of this layout's records.
void CpuArenaPlanner::Impl::CheckAgainstTflite(Layout& layout, bool tflite_was_candidate,
                                               Bytes bound) {
  if (bound == kUnknown)
    bound = cpuplan::SweepLowerBound(RecordsOf(layout.placement), options_.tensor_alignment,
                                     &layout.peak_step);
  if (layout.high_water <= bound) {
    layout.check = CpuTfliteCheck::kAtBound;
    return;
  }
  // The first call since a reset, planned from nothing over exactly TensorFlow Lite's
  // tensors (no share of theirs dropped), with its placement as a candidate.
  if (tflite_was_candidate && !shadow_.AnyDropped()) {
    layout.check = CpuTfliteCheck::kTfliteCandidate;
    return;
  }
  const Impl* tflite = shadow_.CatchUp(graph_, options_);
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
  for (std::size_t t = 0; t < layout.placement.size() && complete; ++t) {
    const Placement& mine = layout.placement[t];
    if (mine.size == 0) continue;
    const Placement& q = tflite->placement_[t];
    complete = graph_.tensors[t].type == CpuAllocationType::kArenaRw && q.size >= mine.size;
    theirs[t] = {q.offset, mine.size, mine.first, mine.last, mine.tensor};
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
  auto layout = std::make_shared<Layout>(*layout_);
  for (Placement& p : layout->placement)
    if (p.size > 0 && p.first > node) p = Placement{};
  layout->high_water = 0;
  for (const Placement& p : layout->placement)
    layout->high_water = std::max(layout->high_water, p.offset + p.size);
  layout->id = cpuplan::Mix(layout_->id ^ cpuplan::Mix(static_cast<std::uint64_t>(node) + 99));
  layout_ = std::move(layout);
}

}  // namespace memplan
