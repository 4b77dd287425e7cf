#pragma once
// The orders in which greedy strategies place the online (not fixed) records.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "memplan/problem.h"
#include "src/offsets/placement.h"

namespace memplan::offsets {

// A sort key, compared field by field; the record index breaks the remaining ties
// (ascending unless a strategy folds it into `minor`). Use Descending() for fields
// sorted largest first.
struct OrderKey {
  std::uint64_t major = 0;   // compared first
  std::uint64_t middle = 0;  // then this
  std::uint64_t minor = 0;   // then this, then the record index
};
constexpr std::uint64_t Descending(std::uint64_t v) {
  return ~v;
}

// The online records sorted by key(i) (ties: lower index first). O(n log n).
template <class KeyOf>
std::vector<std::size_t> SortOnline(const Problem& problem, KeyOf&& key_of) {
  struct Keyed {
    OrderKey key;
    std::size_t index;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (!problem.IsFixed(i)) keyed.push_back({key_of(i), i});
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.key.major != b.key.major) return a.key.major < b.key.major;
    if (a.key.middle != b.key.middle) return a.key.middle < b.key.middle;
    if (a.key.minor != b.key.minor) return a.key.minor < b.key.minor;
    return a.index < b.index;
  });
  std::vector<std::size_t> order(keyed.size());
  for (std::size_t k = 0; k < keyed.size(); ++k) order[k] = keyed[k].index;
  return order;
}

// Steps a record lives (last - first + 1).
inline std::uint64_t Lifetime(const UsageRecord& r) {
  return static_cast<std::uint64_t>(r.last - r.first) + 1;
}

// Largest first, equal sizes in record order (TensorFlow Lite GPU greedy by size).
std::vector<std::size_t> SizeOrder(const Problem& problem);

// Largest size x lifetime first, then larger size.
std::vector<std::size_t> AreaOrder(const Problem& problem);

// Longest lifetime first, then larger size (XLA's temporal order).
std::vector<std::size_t> LifetimeOrder(const Problem& problem);

// Larger size first, then longer lifetime (XLA's spatial order).
std::vector<std::size_t> SizeThenLifetimeOrder(const Problem& problem);

// Earliest first step first, then record order (execution order).
std::vector<std::size_t> StartOrder(const Problem& problem);

// Earliest first step first, then larger size.
std::vector<std::size_t> StartThenSizeOrder(const Problem& problem);

// TensorFlow Lite Micro's order (tflm_greedy): sizes rounded up to the alignment,
// largest first, equal sizes in reverse record order.
std::vector<std::size_t> TflmOrder(const Problem& problem);

// TensorFlow Lite CPU's order (tflite_cpu): whole-run records (first step 0, last step
// the last of all) first by index, then the rest by size, largest first, equal sizes by
// earlier first step, then index.
std::vector<std::size_t> TfliteCpuOrder(const Problem& problem);

// TVM USMP's order (tvm_greedy): larger size first, ties by more conflicts, then index.
std::vector<std::size_t> TvmOrder(const Problem& problem);

// Steps by non-increasing breadth (live bytes; ties lower step first); at each step its
// not yet listed records by size, largest first (ties record order). docs/offsets.md,
// greedy_by_breadth. O(n log n + T log T) for T steps.
std::vector<std::size_t> BreadthOrder(const Problem& problem, const CompactSteps& steps);

}  // namespace memplan::offsets
