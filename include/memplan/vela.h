#pragma once
// Models compiled by Arm's Vela for an Ethos-U NPU: the part the NPU runs is one `ethos-u`
// custom op, and Vela's OfflineMemoryAllocation metadata places the op's feature maps
// inside its scratch area on purpose (docs/tflm.md, "Vela-compiled models").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/graph.h"

namespace memplan {

// The custom code Vela gives the NPU op.
inline constexpr std::string_view kEthosUOp = "ethos-u";

// One ethos-u op's scratch area as the offline plan places it, and the tensors that live
// inside it. The op's inputs are [command stream, weights, scratch, fast scratch, input
// feature maps...]; the NPU reaches a feature map through the scratch area's base address,
// so Vela places the op's inputs and outputs within the scratch tensor's bytes, and the
// fast scratch at the same offset as the scratch: they overlap it, and each other, because
// Vela planned the NPU's use of them inside the one op.
struct VelaScratchArea {
  std::int32_t subgraph = 0;
  std::int32_t op = 0;       // the ethos-u op's index in its subgraph
  TensorRef scratch;         // input 2
  Bytes begin = 0, end = 0;  // the scratch tensor's bytes in the arena
  // The fast scratch (input 3) when the plan puts it at the scratch's offset, and the op's
  // feature maps (inputs from 4 on, outputs) whose bytes lie within [begin, end).
  std::vector<TensorRef> inside;
};

// The ethos-u ops whose scratch tensor has an offset in graph.fixed_offsets, with what
// lives inside each scratch area; empty for any other model. The graph must be valid.
std::vector<VelaScratchArea> VelaScratchAreas(const Graph& graph);

// "'in' [0, 3072) and 'out' [0, 16) live inside the scratch area 'sg_scratch' [0, 74464) of
// ethos-u op 0 (subgraph 0), where Vela placed them on purpose: the NPU addresses them
// inside it": the aliasing in plain words, for notes and reports.
std::string VelaScratchText(const Graph& graph, const VelaScratchArea& area);

}  // namespace memplan
