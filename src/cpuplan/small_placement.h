#pragma once
// What the memplan mode's small-range plans share (small_range.cc repairs, small_whole.cc
// plans whole; docs/cpu-planner.md, "A small range after a reset"): lists of up to
// kSmallRange slots on the stack, the two fit rules applied to a layout's placements
// themselves, and the bytes alive at a node among them. Working on the new layout's
// placements, with nothing but the stack besides, a fresh step after cache hits (or after an
// inference between two plans) fetches few lines that are not already its own.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "src/cpuplan/align.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/replan.h"
#include "src/cpuplan/simple_arena.h"

namespace memplan::cpuplan {

// An offset not yet given.
inline constexpr Bytes kNoOffset = std::numeric_limits<Bytes>::max();

// Validate's room for every arena position, taken tensor by tensor: a range whose sizes and
// paddings add up to more goes to the plan that validates its problem and says so.
class SmallRoom {
 public:
  // false once the sizes and paddings taken pass the room.
  bool Take(Bytes size, Bytes alignment) {
    total_ += std::min(size, kRoom) + std::min(alignment, kRoom);
    return total_ <= kRoom;
  }

 private:
  static constexpr Bytes kRoom = std::numeric_limits<Bytes>::max() / 4;
  Bytes total_ = 0;
};

// Up to kSmallRange slots, on the stack.
struct SmallList {
  std::array<std::uint32_t, kSmallRange> at;
  std::size_t size = 0;
  const std::uint32_t* begin() const { return at.data(); }
  const std::uint32_t* end() const { return at.data() + size; }
  std::span<const std::uint32_t> span() const { return {at.data(), size}; }
  void Add(std::uint32_t k) { at[size++] = k; }
  // Puts `k` in, shifted from the end past those that `before` puts after it (equal ones
  // keep the order they came in).
  template <typename Before>
  void Insert(std::uint32_t k, Before before) {
    std::size_t i = size++;
    for (; i > 0 && before(k, at[i - 1]); --i) at[i] = at[i - 1];
    at[i] = k;
  }
};

// The bytes alive at `node` among the placements of `slots`, sizes rounded up to the
// alignment but the topmost (cpuplan::LiveBytesAt over a small range's placements only).
inline Bytes AliveAmong(const std::vector<Placement>& placement,
                        std::span<const std::uint32_t> slots, Bytes alignment, Step node) {
  LiveBytes alive(alignment);
  for (const std::uint32_t s : slots)
    if (placement[s].first <= node && node <= placement[s].last) alive.Add(placement[s].size);
  return alive.value();
}

// The two rules by which a tensor finds its offset among the placed ones alive with it,
// walked in offset order (cpuplan::PlaceByScan's, the same offsets).
enum class FitRule {
  kSmallestGap,  // greedy_by_size: the start of the smallest gap that holds it
  kTflite,       // SimpleMemoryArena: aligned candidate starts, the gap measured from the
                 // unaligned end before it, a perfect fit ends the walk
};

// A placed tensor as the fits walk it: its bytes and nodes side by side, in offset order on
// the stack (the walk reads them in a row, not through slots into the layout's placements).
struct PlacedSpan {
  Bytes offset;
  Bytes end;  // offset + size
  std::int32_t first;
  std::int32_t last;
};

// The placed tensors in offset order, equal offsets in the order they came.
class PlacedSpans {
 public:
  void Insert(const Placement& p) {
    const PlacedSpan span{p.offset, p.offset + p.size, p.first, p.last};
    std::size_t i = size_++;
    for (; i > 0 && span.offset < at_[i - 1].offset; --i) at_[i] = at_[i - 1];
    at_[i] = span;
  }
  const PlacedSpan* begin() const { return at_.data(); }
  const PlacedSpan* end() const { return at_.data() + size_; }

 private:
  std::array<PlacedSpan, kSmallRange> at_;
  std::size_t size_ = 0;
};

template <FitRule kRule>
Bytes FitAmong(const Placement& p, const PlacedSpans& placed, Bytes alignment) {
  Bytes best = kNoOffset, best_gap = kNoOffset, cursor = 0;
  for (const PlacedSpan& other : placed) {
    if (!AliveTogether(p, other)) continue;
    if constexpr (kRule == FitRule::kTflite) {
      const Bytes start = AlignUpFast(cursor, alignment);
      if (start + p.size <= other.offset && other.offset - start < best_gap) {
        best = start;
        best_gap = other.offset - cursor;
      }
      cursor = std::max(cursor, other.end);
      if (best_gap == 0) break;
    } else {
      if (other.offset >= cursor && other.offset - cursor >= p.size &&
          other.offset - cursor < best_gap) {
        best_gap = other.offset - cursor;
        best = cursor;
      }
      cursor = std::max(cursor, AlignUpFast(other.end, alignment));
    }
  }
  return best != kNoOffset ? best : AlignUpFast(cursor, alignment);
}

// Places the `to_place` placements in that order by `kRule`, each among the `held` ones (in
// range order) and those placed before it; of the held ones only those alive within the
// steps of the ones to place can meet one. Returns the highest end among the placed ones.
template <FitRule kRule>
Bytes PlaceInGaps(std::vector<Placement>& placement, std::span<const std::uint32_t> held,
                  const SmallList& to_place, Bytes alignment) {
  std::int32_t lo = std::numeric_limits<std::int32_t>::max(), hi = 0;
  for (const std::uint32_t slot : to_place) {
    lo = std::min(lo, placement[slot].first);
    hi = std::max(hi, placement[slot].last);
  }
  PlacedSpans placed;
  for (const std::uint32_t slot : held)
    if (placement[slot].first <= hi && lo <= placement[slot].last) placed.Insert(placement[slot]);
  Bytes high = 0;
  for (const std::uint32_t slot : to_place) {
    Placement& p = placement[slot];
    p.offset = FitAmong<kRule>(p, placed, alignment);
    high = std::max(high, p.offset + p.size);
    placed.Insert(p);
  }
  return high;
}

// The placement among those of `slots` (at least one) with the highest end, the first to
// reach it: its end is their arena.
inline const Placement& TopAmong(const std::vector<Placement>& placement, const SmallList& slots) {
  std::uint32_t top = slots.at[0];
  for (const std::uint32_t s : slots)
    if (placement[s].offset + placement[s].size > placement[top].offset + placement[top].size)
      top = s;
  return placement[top];
}

}  // namespace memplan::cpuplan
