#pragma once
// TensorFlow Lite Micro's GreedyMemoryPlanner::PrintMemoryPlan() output, byte for byte
// (docs/tflm-facts.md, the planners), computed from any offsets plan: a line per
// buffer, then an 80-column bar per step. For a tflm_greedy plan it is exactly what
// the runtime prints.

#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// The text, each line ending in '\n'. Records are buffers in record order.
std::string TflmMemoryPlanText(const Problem& problem, const std::vector<Bytes>& offsets);

// TFLM's buffer character: '0'-'9', 'a'-'z', 'A'-'Z' for ids 0..61, then modulo 62.
char TflmOrdinalCharacter(std::size_t id);

}  // namespace memplan
