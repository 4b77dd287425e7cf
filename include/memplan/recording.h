#pragma once
// A report of every arena allocation, in the line format of TFLM's
// RecordingMicroAllocator::PrintAllocations (docs/tflm-facts.md, the recording allocator), followed
// by what TFLM's arena_used_bytes() misses: the true peak with temporary and planning memory, the
// plan and what preallocated tensors saved.

#include <string>

#include "memplan/arena.h"
#include "memplan/runtime.h"

namespace memplan {

// "[RecordingMicroAllocator] Arena allocation total N bytes", head, tail, then one line
// per kind of tail allocation that used or requested any bytes.
std::string PrintAllocations(const Arena& arena);

// "[memplan] ..." lines: the true peak, the temporary peak, the model's plan and its
// preallocation savings.
std::string PrintRuntimeSummary(const Arena& arena, const Interpreter& interpreter);

}  // namespace memplan
