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

inline void SortInTfliteOrder(std::vector<std::int32_t>& tensors, const CpuGraph& graph,
                              const std::vector<std::int32_t>& alloc,
                              const std::vector<std::int32_t>& dealloc) {
  auto whole_run = [&](std::int32_t t) { return alloc[t] == 0 && dealloc[t] == kEndOfRun; };
  std::sort(tensors.begin(), tensors.end(), [&](std::int32_t a, std::int32_t b) {
    const bool wa = whole_run(a), wb = whole_run(b);
    if (wa != wb) return wa;
    if (wa) return a < b;
    const Bytes sa = graph.tensors[a].bytes, sb = graph.tensors[b].bytes;
    if (sa != sb) return sa > sb;
    if (alloc[a] != alloc[b]) return alloc[a] < alloc[b];
    return a < b;
  });
}

// The same order for positions into `tensors` (sorts `positions`, leaves `tensors`).
inline void SortInTfliteOrder(std::vector<std::size_t>& positions,
                              const std::vector<std::int32_t>& tensors, const CpuGraph& graph,
                              const std::vector<std::int32_t>& alloc,
                              const std::vector<std::int32_t>& dealloc) {
  auto whole_run = [&](std::int32_t t) { return alloc[t] == 0 && dealloc[t] == kEndOfRun; };
  std::sort(positions.begin(), positions.end(), [&](std::size_t pa, std::size_t pb) {
    const std::int32_t a = tensors[pa], b = tensors[pb];
    const bool wa = whole_run(a), wb = whole_run(b);
    if (wa != wb) return wa;
    if (wa) return a < b;
    const Bytes sa = graph.tensors[a].bytes, sb = graph.tensors[b].bytes;
    if (sa != sb) return sa > sb;
    if (alloc[a] != alloc[b]) return alloc[a] < alloc[b];
    return a < b;
  });
}

}  // namespace memplan::cpuplan
