#pragma once
// Plain O(n^2) versions of the offset strategies, written straight from the peers'
// behaviour as docs/offsets.md states it ("How each strategy places a record"; every
// placed record walked in offset order for each new one), so tests can check that
// memplan's indexed versions give identical offsets.
#include <vector>

#include "memplan/problem.h"

namespace memplan::reference {

// How a record picks its offset among the placed records it conflicts with.
enum class Rule {
  kSmallestGap,  // TensorFlow Lite GPU best fit (docs/offsets.md, greedy_by_size)
  kLowestGap,    // first fit over the same aligned gaps (tflm_greedy)
  kArena,        // TensorFlow Lite CPU SimpleMemoryArena::Allocate (tflite_cpu)
  kAboveAll,     // TVM: above the highest conflict (tvm_greedy)
};

// Fixed records first (record order), then `order`, each placed by walking every placed
// record in offset order (equal offsets in placement order). Zero-size records are
// placed but forgotten under kArena, as SimpleMemoryArena does.
std::vector<Bytes> PlaceByWalking(const Problem& problem, const std::vector<std::size_t>& order,
                                  Rule rule);

std::vector<Bytes> GreedyBySize(const Problem& problem);
// TensorFlow Lite Micro GreedyMemoryPlanner, step by step: offline buffers first, the
// online ones listed from the back and bubble-sorted by size (stable), sizes rounded up
// to the alignment, first fit with the running end.
std::vector<Bytes> TflmGreedy(const Problem& problem);
std::vector<Bytes> TfliteCpu(const Problem& problem);
std::vector<Bytes> GreedyInOrder(const Problem& problem);
// Breadths and profiles computed per step over the original steps.
std::vector<Bytes> GreedyByBreadth(const Problem& problem);
std::vector<Bytes> XlaSpatial(const Problem& problem);
std::vector<Bytes> XlaTemporal(const Problem& problem);
std::vector<Bytes> TvmGreedy(const Problem& problem);
// The skyline heuristic over every original step 0..max(last), one step at a time.
std::vector<Bytes> StripPacking(const Problem& problem);

}  // namespace memplan::reference
