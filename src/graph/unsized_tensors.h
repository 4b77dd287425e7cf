#pragma once
// The message for tensors that need memory but have no static size: which ones, why,
// and the exact flags that bind them.
#include <vector>

#include "memplan/graph.h"

namespace memplan {

// Throws InputError naming the graph's source, each tensor (up to a few) with the reason
// it has no size, and ready-to-paste --shape / --dim flags.
[[noreturn]] void ThrowUnsizedTensors(const Graph& graph, const std::vector<TensorRef>& tensors);

// The name to type on a command line: as is when it is plain, else single-quoted.
std::string ShellWord(const std::string& word);

}  // namespace memplan
