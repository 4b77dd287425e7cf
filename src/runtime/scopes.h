#pragma once
// Lifetimes as TFLM's AllocationInfoBuilder marks them (docs/tflm-facts.md, lifetimes): one global
// scope counter walked through subgraph 0 and, at control-flow ops, into the subgraphs they run.
// The runtime needs the scopes of tensors and of ops (scratch buffers live for their op's scope),
// so it marks them itself; the rules are the ones lifetimes.h's RecordsFromGraph applies for
// Accounting::kTflm.
#include <cstddef>
#include <vector>

#include "memplan/graph.h"

namespace memplan::runtime {

struct Scopes {
  std::vector<std::size_t> tensor_base;  // global index of each subgraph's tensor 0
  std::vector<std::size_t> op_base;      // global index of each subgraph's op 0
  std::vector<Step> first;               // per global tensor: first scope, -1 = unset
  std::vector<Step> last;                // per global tensor: last scope, -1 = unset
  std::vector<Step> op_first;            // per global op: its scope (outputs created)
  std::vector<Step> op_last;             // per global op: end of the subgraphs it runs
};

// Checks the graph's indices (InputError naming the op and tensor) and marks scopes.
Scopes MarkScopes(const Graph& graph);

}  // namespace memplan::runtime
