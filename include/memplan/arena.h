#pragma once
// A tensor arena as TensorFlow Lite Micro lays it out (docs/tflm-facts.md, the arena):
// one user buffer split into three sections, or two buffers (persistent and
// non-persistent memory apart, e.g. fast SRAM and slower RAM).
//
//   | HEAD (planned tensors) | TEMP (scoped, grows up) ... free ... | TAIL (persistent) |
//   lowest address                                                    highest address
//
// - Head: one resizable buffer at the (aligned) start, sized to the memory plan; it can
//   be resized only while no temporary allocation is held.
// - Temp: bump allocations above the head, released all together by ResetTemp(), which
//   fails while any is still held (a count and an address checksum, as TFLM).
// - Tail: persistent allocations from the top, never freed.
// Arena sizes are reported in TFLM's words when they do not suffice (ArenaTooSmall).

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "memplan/error.h"
#include "memplan/problem.h"

namespace memplan {

// TFLM's MicroArenaBufferAlignment().
inline constexpr Bytes kDefaultArenaAlignment = 16;

// What a tail allocation holds. The recording tallies each kind under the name TFLM's
// RecordingMicroAllocator prints for it (ArenaAllocationName).
enum class ArenaAllocation : int {
  kEvalTensorData,              // per-tensor runtime structs (TfLiteEvalTensor)
  kPersistentTensorData,        // tensor views kept for the application (graph I/O)
  kPersistentQuantizationData,  // quantization structs (memplan keeps none)
  kPersistentBufferData,        // kernel op data, scratch handles, subgraph tables
  kVariableBufferData,          // state of variable tensors
  kNodeAndRegistration,         // per-op structs (node + kernel)
  kOpData,                      // listed as in TFLM, where it is never filled either
  kCount,                       // number of kinds
};

// ("TfLiteEvalTensor data", "allocations"), ... : the name and the unit TFLM prints.
struct ArenaAllocationLabel {
  const char* name;  // e.g. "TfLiteEvalTensor data"
  const char* unit;  // e.g. "allocations"
};
ArenaAllocationLabel ArenaAllocationName(ArenaAllocation kind);

// Requested and used bytes of one kind of tail allocation.
struct ArenaTally {
  Bytes requested = 0;      // bytes asked for
  Bytes used = 0;           // bytes taken, alignment included
  std::uint64_t count = 0;  // things allocated (tensors, structs, buffers)
};

// A section of the arena has no room. The message is TFLM's, with the numbers:
// "Failed to allocate tail memory. Requested: 64, available 32, missing: 32".
class ArenaTooSmall : public InputError {
 public:
  ArenaTooSmall(const std::string& message, Bytes requested, Bytes available);
  // The same failure with more words after TFLM's (e.g. the size that would suffice).
  ArenaTooSmall(const ArenaTooSmall& original, const std::string& more);
  Bytes requested() const { return requested_; }
  Bytes available() const { return available_; }
  Bytes missing() const { return requested_ - available_; }

 private:
  Bytes requested_;  // bytes the failed allocation asked for
  Bytes available_;  // bytes the section had left
};

class Arena {
 public:
  // One buffer: head and temp from its start, tail from its end. The start is rounded
  // up to `alignment` (a power of two), which shrinks the usable size accordingly.
  explicit Arena(std::span<std::byte> buffer, Bytes alignment = kDefaultArenaAlignment);
  // Two buffers: the tail in `persistent`, head and temp in `non_persistent`.
  Arena(std::span<std::byte> persistent, std::span<std::byte> non_persistent,
        Bytes alignment = kDefaultArenaAlignment);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  Bytes alignment() const { return alignment_; }
  bool two_buffers() const { return two_buffers_; }
  // Usable bytes: both buffers after the start of the non-persistent one is aligned.
  Bytes capacity() const;

