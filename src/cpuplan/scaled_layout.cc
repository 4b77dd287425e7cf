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

// Whether a multiple of `divisor` is, told by multiplications: the factors of two by a mask,
// the odd rest by its inverse modulo 2^64 (a multiple of it times the inverse is the exact
// quotient, at most (2^64 - 1) / odd; any other value maps above: Granlund and Montgomery).
class MultipleTest {
 public:
  explicit MultipleTest(Bytes divisor)
      : mask_((divisor & (~divisor + 1)) - 1),  // below the lowest set bit
        odd_(divisor >> __builtin_ctzll(divisor)),
        limit_(~Bytes{0} / odd_) {
    inverse_ = odd_;  // right in the 3 low bits (odd * odd = 1 mod 8); each step doubles them
    for (int i = 0; i < 5; ++i) inverse_ *= 2 - odd_ * inverse_;
  }
  bool Divides(Bytes value) const {
    return (value & mask_) == 0 && (value >> __builtin_ctzll(mask_ + 1)) * inverse_ <= limit_;
  }

 private:
  Bytes mask_;
  Bytes odd_;
  Bytes limit_;
  Bytes inverse_ = 1;
};

// Whether some offset of `before` would lose its alignment scaled: o * num / den is a multiple
// of the alignment only where o * num is one of den times it. Asked of the offsets alone, in
// one pass without the tensors' lookups and checks, and only where `before` places as many
// tensors as the range has: then they are the range's own, or the range has one without a
// place and is not scaled either. A batch shrinking by one (15/16, 14/15) loses it at the
// tensor placed highest among small ones - the output, last in the range - and the loop below
// found that after every other tensor's work.
bool OffsetsLoseAlignment(const cpuplan::Layout& before, std::size_t range_tensors,
                          const Ratio& ratio, Bytes align) {
  Bytes step = 0;
  if (__builtin_mul_overflow(ratio.den, align, &step)) return false;  // the loop decides
  const MultipleTest test(step);
  std::size_t placed = 0;
  bool lost = false;
  for (const cpuplan::Placement& p : before.placement)
    if (p.size > 0) {
      Bytes product = 0;
      lost =
          lost || __builtin_mul_overflow(p.offset, ratio.num, &product) || !test.Divides(product);
      ++placed;
    }
  return lost && placed == range_tensors;
}

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
  const Bytes align = options_.tensor_alignment;
  if (OffsetsLoseAlignment(*before, range.tensors.size(), ratio, align)) return false;
  // Every placement scaled into the new layout's: the old one, for the same nodes, with its
  // size and offset times the ratio (whole, aligned) and that size the tensor's; with the
  // arena and the bytes alive at the old peak (a lower bound of the new records: an arena
  // that reaches them is at the bound) in the same pass.
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
