// The memplan mode's plan for a shape that scales every tensor alike (docs/cpu-planner.md, "A
// layout that scales"): a new batch multiplies every tensor's bytes by one ratio, and the
// layout before, its offsets multiplied by the same ratio, is a valid plan of the new sizes
// (two byte ranges that do not meet still do not meet once both are stretched alike). When
// the old layout was at its lower bound, the new one usually is too - which the bytes alive
// at the old layout's peak node show in one pass - and then no plan, TensorFlow Lite's
// included, is smaller. So neither an order nor a placement is needed: one pass to scale,
// one to bound, the verification every plan gets.
#include <numeric>

#include "src/cpuplan/align.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"

namespace memplan {

using cpuplan::Placement;

namespace {

// value * num / den when that is a whole number and does not overflow. A batch that grows
// by a whole factor (den 1) divides nothing: a division costs tens of cycles, a scaled
// tensor's whole share of the time.
bool ScaleExactly(Bytes value, Bytes num, Bytes den, Bytes& out) {
  Bytes product = 0;
  if (__builtin_mul_overflow(value, num, &product)) return false;
  if (den == 1) {
    out = product;
    return true;
  }
  if (product % den != 0) return false;
  out = product / den;
  return true;
}

}  // namespace

bool CpuArenaPlanner::Impl::ScaleLayout(const cpuplan::RangeToPlan& range, cpuplan::Replan& out) {
  const cpuplan::Layout* before = range.previous.get();
  // Only a layout at its bound is worth scaling, and only its peak node makes the new bound
  // one pass.
  if (!before || before->check != CpuTfliteCheck::kAtBound || before->peak_step < 0 ||
      range.tensors.empty())
    return false;
  const auto in_old = [&](std::int32_t t) {
    const Placement* p = PlacementIn(*before, t);
    return p ? *p : Placement{};
  };
  const std::int32_t t0 = range.tensors.front();
  const Bytes old0 = in_old(t0).size;
  if (old0 == 0) return false;
  const Bytes divisor = std::gcd(graph_.tensors[t0].bytes, old0);
  const Bytes num = graph_.tensors[t0].bytes / divisor, den = old0 / divisor;
  if (num == den) return false;  // nothing scaled: what still holds is kept elsewhere
  // Every offset scaled into the verification's problem and plan first (their buffers kept
  // from call to call), so a resize that does not scale, or misses the bound, costs one pass
  // and no layout.
  Problem& problem = scratch_.problem;
  OffsetPlan& plan = scratch_.plans[0];
  problem.alignment = options_.tensor_alignment;
  problem.records.clear();
  problem.fixed_offsets.clear();
  plan.offsets.clear();
  Bytes high = 0;
  for (const std::int32_t t : range.tensors) {
    const Placement p = in_old(t);
    const Bytes bytes = graph_.tensors[t].bytes;
    Bytes size = 0, offset = 0;
    if (p.size == 0 || p.first != alloc_node_[t] || p.last != dealloc_node_[t] ||
        !ScaleExactly(p.size, num, den, size) || size != bytes ||
        !ScaleExactly(p.offset, num, den, offset) ||
        !cpuplan::IsAligned(offset, options_.tensor_alignment) ||
        offset > std::numeric_limits<Bytes>::max() / 2 - bytes)
      return false;
    problem.records.push_back({bytes, p.first, RecordLast(p.first, p.last)});
    plan.offsets.push_back(offset);
    high = std::max(high, offset + bytes);
  }
  // The bytes alive at the old peak are a lower bound of the new records; an arena that
  // reaches them is at the bound.
  const Step peak = before->peak_step;
  const Bytes at_peak = cpuplan::LiveBytesAt(problem.records, problem.alignment, peak);
  if (high > at_peak) return false;
  // Verified as every plan is, then written as the layout's placements.
  plan.arena_bytes = high;
  plan.strategy.assign("scaled");
  cpuplan::VerifyBySweep(problem, plan);
  WriteRange(range, plan.offsets, out);
  out.from = range.first_node;
  out.placed = range.tensors.size();
  out.high_water = high;
  out.bound = at_peak;
  out.peak = peak;
  out.scaled = true;
  return true;
}

}  // namespace memplan
