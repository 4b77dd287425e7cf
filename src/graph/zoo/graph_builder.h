#pragma once
// A small helper to write a model down as a Graph: tensors with shapes and types, and
// operators in execution order. layers.h builds on it with shape rules per op type.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/graph.h"

namespace memplan::graph::zoo {

using Shape = std::vector<std::int64_t>;
// Index of a tensor in the graph being built.
using TensorId = std::int32_t;

class GraphBuilder {
 public:
  // `name` is the zoo name; the graph's source becomes "zoo:NAME".
  explicit GraphBuilder(std::string_view name);

  // A graph input (an activation the caller provides).
  TensorId Input(std::string name, Shape shape, DataType type = DataType::kFloat32);
  // A constant (weights, shapes, permutations): data in a real model, none here.
  TensorId Constant(std::string name, Shape shape, DataType type = DataType::kFloat32);
  // An operator of TensorFlow Lite type `type` reading `inputs` and writing one new
  // tensor called `name`; returns that tensor.
  TensorId Op(std::string type, std::vector<TensorId> inputs, std::string name, Shape shape,
              DataType out_type = DataType::kFloat32);
  // The same with several outputs (SPLIT), all of type `out_type`.
  std::vector<TensorId> MultiOp(std::string type, std::vector<TensorId> inputs,
                                const std::vector<std::string>& names,
                                const std::vector<Shape>& shapes,
                                DataType out_type = DataType::kFloat32);
  // Marks a tensor as a graph output.
  void Output(TensorId tensor);

  // A copy: adding tensors may move the stored ones.
  Shape ShapeOf(TensorId tensor) const;
  DataType TypeOf(TensorId tensor) const;
  // The finished graph (one subgraph, format "zoo").
  Graph Finish() &&;

 private:
  TensorId AddTensor(std::string name, Shape shape, DataType type, bool is_constant);
  const Tensor& At(TensorId tensor) const;

  Subgraph subgraph_;   // the graph's only subgraph, growing op by op
  std::string source_;  // "zoo:NAME"
};

// Throws InternalError "zoo:NAME: what" when a model is written down wrongly (a bug in
// the zoo, never the user's input).
[[noreturn]] void ZooBug(std::string_view what);

}  // namespace memplan::graph::zoo
