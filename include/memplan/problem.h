#pragma once
// The planning problem: tensor usage records, an alignment and optional fixed offsets.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memplan {

// A size or an address, in bytes.
using Bytes = std::uint64_t;
// A position in the execution order (an operator index or a runtime scope).
using Step = std::int64_t;

// One tensor's need for memory: `size` bytes from step `first` to step `last`,
// both inclusive, as in TensorFlow Lite and TensorFlow Lite Micro.
struct UsageRecord {
  Bytes size = 0;  // bytes the tensor occupies; 0 takes no space
  Step first = 0;  // first step that writes or reads the tensor
  Step last = 0;   // last step that reads it; first <= last

  friend bool operator==(const UsageRecord&, const UsageRecord&) = default;
};

// Two records conflict when their inclusive intervals share a step.
inline bool Conflicts(const UsageRecord& a, const UsageRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Rounds `value` up to a multiple of `alignment` (alignment >= 1).
inline Bytes AlignUp(Bytes value, Bytes alignment) {
  return alignment <= 1 ? value : (value + alignment - 1) / alignment * alignment;
}

inline bool IsPowerOfTwo(Bytes value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// Whether `value` is a multiple of `alignment` (>= 1). A power of two (every runtime's
// alignment) is checked with a mask: a division costs tens of cycles, more than the rest of
// a small re-plan's check of a record.
inline bool IsAligned(Bytes value, Bytes alignment) {
  return IsPowerOfTwo(alignment) ? (value & (alignment - 1)) == 0 : value % alignment == 0;
}

// Everything a strategy needs to lay the records out.
struct Problem {
  // One record per tensor to plan; the index is the tensor's identity.
  std::vector<UsageRecord> records;
  // Every offset a strategy returns is a multiple of this (>= 1).
  Bytes alignment = 1;
  // Empty, or one entry per record: an offset the plan must keep (offline-planned
  // buffers), or nullopt to let the strategy choose. Fixed records may overlap each
  // other; every other record is placed clear of each fixed record it conflicts with.
  std::vector<std::optional<Bytes>> fixed_offsets;
  // Empty, or one name per record (tensor names); used in messages and reports.
  std::vector<std::string> names;

  std::size_t size() const { return records.size(); }
  bool IsFixed(std::size_t i) const { return !fixed_offsets.empty() && fixed_offsets[i]; }
  bool HasFixed() const;
  // The record's name, or "#i" when it has none.
  std::string NameOf(std::size_t i) const;
  // "name (size B, steps first..last)" for messages.
  std::string Describe(std::size_t i) const;
};

// Checks that a problem is well formed: first <= last, steps in [0, 2^62), alignment >= 1,
// fixed offsets aligned and per record, names per record, sizes that cannot overflow
// an arena (their sum plus alignment slack fits in 64 bits). Throws InputError naming
// the first bad record.
void Validate(const Problem& problem);

}  // namespace memplan
