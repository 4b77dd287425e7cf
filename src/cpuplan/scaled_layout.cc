// The memplan mode's plan for a shape that scales every tensor alike (docs/cpu-planner.md, "A
// layout that scales"): a new batch multiplies every tensor's bytes by one ratio, and the
// layout before, its offsets multiplied by the same ratio, is a valid plan of the new sizes
// (two byte ranges that do not meet still do not meet once both are stretched alike). When
// the old layout was at its lower bound, the new one usually is too - which the bytes alive
// at the old layout's peak node show in one pass - and then no plan, TensorFlow Lite's
// included, is smaller. So neither an order nor a placement is needed: one pass to scale,
// one to bound, the verification every plan gets.
#include <numeric>

#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"

namespace memplan {

bool CpuArenaPlanner::Impl::ScaleLayout(const cpuplan::RangeToPlan& range, cpuplan::Replan& out) {
  const cpuplan::Layout* before = range.previous.get();
  // Only a layout at its bound is worth scaling, and only its peak node makes the new bound
  // one pass.
  if (!before || before->check != CpuTfliteCheck::kAtBound || before->peak_step < 0 ||
      range.tensors.empty())
    return false;
  const std::int32_t t0 = range.tensors.front();
  const cpuplan::Placement* p0 = PlacementIn(*before, t0);
  if (!p0 || p0->size == 0) return false;
  const Bytes divisor = std::gcd(graph_.tensors[t0].bytes, p0->size);
  const cpuplan::Ratio ratio{graph_.tensors[t0].bytes / divisor, p0->size / divisor};
  if (ratio.num == ratio.den) return false;  // nothing scaled: what still holds is kept elsewhere
  // Every offset scaled into the verification's problem and plan first (the passes of a small
  // range's plan: small_range.cc), so a resize that does not scale, or misses the bound, costs
  // one pass and no layout.
  Problem& problem = scratch_.problem;
  OffsetPlan& plan = scratch_.plans[0];
  std::vector<std::size_t>& none = scratch_.to_place;
  if (!RangeRecords(range, 0, &ratio, problem, plan.offsets, none)) return false;
  std::size_t top = 0;
  const Bytes high = TopOf(problem, plan.offsets, top);
  // The bytes alive at the old peak are a lower bound of the new records; an arena that
  // reaches them is at the bound.
  if (!SmallAtBound(problem, high, before->peak_step, false, none, top, out)) return false;
  // Verified as every plan is, then written as the layout's placements.
  plan.arena_bytes = high;
  plan.strategy.assign("scaled");
  cpuplan::VerifyBySweep(problem, plan, sweep_);
  WriteRange(range, plan.offsets, out);
  out.from = range.first_node;
  out.placed = range.tensors.size();
  out.high_water = high;
  out.scaled = true;
  return true;
}

}  // namespace memplan
