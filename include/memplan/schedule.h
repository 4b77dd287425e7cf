#pragma once
// Memory-aware operator order: a topological order of each subgraph's operators that
// keeps fewer bytes alive at once (docs/below-the-bound.md).
//
// Peak live bytes of an order: op i runs at step i+1; (sub)graph inputs live from step
// 0, outputs to the last step, every other planned tensor from its producer's step to
// its last reader's step, inclusive (TensorFlow Lite Micro's scopes). With in-place
// rules an output that shares a dying input adds nothing at its step.
//
// The search keeps the model's own order as a candidate and never returns anything
// worse: the op-local lower bound first (proves the file order optimal in O(n) on most
// models), then cheap candidates (list and depth-first orders), then the exact dynamic
// programme over scheduled sets with the best order so far as budget, per segment
// between cut operators; past a state cap or a time budget a beam search takes over
// and optimality is no longer claimed.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "memplan/graph.h"
#include "memplan/inplace.h"

namespace memplan {

struct OrderSearchOptions {
  // In-place rules applied while searching and evaluating; nullptr = none.
  const InPlaceRuleSet* inplace = nullptr;
  // Tensor sizes are rounded up to this (16 = TFLM's accounting, 1 = raw bytes).
  Bytes size_alignment = 1;
  // Subgraph 0's inputs and outputs take memory (TFLM); false = the intermediates-only
  // accounting, which leaves them to the caller.
  bool plan_entry_io = true;
  // States the exact search may keep in one segment before it gives up (beam search).
  std::size_t max_states = 1'000'000;
  // Wall time the exact search may take in one subgraph, in milliseconds; past it the
  // beam search takes over. 0 = no limit. The only source of nondeterminism: results
  // depend on it only when a search runs that long.
  double time_budget_ms = 500;
  // States kept per layer by the beam search.
  std::size_t beam_width = 256;
};

// The order found for one subgraph.
struct SubgraphOrder {
  std::vector<std::int32_t> order;  // op indices of the subgraph in the new order
  Bytes file_order_peak = 0;        // peak live bytes of the model's own order
  Bytes peak = 0;                   // peak live bytes of `order`
  Bytes lower_bound = 0;            // op-local bound: no order goes below it
  bool proven_optimal = false;      // no topological order has a lower peak
  bool changed = false;             // `order` differs from the file order
  std::string method;               // how it was found: "file order", "dp", "beam", ...
  std::size_t states = 0;           // states the exact search visited
  std::size_t segments = 0;         // independent segments between cut operators
};

struct OrderSearchResult {
  std::vector<SubgraphOrder> subgraphs;  // one per subgraph of the graph
  bool proven_optimal = false;           // every subgraph's order is proven optimal
  bool changed = false;                  // some subgraph's order changed
};

// Searches an order for every subgraph (each on its own; an operator that calls
// subgraphs counts their peak at its step). InputError for a graph whose operators
// are not in a topological order.
OrderSearchResult SearchOperatorOrder(const Graph& graph, const OrderSearchOptions& options = {});

// The graph with each subgraph's operators permuted into the orders found (tensors,
// inputs and outputs unchanged). Executing it is executing the new order.
Graph ReorderOperators(const Graph& graph, const OrderSearchResult& orders);

// Peak live bytes of subgraph `subgraph` run in `order` (the file order when empty)
// with `rules` (nullptr = none); InputError when `order` is not a topological order of
// all its operators.
Bytes PeakLiveBytes(const Graph& graph, std::size_t subgraph, std::span<const std::int32_t> order,
                    const InPlaceRuleSet* rules = nullptr, Bytes size_alignment = 1);

// The op-local lower bound of a subgraph: the largest of Σ inputs, Σ outputs and, per
// operator, the bytes of its inputs and outputs (a shareable output counted once).
Bytes OpLocalBound(const Graph& graph, std::size_t subgraph, const InPlaceRuleSet* rules = nullptr,
                   Bytes size_alignment = 1);

}  // namespace memplan
