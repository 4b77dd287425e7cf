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

// Whether tensor a goes before tensor b.
inline bool TfliteOrderBefore(std::int32_t a, std::int32_t b, const CpuGraph& graph,
                              const std::vector<std::int32_t>& alloc,
                              const std::vector<std::int32_t>& dealloc) {
  const bool wa = alloc[a] == 0 && dealloc[a] == kEndOfRun;
  const bool wb = alloc[b] == 0 && dealloc[b] == kEndOfRun;
  if (wa != wb) return wa;
  if (wa) return a < b;
  const Bytes sa = graph.tensors[a].bytes, sb = graph.tensors[b].bytes;
  if (sa != sb) return sa > sb;
  if (alloc[a] != alloc[b]) return alloc[a] < alloc[b];
  return a < b;
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
