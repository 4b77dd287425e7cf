#pragma once
// The walk over a graph's execution that TensorFlow Lite Micro's AllocationInfoBuilder
// performs: subgraph 0 from its inputs to its outputs, stepping into the subgraphs that
// control-flow ops call. Both accountings (lifetimes.h) are this walk with a different
// step counter.
#include <limits>
#include <vector>

#include "memplan/graph.h"
#include "memplan/lifetimes.h"

namespace memplan {

// A step no walk reaches: the tensor was never touched.
inline constexpr Step kUntouched = std::numeric_limits<Step>::min();

// When the walk first and last touched one tensor.
struct TouchMarks {
  Step first = kUntouched;  // set once, by the first touch that creates the tensor
  Step last = kUntouched;   // raised by every later use
};

struct WalkOptions {
  // TFLM's scope counter also advances when a subgraph is entered; the paper's op index
  // advances only per op.
  bool step_per_subgraph_entry = true;
  // The step before the first op (TFLM: 0, the scope of the graph inputs; ops: -1).
  Step start = 0;
  // TFLM creates a tensor only as a subgraph input or an op output (a tensor nobody
  // produces keeps first = -1); the paper's interval starts at any first touch.
  bool any_touch_creates = false;
};

struct WalkResult {
  std::vector<TouchMarks> marks;      // one per tensor of every subgraph, subgraph 0 first
  std::vector<std::size_t> first_of;  // first_of[s] = index in `marks` of subgraph s's tensor 0
  std::size_t op_visits = 0;          // ops run, counting a subgraph each time it is called
  // What each step of the walk runs: step_ops[k] is step options.start + 1 + k.
  std::vector<StepOp> step_ops;
};

// Walks a graph that passed ValidateGraph (iteratively: deep control flow cannot
// overflow the stack).
WalkResult WalkScopes(const Graph& graph, const WalkOptions& options);

}  // namespace memplan
