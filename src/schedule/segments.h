#pragma once
// Divide and conquer at cut operators: an op that every other op precedes or follows
// (a cell boundary). Every order runs the ops before a cut, then the cut, then the
// rest, and what is alive right after a cut does not depend on the order, so the
// segments between cuts are ordered independently and the peak is the largest of
// theirs.

#include <cstdint>
#include <vector>

#include "src/schedule/tensor_graph.h"

namespace memplan::schedule {

struct Segments {
  // Non-deferred ops of each segment in file order; a segment ends with its cut.
  std::vector<std::vector<std::int32_t>> ops;
  // Per op: its segment; a deferred op gets -1.
  std::vector<std::int32_t> segment_of;
};

// Splits the non-deferred ops at every cut (one segment when the graph has more than
// `max_ops` of them: the reachability sets would cost too much memory).
Segments SplitAtCuts(const TensorGraph& g, std::size_t max_ops = 16384);

}  // namespace memplan::schedule
