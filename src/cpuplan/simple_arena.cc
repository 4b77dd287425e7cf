// The arena's best fit and buffer growth, as TensorFlow Lite's SimpleMemoryArena behaves
// (docs/cpu-planner.md, "Placement").
#include "src/cpuplan/simple_arena.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "memplan/error.h"

namespace memplan::cpuplan {

namespace {

// Buffers start on a 64-byte boundary (TensorFlow Lite's kDefaultArenaAlignment).
constexpr Bytes kBufferAlignment = 64;

bool Intersects(const Placement& p, std::int32_t first, std::int32_t last) {
  return p.first <= last && first <= p.last;
}

}  // namespace

SimpleArena::SimpleArena(bool persistent, Bytes alignment,
                         std::function<void(const CpuBufferEvent&)> events)
    : persistent_(persistent), alignment_(alignment), events_(std::move(events)) {}

SimpleArena::~SimpleArena() {
  Release();
}

Placement SimpleArena::Allocate(Bytes size, std::int32_t first, std::int32_t last,
                                std::int32_t tensor) {
  if (alignment_ == 0 || alignment_ > kBufferAlignment)
    throw UsageError(
        fmt::format("tensor alignment {} is not in 1..{}", alignment_, kBufferAlignment));
  if (size == 0) return Placement{0, 0, -1, -1};
  constexpr Bytes kNone = std::numeric_limits<Bytes>::max();
  Bytes cursor = 0;
  Bytes best = kNone;
  Bytes best_gap = kNone;
  for (const Placement& p : active_) {
    if (!Intersects(p, first, last)) continue;
    const Bytes aligned = AlignUp(cursor, alignment_);
    // The gap is kept as measured from the unaligned cursor, as TensorFlow Lite keeps it.
    if (aligned <= p.offset && size <= p.offset - aligned && p.offset - aligned < best_gap) {
      best = aligned;
      best_gap = p.offset - cursor;
    }
    cursor = std::max(cursor, p.offset + p.size);
    if (best_gap == 0) break;
  }
  const Bytes offset = best != kNone ? best : AlignUp(cursor, alignment_);
  if (offset > kNone - size)
    throw InputError(fmt::format("tensor {} of {} bytes overflows the arena", tensor, size));
  high_water_ = std::max(high_water_, offset + size);
  const Placement placed{offset, size, first, last};
  const auto at =
      std::upper_bound(active_.begin(), active_.end(), offset,
                       [](Bytes value, const Placement& p) { return value < p.offset; });
  active_.insert(at, placed);
  return placed;
}

void SimpleArena::DropEndedBefore(std::int32_t node) {
  std::erase_if(active_, [node](const Placement& p) { return p.last < node; });
}

void SimpleArena::DropStartedAfter(std::int32_t node) {
  std::erase_if(active_, [node](const Placement& p) { return p.first > node; });
}

void SimpleArena::SetActive(std::vector<Placement> placements) {
  std::stable_sort(placements.begin(), placements.end(),
                   [](const Placement& a, const Placement& b) { return a.offset < b.offset; });
  active_ = std::move(placements);
}

void SimpleArena::RaiseHighWater(Bytes bytes) {
  high_water_ = std::max(high_water_, bytes);
}

bool SimpleArena::Grow(Bytes keep) {
  // The new block is taken before the old one is freed, so it always moves.
  auto memory = std::make_unique_for_overwrite<std::byte[]>(high_water_ + kBufferAlignment);
  const auto raw = reinterpret_cast<std::uintptr_t>(memory.get());
  std::byte* base = memory.get() + (kBufferAlignment - raw % kBufferAlignment) % kBufferAlignment;
  const Bytes old = buffer_bytes_;
  // The buffer only grows, so the old size bounds what can be kept.
  bytes_copied_ = std::min(keep, old);
  if (bytes_copied_ > 0) std::memcpy(base, base_, bytes_copied_);
  memory_ = std::move(memory);
  base_ = base;
  buffer_bytes_ = high_water_;
  if (events_) {
    events_({persistent_, true, buffer_bytes_});
    if (old != 0) events_({persistent_, false, old});
  }
  return true;
}

void SimpleArena::Release() {
  if (!memory_) return;
  const Bytes old = buffer_bytes_;
  memory_.reset();
  base_ = nullptr;
  buffer_bytes_ = 0;
  if (events_ && old != 0) events_({persistent_, false, old});
}

}  // namespace memplan::cpuplan
