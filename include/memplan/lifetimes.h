#pragma once
// From a graph to usage records, exactly as an inference runtime allocates them.
// Rules: TensorFlow Lite Micro's AllocationInfoBuilder (shared/reference/runtimes.md §2)
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
  // op indices); raw sizes.
  kIntermediatesOnly,
};

struct LifetimeOptions {
  Accounting accounting = Accounting::kTflm;
};

// The records of a graph, with the tensor each record stands for.
struct GraphRecords {
  Problem problem;                 // records in tensor order (subgraph by subgraph); names set
  std::vector<TensorRef> origins;  // origins[i] = the tensor behind record i
  std::size_t ops = 0;             // operators that run (all subgraphs)
};

// Derives the records. InputError naming the tensors when a tensor that needs planning
// has no static size (dynamic shapes, strings, custom ops with unknown outputs), with a
// hint on binding them (--dim / --shape).
GraphRecords RecordsFromGraph(const Graph& graph, const LifetimeOptions& options = {});

}  // namespace memplan
