#pragma once
// kMemplan's layouts and their cache. A layout is one main-arena plan: a placement per
// tensor. Layouts are immutable and shared, so switching to a cached one costs a pointer.
// The cache is keyed by the shape signature: the bytes and allocation type of every tensor
// that has been in an arena, with a hash kept up to date as tensors are resized
// (docs/cpu-planner.md).
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "src/cpuplan/local_shared.h"
#include "src/cpuplan/simple_arena.h"

namespace memplan::cpuplan {

// The tensors a shape signature holds: those of an arena type (main or persistent) at any
// time since the tables were made, in the order each first had one - the only tensors whose
// bytes a plan reads. A model's weights, most of its tensors, are left out, so a cache hit
// compares a fraction of the words (issue 32: after an inference each one is a fetch).
// Entries are only added - a tensor that leaves the arena keeps its own - so a signature
// made before an addition differs in size from every one made after.
class SignedTensors {
 public:
  void Reset(const std::vector<CpuTensor>& tensors);
  // The entry of `tensor`, or -1 where it never had an arena type.
  std::int32_t entry(std::size_t tensor) const { return entry_[tensor]; }
  // Gives `tensor` (without an entry) the next one.
  void Add(std::size_t tensor);
  std::size_t size() const { return tensor_.size(); }
  std::size_t tensor(std::size_t entry) const { return static_cast<std::size_t>(tensor_[entry]); }
  static bool InArena(CpuAllocationType type) {
    return type == CpuAllocationType::kArenaRw || type == CpuAllocationType::kArenaRwPersistent;
  }

 private:
  std::vector<std::int32_t> entry_;   // per tensor
  std::vector<std::int32_t> tensor_;  // per entry
};

// The signed tensors' bytes and types, and a hash of them updated in O(1) per change. Both
// live in one array of 32-bit words - the low half of each entry's bytes, then the types
// packed four to a word, padded to an even count - and the high halves apart, in an array
// that stays empty while every one is 0 (until a tensor of 4 GiB or more): a small model's
// tensors fit in 32 bits, and a signature of 25 entries then takes two or three cache lines
// instead of four or five (issue 32: a cache hit reads two signatures, each line a fetch from
// memory after an inference). A copy for the cache is one allocation (the high halves none
// while empty) and its comparison one pass.
class ShapeSignature {
 public:
  void Reset(const std::vector<CpuTensor>& tensors, const SignedTensors& signed_tensors);
  void Set(std::size_t entry, Bytes bytes, CpuAllocationType type);
  // A new last entry (SignedTensors::Add).
  void Append(Bytes bytes, CpuAllocationType type);
  std::uint64_t hash() const { return hash_; }
  std::size_t size() const { return size_; }
  Bytes bytes(std::size_t entry) const {
    return Bytes{words_[entry]} | (high_.empty() ? 0 : Bytes{high_[entry]} << 32);
  }
  CpuAllocationType type(std::size_t entry) const {
    return static_cast<CpuAllocationType>(Types()[entry]);
  }
  // The hashes, then every word, two at a time (the unused type bytes and the padding stay 0),
  // then the high halves where either has any. Inline, word by word: a cache hit's comparison
  // of a few dozen words, where a call into the C library's memcmp fetched four more code
  // lines than the loop takes (issue 32: after an inference each is a fetch).
  bool operator==(const ShapeSignature& other) const {
    if (hash_ != other.hash_ || size_ != other.size_) return false;
    const Word* a = words_.data();
    const Word* b = other.words_.data();
    std::uint64_t differ = 0;
    for (std::size_t i = 0; i < words_.size(); i += 2) {
      std::uint64_t x = 0, y = 0;
      std::memcpy(&x, a + i, sizeof x);
      std::memcpy(&y, b + i, sizeof y);
      differ |= x ^ y;
    }
    if (!high_.empty() || !other.high_.empty()) [[unlikely]]
      return differ == 0 && HighsEqual(other);
    return differ == 0;
  }

