#pragma once
// One arena of the CPU planner: a plan (the placements alive in a node range, sorted by
// offset, and a high-water mark) and a buffer that only grows while it is held. The
// placement rule is TensorFlow Lite's SimpleMemoryArena best fit (docs/cpu-planner.md).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "memplan/cpu_arena_planner.h"

namespace memplan::cpuplan {

// No last node: alive to the end of the run.
inline constexpr std::int32_t kEndOfRun = INT32_MAX;
// Commit's `keep` for a buffer whose whole old contents survive a growth.
inline constexpr Bytes kKeepAll = ~Bytes{0};

// Where a tensor sits in an arena over nodes [first, last] (both inclusive); size 0 = none.
// Kept per tensor (the index says which), 24 bytes: a layout per cached shape holds one per
// tensor, and a new layout's first touch of that memory is part of a fresh shape's time.
struct Placement {
  Bytes offset = 0;
  Bytes size = 0;
  std::int32_t first = -1;
  std::int32_t last = -1;
};

// Whether two placements' tensors are alive at one node (anything with a first and a last
// node: a Placement, the small fits' PlacedSpan). A last node of kEndOfRun (alive to the end
// of the run) is the largest of all: compared as it is.
template <typename A, typename B>
bool AliveTogether(const A& a, const B& b) {
  return a.first <= b.last && b.first <= a.last;
}

class SimpleArena {
 public:
  SimpleArena(bool persistent, Bytes alignment, std::function<void(const CpuBufferEvent&)> events);
  ~SimpleArena();  // frees the buffer (one event when it held one)
  SimpleArena(const SimpleArena&) = delete;
  SimpleArena& operator=(const SimpleArena&) = delete;

  // Best fit among the placements whose nodes intersect [first, last]; size 0 takes no
  // space and is not kept. UsageError for an alignment of 0 or above 64, InputError on
  // overflow.
  Placement Allocate(Bytes size, std::int32_t first, std::int32_t last, std::int32_t tensor);
  // Forgets the active placements (the high-water mark stays).
  void ClearActive() { active_.clear(); }
  // Forgets the active placements and the high-water mark (the buffer stays). Inline: every
  // ResetAllocations makes it twice, a cache hit's call among them.
  void ClearPlan() {
    active_.clear();
    high_water_ = 0;
  }
  // Drops the placements that end before `node`.
  void DropEndedBefore(std::int32_t node);
  // Drops the placements that start after `node`.
  void DropStartedAfter(std::int32_t node);
  // Replaces the active placements (sorted by offset here, ties in the given order).
  void SetActive(std::vector<Placement> placements);
  // Raises the high-water mark (a plan made elsewhere).
  void RaiseHighWater(Bytes bytes);
  void SetHighWater(Bytes bytes) { high_water_ = bytes; }

  // Grows the buffer to the high-water mark when it is smaller; true when the buffer was
  // allocated anew (so every pointer into it changed). The first `keep` bytes of the old
  // buffer (at most its size) are copied into the new one before the old one is freed:
  // the data at offsets the plan kept survives the growth.
  // Inline: a call whose buffer is large enough (most calls) costs a comparison.
  bool Commit(Bytes keep) {
    bytes_copied_ = 0;
    return WillGrow() && Grow(keep);
  }
  // Whether the next Commit allocates a new buffer.
  bool WillGrow() const { return high_water_ > buffer_bytes_; }
  // Frees the buffer (the plan stays).
  void Release();

  std::byte* base() const { return base_; }
  Bytes buffer_bytes() const { return buffer_bytes_; }
  Bytes high_water() const { return high_water_; }
  // The bytes the last Commit copied from the old buffer (0 when it did not grow).
  Bytes bytes_copied() const { return bytes_copied_; }

 private:
  // Commit's new buffer (always true).
  bool Grow(Bytes keep);

  // What a cache hit's calls touch first, in one line (ClearPlan, SetHighWater, Commit).
  std::vector<Placement> active_;  // sorted by offset
  Bytes high_water_ = 0;
  Bytes buffer_bytes_ = 0;
  Bytes bytes_copied_ = 0;
  std::byte* base_ = nullptr;  // memory_ aligned to 64 bytes
  bool persistent_;
  Bytes alignment_;
  std::function<void(const CpuBufferEvent&)> events_;
  std::unique_ptr<std::byte[]> memory_;
};

}  // namespace memplan::cpuplan
