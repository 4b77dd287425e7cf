#pragma once
// The memplan mode's re-planning of a node range (memplan_mode.cc; docs/cpu-planner.md, "The
// memplan mode"): what one ExecuteAllocations call has to place, and one candidate layout
// with what is known about it.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "memplan/plan.h"
#include "memplan/problem.h"
#include "src/cpuplan/layout_cache.h"

namespace memplan::cpuplan {

inline constexpr Bytes kUnknownBound = ~Bytes{0};
inline constexpr std::int32_t kNoNode = std::numeric_limits<std::int32_t>::max();
// A change is repaired in place (only the tensors whose placement no longer holds placed
// again) when at most one in kRepairShare of the range's tensors changed; a larger change
// is planned again from its first node, which costs about the same.
inline constexpr std::size_t kRepairShare = 8;
// A range of at most this many tensors that a repair cannot settle is planned again from its
// first node at once: a re-plan around kept offsets would cost a plan, a sweep for its bound
// and, above the bound, the whole plan anyway - on so few tensors all of it is fixed cost.
inline constexpr std::size_t kSmallRange = 64;
// After the cheap strategy lost to TensorFlow Lite's placement in a plan from nothing, it runs
// again on every kRecheck-th such plan (shapes drift; it may win again).
inline constexpr std::uint32_t kRecheck = 8;

// What a call has to place in the main arena.
struct RangeToPlan {
  std::int32_t last = 0;               // the range's last node
  LocalShared<const Layout> previous;  // the layout before the call, else the hint
  std::vector<Placement> start;        // per tensor: the previous placements that hold
  bool start_taken = false;            // `start` is filled only where a plan needs it
  std::vector<std::int32_t> holding;   // the range's tensors whose placement still holds
  std::vector<std::int32_t> tensors;   // the range's tensors with memory of their own
  std::int32_t reach = kNoNode;        // the first node of one without a place
  std::int32_t first_node = kNoNode;   // the first node of any of them
};

// One way to re-plan: the tensors first used from node `from` on placed around every
// placement that stays.
struct Replan {
  std::int32_t from = 0;
  std::vector<Placement> placement;  // per tensor: the whole layout after it
  std::size_t placed = 0;            // tensors placed
  std::size_t fixed = 0;             // placements they were placed around
  std::size_t others = 0;            // placements kept that cannot be alive with them
  Bytes others_high = 0;             // the highest end among those (the rest are in the problem)
  Bytes high_water = 0;
  bool tflite_candidate = false;  // planned from nothing, TensorFlow Lite's placement among
  Bytes bound = kUnknownBound;    // the lower bound of the whole layout, when known
  Bytes problem_bound = 0;        // around kept offsets: the bound of the problem's records
  Step peak = -1;                 // where the whole layout's bound is reached, when known
  bool scaled = false;            // the layout before, scaled (scaled_layout.cc)
};

// Forgets what a candidate that was not kept set, keeping its placements' buffer: the next
// candidate of the same call fills it without allocating one of its own.
inline void ClearKeepingRoom(Replan& replan) {
  std::vector<Placement> room = std::move(replan.placement);
  replan = Replan{};
  replan.placement = std::move(room);
}

// Buffers the memplan mode reuses from plan to plan (their capacity stays), so a plan of a
// small graph allocates little more than the layout it keeps (docs/cpu-planner.md).
struct PlanScratch {
  RangeToPlan range;
  std::vector<std::int32_t> registered;
  std::vector<std::int32_t> free;         // the tensors a re-plan or a repair places
  std::vector<std::size_t> order;         // greedy_by_size's, kept while it still holds
  std::vector<std::size_t> tflite_order;  // TensorFlow Lite's, the same
  Problem problem;
  OffsetPlan plans[2];  // candidate plans, their offsets kept from call to call

  // Room for a graph of `tensors` tensors, taken with the graph rather than by its first plan.
  void Reserve(std::size_t tensors) {
    range.start.reserve(tensors);
    range.tensors.reserve(tensors);
    range.holding.reserve(tensors);
    registered.reserve(tensors);
    free.reserve(tensors);
    order.reserve(tensors);
    tflite_order.reserve(tensors);
    problem.records.reserve(tensors);
    problem.fixed_offsets.reserve(tensors);
    for (OffsetPlan& plan : plans) plan.offsets.reserve(tensors);
  }
};

}  // namespace memplan::cpuplan
