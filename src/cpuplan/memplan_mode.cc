// The memplan mode's main arena (docs/cpu-planner.md, "memplan mode"). A node range is
// planned as an offsets problem: the tensors from the first node a change reaches onwards
// are placed by memplan's strategy (and by TensorFlow Lite's order, keeping the smaller),
// around the earlier tensors, whose offsets stay fixed. PlanOffsets verifies every such
// plan; as the fixed records are all the earlier tensors that can be alive at the same
// time as a placed one, the whole layout stays verified. Layouts are cached per shape
// signature, and a call with nothing changed returns at once.
#include <algorithm>
#include <limits>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/tflite_order.h"

namespace memplan {

using cpuplan::kEndOfRun;
using cpuplan::Layout;
using cpuplan::Placement;

namespace {

// An incremental plan above this many times the lower bound is tried again from scratch.
constexpr double kIncrementalSlack = 1.05;

}  // namespace

void CpuArenaPlanner::Impl::ExecuteMemplan(std::int32_t first, std::int32_t last) {
  const bool unchanged =
      layout_ && version_ == done_version_ && first == done_first_ && last == done_last_;
  if (unchanged) {
    stats_.unchanged = true;
  } else {
    const cpuplan::LayoutKey key{first, last, first == 0 || !layout_ ? 0 : layout_->id};
    if (auto cached = cache_.Find(key, signature_)) {
      // The same range was planned since PlanAllocations: its temporaries have lifetimes.
      layout_ = std::move(cached);
      stats_.cache_hit = true;
    } else {
      AssignTemporaries(first, last);
      layout_ = PlanLayout(first, last);
      cache_.Insert(key, signature_, layout_);
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
}

std::shared_ptr<const Layout> CpuArenaPlanner::Impl::PlanLayout(std::int32_t first,
                                                                std::int32_t last) {
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
  for (std::size_t t = 0; t < n; ++t) {
    const auto i = static_cast<std::int32_t>(t);
    if (layout->placement[t].size > 0 && (!owns_memory(i) || !holds(i)))
      layout->placement[t] = Placement{};
  }

  // The range's tensors; the first node whose tensors changed.
  std::vector<std::int32_t> range;
  std::int32_t reach = std::numeric_limits<std::int32_t>::max();
  std::int32_t range_first = reach;
  for (const std::int32_t t : Registered(first, last)) {
    if (!owns_memory(t)) continue;
    range.push_back(t);
    range_first = std::min(range_first, alloc_node_[t]);
    if (layout->placement[t].size == 0) reach = std::min(reach, alloc_node_[t]);
  }
  const auto end = static_cast<Step>(graph_.nodes.size());
  auto record = [&](std::int32_t t) {
    const std::int32_t last_node = dealloc_node_[t];
    return UsageRecord{graph_.tensors[t].bytes, alloc_node_[t],
                       last_node == kEndOfRun ? std::max<Step>(end, alloc_node_[t]) : last_node};
  };

  const Bytes top_before = previous ? previous->high_water : 0;
  // One way to re-plan: the range's tensors first used from node `from` on, placed around
  // every placement that stays (all others first used up to `last`); `poor` when the arena
  // grew past the one before and is further above the bound than the slack.
  struct Replan {
    std::int32_t from = 0;
    std::vector<Placement> placement;  // the whole layout after it
    std::size_t placed = 0;
    std::size_t fixed = 0;
    Bytes high_water = 0;
    bool poor = false;
  };
  auto plan_from = [&](std::int32_t from) {
    Replan out{from, layout->placement, 0, 0, 0, false};
    std::vector<std::int32_t> free;
    std::vector<bool> is_free(n, false);
    for (const std::int32_t t : range)
      if (alloc_node_[t] >= from) {
        free.push_back(t);
        is_free[t] = true;
      }
    // Tensors beyond the range lose their places (their own range will place them again).
    for (std::size_t t = 0; t < n; ++t)
      if (is_free[t] || (alloc_node_[t] != kEndOfRun && alloc_node_[t] > last))
        out.placement[t] = Placement{};
    Problem problem;
    problem.alignment = options_.tensor_alignment;
    for (const Placement& p : out.placement) {
      if (p.size == 0 || p.last < from) continue;  // cannot be alive with a free tensor
      problem.records.push_back(
          {p.size, p.first, p.last == kEndOfRun ? std::max<Step>(end, p.first) : p.last});
      problem.fixed_offsets.push_back(p.offset);
    }
    out.fixed = problem.records.size();
    for (const std::int32_t t : free) {
      problem.records.push_back(record(t));
      problem.fixed_offsets.push_back(std::nullopt);
    }
    if (!free.empty()) {
      if (out.fixed == 0) problem.fixed_offsets.clear();
      // Around kept offsets: the cheap re-plan strategy alone. From nothing: TensorFlow Lite's
      // order (so never above its plan) and the cheap strategy, then the full strategy only
      // when neither came within options.good_enough of the lower bound.
      OffsetPlan best = PlanOffsets(problem, options_.replan_strategy);
      if (out.fixed == 0) {
        OffsetPlan tflite = PlanOffsets(problem, "tflite_cpu");
        if (tflite.arena_bytes < best.arena_bytes) best = std::move(tflite);
        const double bound = static_cast<double>(OffsetsLowerBound(problem));
        if (static_cast<double>(best.arena_bytes) > bound * options_.good_enough) {
          OffsetPlan full = PlanOffsets(problem, options_.strategy);
          if (full.arena_bytes < best.arena_bytes) best = std::move(full);
        }
      }
      for (std::size_t k = 0; k < free.size(); ++k) {
        const std::int32_t t = free[k];
        out.placement[t] = {best.offsets[out.fixed + k], graph_.tensors[t].bytes, alloc_node_[t],
                            dealloc_node_[t], t};
      }
      out.placed = free.size();
      if (out.fixed > 0 && best.arena_bytes > top_before) {
        Problem loose = problem;
        loose.fixed_offsets.clear();
        out.poor = static_cast<double>(best.arena_bytes) >
                   static_cast<double>(OffsetsLowerBound(loose)) * kIncrementalSlack;
      }
    }
    for (const Placement& p : out.placement)
      out.high_water = std::max(out.high_water, p.offset + p.size);
    return out;
  };

  if (reach != std::numeric_limits<std::int32_t>::max()) {
    Replan chosen = plan_from(reach);
    if (chosen.poor && reach > range_first) {
      // The arena grew and is above the bound by more than the slack: the whole range from
      // its first tensor too, keeping the smaller.
      Replan again = plan_from(range_first);
      if (again.high_water < chosen.high_water) chosen = std::move(again);
    }
    layout->placement = std::move(chosen.placement);
    stats_.placed = chosen.placed;
    stats_.kept = chosen.fixed;
    stats_.first_replanned_node = chosen.from;
  }
  for (const Placement& p : layout->placement)
    layout->high_water = std::max(layout->high_water, p.offset + p.size);
  layout->id = cpuplan::Mix(cpuplan::LayoutCache::Hash({first, last, 0}, signature_) ^
                            cpuplan::Mix(previous ? previous->id : 0));
  return layout;
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