 private:
  using Word = std::uint32_t;
  static std::uint64_t Term(std::size_t entry, Bytes bytes, std::uint8_t type);
  // Room for `size` entries, every one 0 (the hash too).
  void Clear(std::size_t size);
  bool HighsEqual(const ShapeSignature& other) const;
  // The types, a byte per entry, in the words after the bytes (bytes may alias any object).
  std::uint8_t* Types() { return reinterpret_cast<std::uint8_t*>(words_.data() + size_); }
  const std::uint8_t* Types() const {
    return reinterpret_cast<const std::uint8_t*>(words_.data() + size_);
  }
  std::vector<Word> words_;
  std::vector<Word> high_;  // per entry once any entry's bytes reach 2^32; else empty
  std::size_t size_ = 0;
  std::uint64_t hash_ = 0;
};

struct Layout {
  std::uint64_t id = 0;              // derived from how it was made; equal ids, equal layouts
  std::vector<Placement> placement;  // per tensor; size 0 = none
  Bytes high_water = 0;
  CpuTfliteCheck check = CpuTfliteCheck::kNone;  // why it is no larger than TensorFlow Lite's
  std::int64_t peak_step = -1;  // a node where its lower bound is reached, when known (-1)
  // The shapes it was made for, when the log and the cache took them from it (shared through
  // the layout: one allocation for both); else empty.
  ShapeSignature shapes;
};

// What a node-range call was asked with: the range, the layout it started from (0 when
// the range starts at node 0: nothing before it matters), the calls since the last reset
// (TfliteShadow::path: what TensorFlow Lite's planner would hold) and the shapes.
struct LayoutKey {
  std::int32_t first = 0;
  std::int32_t last = 0;
  std::uint64_t base = 0;
  std::uint64_t path = 0;
};

// A cached layout and the shapes it was made for (shared with the call log).
struct CachedLayout {
  LocalShared<const Layout> layout;
  LocalShared<const ShapeSignature> shapes;
};

class LayoutCache {
 public:
  // Room for up to 16 entries is taken here, with the planner, not by its first plans.
  explicit LayoutCache(std::size_t capacity = 0);
  void SetCapacity(std::size_t capacity);
  void Clear();
  // The layout made for this key and these shapes, or nullptr; `hash` receives
  // Hash(key, shapes) for the Insert that follows a miss. Inline: a cache hit's code.
  const CachedLayout* Find(const LayoutKey& key, const ShapeSignature& shapes,
                           std::uint64_t& hash) const {
    hash = Hash(key, shapes);
    const auto low = static_cast<std::uint32_t>(hash);
    for (std::size_t i = 0; i < hashes_.size(); ++i) {
      if (hashes_[i] != low) continue;
      const Entry& e = entries_[i];
      if (e.key.first == key.first && e.key.last == key.last && e.key.base == key.base &&
          e.key.path == key.path && *e.value.shapes == shapes) [[likely]]
        return &e.value;
    }
    return nullptr;
  }
  // Keeps it, dropping the oldest entry beyond the capacity (`hash`: Hash(key, *shapes)).
  void Insert(std::uint64_t hash, const LayoutKey& key, LocalShared<const ShapeSignature> shapes,
              LocalShared<const Layout> layout);
  std::size_t size() const { return entries_.size(); }
  static std::uint64_t Hash(const LayoutKey& key, const ShapeSignature& shapes);

 private:
  // 56 bytes, a line each: a hit reads one line of the ring, not two.
  struct alignas(64) Entry {
    LayoutKey key;
    CachedLayout value;
  };
  // A ring of at most capacity_ entries and their hashes side by side: a lookup scans the
  // hashes (a few dozen words, faster than a hash table's probe for so few), and an insert
  // allocates nothing once the ring is full - a fresh shape should not pay for a node. The
  // hashes' low halves only: sixteen in a line, and a match is compared in full anyway.
  std::size_t capacity_;
  std::vector<std::uint32_t> hashes_;
  std::vector<Entry> entries_;
  std::size_t next_ = 0;  // the slot the next insert overwrites once full (the oldest)
};

// A 64-bit mix (splitmix64's finaliser), for hashes and layout ids; inline, as a cached
// shape's lookup is a handful of them.
inline std::uint64_t Mix(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

// One mix of everything, each part multiplied by an odd constant of its own first: a lookup
// per call should cost little (issue 32), and the entry's key and shapes are compared in full
// on a match.
inline std::uint64_t LayoutCache::Hash(const LayoutKey& key, const ShapeSignature& shapes) {
  const std::uint64_t range =
      static_cast<std::uint64_t>(key.first) << 32 ^ static_cast<std::uint32_t>(key.last);
  return Mix(shapes.hash() ^ range * 0xff51afd7ed558ccdULL ^ key.base * 0x9e3779b97f4a7c15ULL ^
             (key.path + 13) * 0xc2b2ae3d27d4eb4fULL);
}

}  // namespace memplan::cpuplan
