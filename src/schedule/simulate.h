#pragma once
// Live bytes of one order of a TensorGraph, step by step, with in-place overwrites
// taken whenever the order allows them; and the op-local lower bound.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "src/schedule/tensor_graph.h"

namespace memplan::schedule {

struct Simulation {
  Bytes step0 = 0;                // bytes at step 0 (the inputs)
  Bytes peak = 0;                 // max over step 0 and every op's step
  std::vector<Bytes> steps;       // per position in the order: bytes at that op's step
  std::vector<Bytes> live_after;  // per position: bytes alive after that op
  // Per op (by index): the candidate it overwrote (index into OpNode::candidates), or -1.
  std::vector<std::int32_t> overwrite;
};

// Runs `order` (every op once, dependencies respected: not checked here).
Simulation Simulate(const TensorGraph& g, std::span<const std::int32_t> order);

// InputError when `order` is not a topological order of all ops; `what` names the
// subgraph in the message.
void CheckTopological(const TensorGraph& g, std::span<const std::int32_t> order,
                      std::string_view what);

// An order of the non-deferred ops with each deferred op inserted right before its
// first reader (several before one reader in file order).
std::vector<std::int32_t> ExpandDeferred(const TensorGraph& g, std::span<const std::int32_t> order);

// Bytes an op's step holds whatever the order: its inputs, its outputs (a shareable
// output counted once) and its extra.
Bytes OpLocalBytes(const TensorGraph& g, std::int32_t op);

// Σ initial buffers (step 0), Σ pinned buffers (the last step), and every op's local
// bytes: the largest of them bounds every order's peak from below.
Bytes OpLocalBound(const TensorGraph& g);

// Σ sizes of buffers alive from step 0 / pinned to the end.
Bytes InitialBytes(const TensorGraph& g);
Bytes PinnedBytes(const TensorGraph& g);

}  // namespace memplan::schedule
