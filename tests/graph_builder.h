#pragma once
// Builds small graphs for tests, subgraph by subgraph:
//   GraphBuilder b;
//   auto x = b.Tensor("x", 48), w = b.Constant("w", 8), y = b.Tensor("y", 48);
//   b.Inputs({x}).Outputs({y}).Op("FULLY_CONNECTED", {x, w}, {y});
//   memplan::Graph g = b.Build();
#include <cstdint>
#include <string>
#include <vector>

#include "memplan/graph.h"

namespace memplan::testing {

class GraphBuilder {
 public:
  GraphBuilder();  // starts with subgraph 0

  // Starts the next subgraph; later calls add to it.
  GraphBuilder& NextSubgraph();

  // A tensor of `bytes` int8 elements (shape [bytes]); returns its index.
  std::int32_t Tensor(const std::string& name, std::int64_t bytes);
  // A tensor of a given type and shape (sizes computed as the readers do).
  std::int32_t Typed(const std::string& name, DataType type, std::vector<std::int64_t> shape);
  // A constant (weights) of `bytes` int8 elements.
  std::int32_t Constant(const std::string& name, std::int64_t bytes);
  // A variable (persistent state) of `bytes` int8 elements.
  std::int32_t Variable(const std::string& name, std::int64_t bytes);
  // A tensor with no static size: shape [] and unknown rank (a custom op's output).
  std::int32_t Unsized(const std::string& name, DataType type = DataType::kFloat32);

  GraphBuilder& Inputs(std::vector<std::int32_t> tensors);
  GraphBuilder& Outputs(std::vector<std::int32_t> tensors);
  // Appends an op; `called` are the subgraphs it runs (IF then/else, WHILE cond/body).
  GraphBuilder& Op(const std::string& type, std::vector<std::int32_t> inputs,
                   std::vector<std::int32_t> outputs, std::vector<std::int32_t> called = {},
                   std::vector<std::int32_t> intermediates = {});

  // The tensor just added, to adjust fields the helpers do not set.
  memplan::Tensor& Last();

  Graph Build() const { return graph_; }

 private:
  Subgraph& Current() { return graph_.subgraphs.back(); }
  Graph graph_;
};

// A small float model for command tests: in [1,8,8,3] -> CONV_2D(in, w) -> a -> RELU -> b
// -> ADD(a, b) -> out, all [1,8,8,4] after the convolution.
Graph ConvReluAddChain();

// A model as Vela writes it (docs/tflm.md, "Vela-compiled models"): one `op` (ethos-u) custom
// op reading [command stream, weights, scratch, fast scratch, input] and writing the output;
// the offline plan puts the scratch and the fast scratch at 0 and the input and the output at
// `input_at`/`output_at`, inside the scratch's 1024 bytes, on purpose. `custom_options`: the
// op's (Vela writes a flexbuffer, {1, 4, 1}); none when empty.
std::string VelaLikeModel(const std::string& op = "ethos-u", std::int32_t input_at = 0,
                          std::int32_t output_at = 0,
                          std::vector<std::uint8_t> custom_options = {});

}  // namespace memplan::testing
