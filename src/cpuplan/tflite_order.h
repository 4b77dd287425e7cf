#pragma once
// TensorFlow Lite's placement order for the tensors a node range places: whole-run
// tensors (first node 0, no last node) first by index, then larger first, then earlier
// first node, then index (docs/cpu-planner.md).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "memplan/cpu_arena_planner.h"
#include "src/cpuplan/simple_arena.h"

namespace memplan::cpuplan {

// What TensorFlow Lite's order compares of a tensor: alive for the whole run (first node 0,
// no last node), its bytes, its first node and its index.
struct TfliteOrderKey {
  bool whole_run;
  Bytes bytes;
  std::int32_t first;
  std::int32_t index;
};

// The key of a tensor alive over nodes first..last (kEndOfRun: to the end of the run).
inline TfliteOrderKey TfliteOrderKeyOf(std::int32_t first, std::int32_t last, Bytes bytes,
                                       std::int32_t index) {
  return {first == 0 && last == kEndOfRun, bytes, first, index};
}

inline bool TfliteOrderBefore(const TfliteOrderKey& a, const TfliteOrderKey& b) {
  if (a.whole_run != b.whole_run) return a.whole_run;
  if (a.whole_run) return a.index < b.index;
  if (a.bytes != b.bytes) return a.bytes > b.bytes;
  if (a.first != b.first) return a.first < b.first;
  return a.index < b.index;
}

// The same order as two words compared in turn, for keys whose bytes are below 2^62 (a small
// range's are: SmallRoom) and whose first node and index are not negative: sorting a small
// range by them is two compares a step where the key's rules branch field by field.
struct TfliteRank {
  std::uint64_t high;  // whole-run tensors: the index; the others: 2^63 + (2^62 - 1 - bytes)
  std::uint64_t low;   // the others: first node, then index (32 bits each)
};

inline TfliteRank TfliteRankOf(const TfliteOrderKey& key) {
  if (key.whole_run) return {static_cast<std::uint64_t>(key.index), 0};
  return {(std::uint64_t{1} << 63) | ((std::uint64_t{1} << 62) - 1 - key.bytes),
          static_cast<std::uint64_t>(static_cast<std::uint32_t>(key.first)) << 32 |
              static_cast<std::uint32_t>(key.index)};
}

inline bool TfliteRankBefore(const TfliteRank& a, const TfliteRank& b) {
  return a.high != b.high ? a.high < b.high : a.low < b.low;
}

// Whether tensor a goes before tensor b.
inline bool TfliteOrderBefore(std::int32_t a, std::int32_t b, const CpuGraph& graph,
                              const std::vector<std::int32_t>& alloc,
                              const std::vector<std::int32_t>& dealloc) {
  const auto key = [&](std::int32_t t) {
    return TfliteOrderKeyOf(alloc[t], dealloc[t], graph.tensors[t].bytes, t);
  };
  return TfliteOrderBefore(key(a), key(b));
}

inline void SortInTfliteOrder(std::vector<std::int32_t>& tensors, const CpuGraph& graph,
                              const std::vector<std::int32_t>& alloc,
                              const std::vector<std::int32_t>& dealloc) {
  std::sort(tensors.begin(), tensors.end(), [&](std::int32_t a, std::int32_t b) {
    return TfliteOrderBefore(a, b, graph, alloc, dealloc);
  });
}

// The same order for positions into `tensors` (sorts `positions`, leaves `tensors`).
inline void SortInTfliteOrder(std::vector<std::size_t>& positions,
                              const std::vector<std::int32_t>& tensors, const CpuGraph& graph,
                              const std::vector<std::int32_t>& alloc,
                              const std::vector<std::int32_t>& dealloc) {
  std::sort(positions.begin(), positions.end(), [&](std::size_t pa, std::size_t pb) {
    return TfliteOrderBefore(tensors[pa], tensors[pb], graph, alloc, dealloc);
  });
}

}  // namespace memplan::cpuplan
