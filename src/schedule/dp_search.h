#pragma once
// The exact dynamic programme over scheduled sets (docs/below-the-bound.md, "The order
// search") for one segment: layer k holds, per set of k scheduled ops closed under
// predecessors, the lowest peak of any order of it. With in-place rules whether an op may
// overwrite an input depends only on that set (the input's other readers have all run or
// not), not on their order, so the programme stays exact. Pruned by a
// budget (only orders strictly below it are wanted) and by the op-local bound of the
// ops still to run; an op that raises neither the peak nor the live bytes is run at
// once (it never hurts). Past a state cap or a deadline the exact search stops; the
// same layers truncated to the best states make a beam search.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "src/schedule/tensor_graph.h"

namespace memplan::schedule {

struct SegmentTask {
  std::span<const std::int32_t> ops;  // the segment's non-deferred ops, in file order
  // Per op of the graph: its segment (-1 for deferred ops); the segment searched is
  // `index`, ops of lower segments have run, ops of higher ones have not.
  std::span<const std::int32_t> segment_of;
  std::int32_t index = 0;
  Bytes live_before = 0;  // bytes alive when the segment starts
  Bytes budget = 0;       // wanted: a segment peak strictly below this
};

struct SearchLimits {
  std::size_t max_states = 0;  // exact search: states kept in all layers together
  std::optional<std::chrono::steady_clock::time_point> deadline;  // exact search stops then
  std::size_t beam_width = 0;  // 0 = exact search; else states kept per layer
};

struct SegmentResult {
  bool completed = false;           // the search ran to the end (not stopped by a limit)
  bool found = false;               // an order below the budget exists (and is `order`)
  std::vector<std::int32_t> order;  // the segment's ops, best order found
  Bytes peak = 0;                   // its segment peak
  std::size_t states = 0;           // states kept over all layers
};

// Exact when limits.beam_width == 0 and the result is completed: then `found` false
// proves no order of the segment goes below the budget, and `found` true gives the
// optimum.
SegmentResult SearchSegment(const TensorGraph& g, const SegmentTask& task,
                            const SearchLimits& limits);

}  // namespace memplan::schedule
