#pragma once
// From a graph to usage records, exactly as an inference runtime allocates them.
// Rules: TensorFlow Lite Micro's AllocationInfoBuilder (docs/tflm-facts.md, lifetimes)
// by default; the intermediates-only accounting of the TensorFlow Lite memory paper
// (Pisarchyk & Lee) on request.

#include <cstddef>
#include <vector>

#include "memplan/graph.h"
#include "memplan/problem.h"

namespace memplan {

enum class Accounting {
  // What a TensorFlow Lite Micro arena holds: graph inputs from scope 0, op i at scope
  // i+1, outputs alive to the end, control flow stepping into called subgraphs, sizes
  // rounded up to 16 bytes; constants, variables and zero-size tensors left out.
  kTflm,
  // Graph inputs and outputs left out; interval from producer to last consumer (0-based
  // op indices); raw sizes. Constants, variables, empty and untouched tensors left out.
  kIntermediatesOnly,
};

struct LifetimeOptions {
  Accounting accounting = Accounting::kTflm;
};

// TensorFlow Lite Micro's AllocationInfo entry for one tensor.
struct TensorLifetime {
  Step first = -1;  // the scope that creates it; -1 = never set
  Step last = -1;   // the last scope that uses it; -1 = never set
  // TFLM plans it in the arena: no data, not a variable (unless it has an offline
  // offset), not empty. Tensors of unknown size count as not empty.
  bool needs_allocating = false;
};

// What runs at one step of a graph's records: an op, a subgraph being entered (TFLM
// counts a scope for it), or nothing (the graph inputs' scope 0).
struct StepOp {
  std::int32_t subgraph = -1;  // the subgraph it runs in; -1 = no op runs at this step
  std::int32_t op = -1;        // the op's index in that subgraph; -1 = the subgraph is entered
  friend bool operator==(const StepOp&, const StepOp&) = default;
};

// One entry per tensor of every subgraph (all of subgraph 0, then 1, ...), marked
// exactly as TFLM's AllocationInfoBuilder marks them (docs/tflm-facts.md, lifetimes).
// InputError for a graph that fails ValidateGraph.
std::vector<TensorLifetime> TflmLifetimes(const Graph& graph);

// The records of a graph, with the tensor each record stands for.
struct GraphRecords {
  Problem problem;                 // records in tensor order (subgraph by subgraph); names set
  std::vector<TensorRef> origins;  // origins[i] = the tensor behind record i
  std::size_t ops = 0;             // operators that run (all subgraphs, each time called)
  // Added to every TFLM scope to make the records' steps: 1 when some planned tensor is
  // never created (TFLM hands the planner the time -1, e.g. an unused tensor), else 0.
  Step step_shift = 0;
  // step_ops[s]: what runs at step s of the records (s = 0 .. the last step of the walk),
  // so pictures can name the op at each step.
  std::vector<StepOp> step_ops = {};
};

// Derives the records. InputError naming the tensors when a tensor that needs planning
// has no static size (dynamic shapes, strings, custom ops with unknown outputs), with a
// hint on binding them (--dim / --shape). In the TFLM accounting the graph's fixed
// offsets (offline plan) become the problem's fixed offsets, and the alignment is 16.
GraphRecords RecordsFromGraph(const Graph& graph, const LifetimeOptions& options = {});

}  // namespace memplan
