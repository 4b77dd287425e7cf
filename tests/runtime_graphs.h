#pragma once
// Small graphs for the runtime tests, built in code or from the conformance JSON's
// model descriptions (shared/conformance/tflm_allocation_info.json).
#include <nlohmann/json.hpp>
#include <vector>

#include "memplan/graph.h"

namespace memplan::testing {

// An int8 tensor of `bytes` bytes (shape [bytes]).
Tensor ByteTensor(std::string name, Bytes bytes, bool constant = false);

// ops[i] reads inputs and writes outputs (indices into `sizes`); tensor 0 is the
// graph input, the last tensor the graph output.
struct OpSpec {
  std::string type;                   // op type, e.g. "ADD"
  std::vector<std::int32_t> inputs;   // tensor indices
  std::vector<std::int32_t> outputs;  // tensor indices
};
Graph MakeGraph(const std::vector<Bytes>& sizes, const std::vector<OpSpec>& ops,
                std::vector<std::int32_t> inputs = {0}, std::vector<std::int32_t> outputs = {});

// A branchy graph: t0 -> t1, t0 -> t2, (t1, t2) -> t3, t3 -> t4, (t4, t1) -> t5, with
// sizes that make planners reuse memory.
Graph BranchGraph();

// A keyword-spotting-like graph: two SVDF ops with int16 variable state, then an FC.
Graph SvdfGraph();

// The conformance description {"subgraphs": [{"tensors": [{"bytes": N, "const": b}],
// "inputs", "outputs", "ops": [{"op", "inputs", "outputs", "intermediates",
// "subgraphs"}]}]}.
Graph GraphFromJson(const nlohmann::json& model);

}  // namespace memplan::testing
