#pragma once
// Cheap orders of the non-deferred ops, tried before the exact search; the best of them
// is its budget (docs/below-the-bound.md).

#include <cstdint>
#include <vector>

#include "src/schedule/tensor_graph.h"

namespace memplan::schedule {

// XLA's list scheduler: among ready ops, the one freeing the most bytes net of what it
// creates; ties to the earlier op in the file.
std::vector<std::int32_t> ListOrder(const TensorGraph& g);

// Post-order depth-first from the ops nothing depends on. With `by_need`, Glow's rule:
// inputs first whose subtree needs the most memory beyond its result (Sethi-Ullman);
// otherwise inputs in their order.
std::vector<std::int32_t> DepthFirstOrder(const TensorGraph& g, bool by_need);

}  // namespace memplan::schedule
