// The memplan mode's plan for a shape that scales every tensor alike (docs/cpu-planner.md, "A
// layout that scales"): a new batch multiplies every tensor's bytes by one ratio, and the
// layout before, its offsets multiplied by the same ratio, is a valid plan of the new sizes
// (two byte ranges that do not meet still do not meet once both are stretched alike). When
// the old layout was at its lower bound, the new one usually is too - which the bytes alive
// at the old layout's peak node show in one pass - and then no plan, TensorFlow Lite's
// included, is smaller. So neither an order nor a placement is needed: one pass to scale,
// one to bound, the verification every plan gets.
#include <limits>
#include <numeric>

#include "src/cpuplan/align.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/scan_fit.h"

namespace memplan {

namespace {

// The ratio every tensor of a range grew or shrank by (a new batch): num / den in lowest
// terms.
struct Ratio {
  Bytes num = 1;
  Bytes den = 1;
  // value * num / den into `out` when that is a whole number and does not overflow. A batch
  // that grows by a whole factor (den 1) divides nothing: a division costs tens of cycles, a
  // scaled tensor's whole share of the time.
  bool Apply(Bytes value, Bytes& out) const {
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
};

}  // namespace

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
  const Ratio ratio{graph_.tensors[t0].bytes / divisor, p0->size / divisor};
  if (ratio.num == ratio.den) return false;  // nothing scaled: what still holds is kept elsewhere
  // Every placement scaled into the new layout's: the old one, for the same nodes, with its
  // size and offset times the ratio (whole, aligned) and that size the tensor's; with the
  // arena and the bytes alive at the old peak (a lower bound of the new records: an arena
  // that reaches them is at the bound) in the same pass.
  const Bytes align = options_.tensor_alignment;
  const Step peak = before->peak_step;
  // Validate's room for every arena position: sizes and paddings adding up to more go to the
  // plan that validates its problem and says so.
  constexpr Bytes kRoom = std::numeric_limits<Bytes>::max() / 4;
  Bytes high = 0, total = 0;
  cpuplan::LiveBytes alive(align);
  out.placement.assign(Slots(), cpuplan::Placement{});
  for (const std::int32_t t : range.tensors) {
    const cpuplan::Placement* p = PlacementIn(*before, t);
    const Bytes bytes = graph_.tensors[t].bytes;
    Bytes size = 0, offset = 0;
    if (!p || p->size == 0 || p->first != alloc_node_[t] || p->last != dealloc_node_[t] ||
        !ratio.Apply(p->size, size) || size != bytes || !ratio.Apply(p->offset, offset) ||
        !IsAligned(offset, align) || size > kRoom || offset > kRoom - size)
      return false;
    total += size + std::min(align, kRoom);
    if (total > kRoom) return false;
    out.placement[Slot(t)] = {offset, size, p->first, p->last};
    high = std::max(high, offset + size);
    if (p->first <= peak && peak <= RecordLast(p->first, p->last)) alive.Add(size);
  }
  if (high > alive.value()) return false;
  // Verified as every plan is.
  VerifyLayout(out.placement, high, "scaled");
  out.bound = alive.value();
  out.peak = peak;
  out.from = range.first_node;
  out.placed = range.tensors.size();
  out.high_water = high;
  out.scaled = true;
  return true;
}

}  // namespace memplan