  // --- Head -------------------------------------------------------------------------
  // Where memory-plan offsets start (TFLM's GetOverlayMemoryAddress).
  std::byte* head_start() const;
  Bytes head_bytes() const;
  // Sets the head to `size` bytes. UsageError while a temp allocation is held;
  // ArenaTooSmall ("Failed to resize buffer. ...") when the room up to the tail is short.
  void ResizeHead(Bytes size);
  // The head every model sharing this arena needs: grows the head to the largest size
  // ever reserved (TFLM's ReserveNonPersistentOverlayMemory with its max_head).
  void ReserveHead(Bytes size);
  // The largest size ReserveHead has been asked for.
  Bytes reserved_head_bytes() const { return reserved_head_; }

  // --- Temp -------------------------------------------------------------------------
  // A scoped allocation above the head, aligned to `alignment`.
  std::byte* AllocateTemp(Bytes size, Bytes alignment);
  // Marks a temp allocation released; the memory returns at ResetTemp().
  void DeallocateTemp(std::byte* pointer);
  // Releases every temp allocation; UsageError (TFLM's message) while any is held.
  void ResetTemp();
  // Temp allocations made and not yet released.
  std::uint64_t temp_held() const { return temp_count_; }
  // Bytes a temp allocation aligned to `alignment` could take now.
  Bytes AvailableMemory(Bytes alignment) const;

  // --- Tail -------------------------------------------------------------------------
  // A persistent allocation from the top, tallied under `kind` (`count` things).
  std::byte* AllocatePersistent(Bytes size, Bytes alignment, ArenaAllocation kind,
                                std::uint64_t count = 1);

  // --- Accounting (TFLM's names) ----------------------------------------------------
  // max(head, temp) end minus the start: what TFLM reports as non-persistent use.
  Bytes NonPersistentUsedBytes() const;
  // Tail bytes.
  Bytes PersistentUsedBytes() const;
  // Sum of the two: TFLM's arena_used_bytes().
  Bytes UsedBytes() const;
  // The most the arena ever held at once, temporary memory included (which
  // arena_used_bytes() misses): the size an arena must have.
  Bytes PeakUsedBytes() const { return peak_used_; }
  // The largest temporary section ever (temp end minus head end).
  Bytes PeakTempBytes() const { return peak_temp_; }
  // The high-water mark of NonPersistentUsedBytes() (head and temp together).
  Bytes PeakNonPersistentBytes() const { return peak_non_persistent_; }
  // The tally of one kind of tail allocation.
  const ArenaTally& Tally(ArenaAllocation kind) const {
    return tallies_[static_cast<std::size_t>(kind)];
  }
  // Head bytes last asked for (TFLM's recording: requested head bytes).
  Bytes requested_head_bytes() const { return requested_head_; }

 private:
  std::uintptr_t NonPersistentLimit() const;
  std::uintptr_t PersistentLimit() const;
  void NotePeaks();

  Bytes alignment_;                   // alignment of the start and the default for allocations
  bool two_buffers_;                  // tail in a buffer of its own
  std::uintptr_t np_begin_;           // aligned start of the head (and of the single buffer)
  std::uintptr_t np_end_;             // end of the non-persistent buffer (two buffers only)
  std::uintptr_t p_begin_;            // start of the persistent buffer (two buffers only)
  std::uintptr_t p_end_;              // end of the buffer holding the tail
  std::uintptr_t head_;               // end of the head
  std::uintptr_t temp_;               // end of the temporary section
  std::uintptr_t tail_;               // start of the tail
  std::uint64_t temp_count_ = 0;      // temp allocations not yet released
  std::uintptr_t temp_checksum_ = 0;  // XOR of the addresses of those allocations
  Bytes reserved_head_ = 0;           // largest ReserveHead size
  Bytes requested_head_ = 0;          // size of the last ResizeHead
  Bytes peak_used_ = 0;               // high-water mark of UsedBytes()
  Bytes peak_temp_ = 0;               // high-water mark of temp_ - head_
  Bytes peak_non_persistent_ = 0;     // high-water mark of NonPersistentUsedBytes()
  std::array<ArenaTally, static_cast<std::size_t>(ArenaAllocation::kCount)> tallies_{};
};

}  // namespace memplan
