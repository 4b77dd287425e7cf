#pragma once
// One subgraph as the order search sees it: operators with their dependencies, and
// buffers (a planned tensor, or several tensors tied together by reshape-like aliases,
// which hold whatever the order) with their readers. In-place overwrites depend on the
// order and are decided later from each operator's candidate list.

#include <cstdint>
#include <span>
#include <vector>

#include "memplan/graph.h"
#include "memplan/inplace.h"

namespace memplan::schedule {

// Memory that lives from its producer's step to its last reader's step.
struct Buffer {
  Bytes size = 0;                     // bytes (rounded to the size alignment)
  std::int32_t producer = -1;         // the op creating it; -1 = alive from step 0
  std::vector<std::int32_t> readers;  // distinct ops reading any of its tensors
  bool pinned = false;                // holds a (sub)graph output: alive to the end
  std::int32_t root_tensor = -1;      // the tensor that owns it
};

// An input an operator may write its first output over, when the input dies there.
struct OverwriteCandidate {
  std::int32_t buffer = -1;  // the input's buffer
  std::int32_t tensor = -1;  // the input tensor itself
};

struct OpNode {
  std::vector<std::int32_t> preds;    // ops that must run first (data and state), distinct
  std::vector<std::int32_t> succs;    // the reverse edges
  std::vector<std::int32_t> reads;    // buffers read, distinct
  std::vector<std::int32_t> creates;  // buffers it produces (alias outputs excluded)
  // Overwrite: the buffer of the first output, and the inputs it may take over in rule
  // order (all static conditions checked); -1 / empty when the op never shares.
  std::int32_t share_output = -1;
  std::vector<OverwriteCandidate> candidates;
  // Alias: the first output joins this input's buffer (order-independent); -1 if not.
  std::int32_t alias_input = -1;
  // Reads no activation (weights only, e.g. DEQUANTIZE of a float16 constant): placed
  // right before its first reader, which never raises a step, so the search skips it.
  bool deferred = false;
  Bytes extra = 0;  // bytes alive during its step besides tensors (called subgraphs)
};

struct TensorGraph {
  std::vector<OpNode> ops;                 // in file order
  std::vector<Buffer> buffers;             // roots in tensor order
  std::vector<std::int32_t> buffer_of;     // per tensor: its buffer, -1 when not planned
  std::vector<std::int32_t> initial;       // buffers alive from step 0
  std::vector<std::int32_t> non_deferred;  // ops the search orders, in file order
};

// Builds the model of subgraph `subgraph`. `rules` may be nullptr (no sharing);
// `extra` is empty or one entry per op; without `plan_entry_io` the inputs and outputs of
// subgraph 0 take no memory (the intermediates-only accounting). InputError when an op
// reads a tensor a later op produces or a tensor has two producers.
TensorGraph BuildTensorGraph(const Graph& graph, std::size_t subgraph, const InPlaceRuleSet* rules,
                             Bytes size_alignment, std::span<const Bytes> extra = {},
                             bool plan_entry_io = true);

}  // namespace memplan::schedule
