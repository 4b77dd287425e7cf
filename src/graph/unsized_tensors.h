#pragma once
// The error for tensors that need memory but have no static size: which ones, why, and
// the shapes or dimensions that would size them (as remedies a front end can word).
#include <vector>

#include "memplan/graph.h"

namespace memplan {

// Throws InputErrorWithRemedies naming the graph's source, each tensor (up to a few) with
// the reason it has no size, and the shape bindings (or the batch dimension) that size them.
[[noreturn]] void ThrowUnsizedTensors(const Graph& graph, const std::vector<TensorRef>& tensors);

}  // namespace memplan
