// The shape signature and the layout cache of kMemplan (docs/cpu-planner.md, "The cache").
#include "src/cpuplan/layout_cache.h"

#include <algorithm>

namespace memplan::cpuplan {

void SignedTensors::Reset(const std::vector<CpuTensor>& tensors) {
  entry_.assign(tensors.size(), -1);
  tensor_.clear();
  for (std::size_t t = 0; t < tensors.size(); ++t)
    if (InArena(tensors[t].type)) Add(t);
}

void SignedTensors::Add(std::size_t tensor) {
  entry_[tensor] = static_cast<std::int32_t>(tensor_.size());
  tensor_.push_back(static_cast<std::int32_t>(tensor));
}

std::uint64_t ShapeSignature::Term(std::size_t entry, Bytes bytes, std::uint8_t type) {
  return Mix(Mix(entry) ^ Mix(bytes + 0x51ULL) ^ (std::uint64_t{type} << 56));
}

void ShapeSignature::Clear(std::size_t size) {
  size_ = size;
  const std::size_t words = size_ + (size_ + 3) / 4;
  words_.assign(words + words % 2, 0);
  high_.clear();
  hash_ = 0;
}

bool ShapeSignature::HighsEqual(const ShapeSignature& other) const {
  for (std::size_t e = 0; e < size_; ++e)
    if (bytes(e) >> 32 != other.bytes(e) >> 32) return false;
  return true;
}

void ShapeSignature::Reset(const std::vector<CpuTensor>& tensors,
                           const SignedTensors& signed_tensors) {
  Clear(signed_tensors.size());
  for (std::size_t e = 0; e < size_; ++e) {
    const CpuTensor& t = tensors[signed_tensors.tensor(e)];
    Set(e, t.bytes, t.type);
  }
}

void ShapeSignature::Set(std::size_t entry, Bytes bytes, CpuAllocationType type) {
  const auto code = static_cast<std::uint8_t>(type);
  std::uint8_t* types = Types();
  hash_ -= Term(entry, this->bytes(entry), types[entry]);
  words_[entry] = static_cast<Word>(bytes);
  const auto high = static_cast<Word>(bytes >> 32);
  if (high != 0 && high_.empty()) high_.assign(size_, 0);
  if (!high_.empty()) high_[entry] = high;
  types[entry] = code;
  hash_ += Term(entry, bytes, code);
}

void ShapeSignature::Append(Bytes bytes, CpuAllocationType type) {
  // The types move behind one more word: made again (a tensor joins the arena seldom).
  ShapeSignature before = *this;
  Clear(before.size_ + 1);
  for (std::size_t e = 0; e < before.size_; ++e) Set(e, before.bytes(e), before.type(e));
  Set(before.size_, bytes, type);
}

LayoutCache::LayoutCache(std::size_t capacity) : capacity_(capacity) {
  hashes_.reserve(std::min<std::size_t>(capacity_, 16));
  entries_.reserve(std::min<std::size_t>(capacity_, 16));
}

void LayoutCache::SetCapacity(std::size_t capacity) {
  capacity_ = capacity;
  Clear();
}

void LayoutCache::Clear() {
  hashes_.clear();
  entries_.clear();
  next_ = 0;
}

void LayoutCache::Insert(std::uint64_t hash, const LayoutKey& key,
                         LocalShared<const ShapeSignature> shapes,
                         LocalShared<const Layout> layout) {
  if (capacity_ == 0) return;
  Entry entry{key, {std::move(layout), std::move(shapes)}};
  if (entries_.size() < capacity_) {
    hashes_.push_back(static_cast<std::uint32_t>(hash));
    entries_.push_back(std::move(entry));
    return;
  }
  hashes_[next_] = static_cast<std::uint32_t>(hash);
  entries_[next_] = std::move(entry);
  next_ = (next_ + 1) % capacity_;
}

}  // namespace memplan::cpuplan
