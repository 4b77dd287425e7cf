// The three-section arena. Positions are kept as integer addresses so that comparing
// and aligning them never forms an out-of-range pointer.
#include "memplan/arena.h"

#include <fmt/format.h>

#include <algorithm>

namespace memplan {

namespace {

std::uintptr_t AlignUpAddress(std::uintptr_t value, Bytes alignment) {
  const auto a = static_cast<std::uintptr_t>(alignment);
  return (value + a - 1) & ~(a - 1);
}

std::uintptr_t AlignDownAddress(std::uintptr_t value, Bytes alignment) {
  const auto a = static_cast<std::uintptr_t>(alignment);
  return value & ~(a - 1);
}

void CheckAlignment(Bytes alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw UsageError(fmt::format("arena alignment {} is not a power of two", alignment));
}

std::uintptr_t Address(const std::byte* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

// The buffer's start rounded up, but never past its end.
std::uintptr_t AlignedStart(std::span<std::byte> buffer, Bytes alignment) {
  const std::uintptr_t begin = Address(buffer.data());
  const std::uintptr_t end = begin + buffer.size();
  return std::min(AlignUpAddress(begin, alignment), end);
}

}  // namespace

ArenaAllocationLabel ArenaAllocationName(ArenaAllocation kind) {
  switch (kind) {
    case ArenaAllocation::kEvalTensorData:
      return {"TfLiteEvalTensor data", "allocations"};
    case ArenaAllocation::kPersistentTensorData:
      return {"Persistent TfLiteTensor data", "tensors"};
    case ArenaAllocation::kPersistentQuantizationData:
      return {"Persistent TfLiteTensor quantization data", "allocations"};
    case ArenaAllocation::kPersistentBufferData:
      return {"Persistent buffer data", "allocations"};
    case ArenaAllocation::kVariableBufferData:
      return {"TfLiteTensor variable buffer data", "allocations"};
    case ArenaAllocation::kNodeAndRegistration:
      return {"NodeAndRegistration struct", "NodeAndRegistration structs"};
    case ArenaAllocation::kOpData:
      return {"Operator runtime data", "OpData structs"};
    case ArenaAllocation::kCount:
      break;
  }
  return {"unknown", "allocations"};
}

ArenaTooSmall::ArenaTooSmall(const std::string& message, Bytes requested, Bytes available)
    : InputError(fmt::format("{}. Requested: {}, available {}, missing: {}", message, requested,
                             available, requested - available)),
      requested_(requested),
      available_(available) {}

ArenaTooSmall::ArenaTooSmall(const ArenaTooSmall& original, const std::string& more)
    : InputError(std::string(original.what()) + more),
      requested_(original.requested_),
      available_(original.available_) {}

Arena::Arena(std::span<std::byte> buffer, Bytes alignment)
    : alignment_(alignment), two_buffers_(false) {
  CheckAlignment(alignment);
  np_begin_ = AlignedStart(buffer, alignment);
  p_end_ = Address(buffer.data()) + buffer.size();
  np_end_ = p_end_;
  p_begin_ = np_begin_;
  head_ = temp_ = np_begin_;
  tail_ = p_end_;
}

Arena::Arena(std::span<std::byte> persistent, std::span<std::byte> non_persistent, Bytes alignment)
    : alignment_(alignment), two_buffers_(true) {
  CheckAlignment(alignment);
  np_begin_ = AlignedStart(non_persistent, alignment);
  np_end_ = Address(non_persistent.data()) + non_persistent.size();
  p_begin_ = Address(persistent.data());
  p_end_ = p_begin_ + persistent.size();
  head_ = temp_ = np_begin_;
  tail_ = p_end_;
}

Bytes Arena::capacity() const {
  if (!two_buffers_) return p_end_ - np_begin_;
  return (np_end_ - np_begin_) + (p_end_ - p_begin_);
}

std::uintptr_t Arena::NonPersistentLimit() const {
  return two_buffers_ ? np_end_ : tail_;
}

// Unlike TFLM, which checks the tail only against the head, the tail never grows into
// live temporary memory either.
std::uintptr_t Arena::PersistentLimit() const {
  return two_buffers_ ? p_begin_ : std::max(head_, temp_);
}

std::byte* Arena::head_start() const {
  return reinterpret_cast<std::byte*>(np_begin_);
}

Bytes Arena::head_bytes() const {
  return head_ - np_begin_;
}

void Arena::ResizeHead(Bytes size) {
  if (temp_ != head_) {
    throw UsageError(
        two_buffers_
            ? "ResetTempAllocations() is not called before ResizeBuffer()."
            : "Internal error: either buffer is not resizable or ResetTempAllocations() is not "
              "called before ResizeBuffer().");
  }
  const Bytes available = NonPersistentLimit() - np_begin_;
  if (size > available) throw ArenaTooSmall("Failed to resize buffer", size, available);
  requested_head_ = size;
  head_ = temp_ = np_begin_ + size;
  NotePeaks();
}

void Arena::ReserveHead(Bytes size) {
  reserved_head_ = std::max(reserved_head_, size);
  ResizeHead(reserved_head_);
}

Bytes Arena::AvailableMemory(Bytes alignment) const {
  const std::uintptr_t start = AlignUpAddress(temp_, alignment);
  const std::uintptr_t limit = AlignDownAddress(NonPersistentLimit(), alignment);
  return limit > start ? limit - start : 0;
}

std::byte* Arena::AllocateTemp(Bytes size, Bytes alignment) {
  CheckAlignment(alignment);
  const Bytes available = AvailableMemory(alignment);
  if (size > available) throw ArenaTooSmall("Failed to allocate temp memory", size, available);
  const std::uintptr_t start = AlignUpAddress(temp_, alignment);
  temp_ = start + size;
  ++temp_count_;
  temp_checksum_ ^= start;
  NotePeaks();
  return reinterpret_cast<std::byte*>(start);
}

void Arena::DeallocateTemp(std::byte* pointer) {
  if (temp_count_ == 0) throw UsageError("DeallocateTemp() called with no temp allocation held");
  --temp_count_;
  temp_checksum_ ^= Address(pointer);
}

void Arena::ResetTemp() {
  if (temp_count_ != 0 || temp_checksum_ != 0) {
    throw UsageError(fmt::format(
        "Number of allocated temp buffers: {}. Checksum passing status: {}. All temp buffers "
        "must be freed before calling ResetTempAllocations()",
        temp_count_, temp_checksum_ == 0 ? 1 : 0));
  }
  temp_ = head_;
}

std::byte* Arena::AllocatePersistent(Bytes size, Bytes alignment, ArenaAllocation kind,
                                     std::uint64_t count) {
  CheckAlignment(alignment);
  const std::uintptr_t limit = PersistentLimit();
  // Where the allocation would start; below `limit` (or below zero) it does not fit.
  const bool underflows = size > tail_;
  const std::uintptr_t start = underflows ? 0 : AlignDownAddress(tail_ - size, alignment);
  if (underflows || start < limit) {
    const Bytes missing = limit - start;
    throw ArenaTooSmall("Failed to allocate tail memory", size,
                        size > missing ? size - missing : 0);
  }
  ArenaTally& tally = tallies_[static_cast<std::size_t>(kind)];
  tally.requested += size;
  tally.used += tail_ - start;
  tally.count += count;
  tail_ = start;
  NotePeaks();
  return reinterpret_cast<std::byte*>(start);
}

Bytes Arena::NonPersistentUsedBytes() const {
  return std::max(head_, temp_) - np_begin_;
}

Bytes Arena::PersistentUsedBytes() const {
  return p_end_ - tail_;
}

Bytes Arena::UsedBytes() const {
  return NonPersistentUsedBytes() + PersistentUsedBytes();
}

void Arena::NotePeaks() {
  peak_used_ = std::max(peak_used_, UsedBytes());
  peak_temp_ = std::max<Bytes>(peak_temp_, temp_ - head_);
  peak_non_persistent_ = std::max(peak_non_persistent_, NonPersistentUsedBytes());
}

}  // namespace memplan
