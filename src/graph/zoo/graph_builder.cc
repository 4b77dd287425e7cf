#include "src/graph/zoo/graph_builder.h"

#include <fmt/format.h>

#include "memplan/error.h"

namespace memplan::graph::zoo {

GraphBuilder::GraphBuilder(std::string_view name) : source_(fmt::format("zoo:{}", name)) {
  subgraph_.name = std::string(name);
}

void ZooBug(std::string_view what) {
  throw InternalError(fmt::format("built-in model: {}", what));
}

TensorId GraphBuilder::AddTensor(std::string name, Shape shape, DataType type, bool is_constant) {
  std::uint64_t elements = 1;
  for (std::int64_t d : shape) {
    if (d < 0) ZooBug(fmt::format("{}: tensor {} has a negative dimension", source_, name));
    elements *= static_cast<std::uint64_t>(d);
  }
  Tensor t;
  t.name = std::move(name);
  t.type = type;
  t.shape = std::move(shape);
  t.bytes = TensorBytes(type, elements);
  t.is_constant = is_constant;
  subgraph_.tensors.push_back(std::move(t));
  return static_cast<TensorId>(subgraph_.tensors.size() - 1);
}

const Tensor& GraphBuilder::At(TensorId tensor) const {
  if (tensor < 0 || static_cast<std::size_t>(tensor) >= subgraph_.tensors.size())
    ZooBug(fmt::format("{}: no tensor {}", source_, tensor));
  return subgraph_.tensors[static_cast<std::size_t>(tensor)];
}

TensorId GraphBuilder::Input(std::string name, Shape shape, DataType type) {
  const TensorId id = AddTensor(std::move(name), std::move(shape), type, false);
  subgraph_.inputs.push_back(id);
  return id;
}

TensorId GraphBuilder::Constant(std::string name, Shape shape, DataType type) {
  return AddTensor(std::move(name), std::move(shape), type, true);
}

TensorId GraphBuilder::Op(std::string type, std::vector<TensorId> inputs, std::string name,
                          Shape shape, DataType out_type) {
  return MultiOp(std::move(type), std::move(inputs), {std::move(name)}, {std::move(shape)},
                 out_type)[0];
}

std::vector<TensorId> GraphBuilder::MultiOp(std::string type, std::vector<TensorId> inputs,
                                            const std::vector<std::string>& names,
                                            const std::vector<Shape>& shapes, DataType out_type) {
  if (names.size() != shapes.size() || names.empty())
    ZooBug(fmt::format("{}: {} needs one shape per output", source_, type));
  for (TensorId in : inputs) {
    if (in != -1) At(in);  // every input exists already; -1 = absent optional input
  }
  Operator op;
  op.type = std::move(type);
  op.name = names[0];
  op.inputs = std::move(inputs);
  for (std::size_t i = 0; i < names.size(); ++i)
    op.outputs.push_back(AddTensor(names[i], shapes[i], out_type, false));
  subgraph_.ops.push_back(std::move(op));
  return subgraph_.ops.back().outputs;
}

void GraphBuilder::Output(TensorId tensor) {
  At(tensor);
  subgraph_.outputs.push_back(tensor);
}

Shape GraphBuilder::ShapeOf(TensorId tensor) const {
  return At(tensor).shape;
}

DataType GraphBuilder::TypeOf(TensorId tensor) const {
  return At(tensor).type;
}

Graph GraphBuilder::Finish() && {
  Graph g;
  g.source = source_;
  g.format = "zoo";
  g.subgraphs.push_back(std::move(subgraph_));
  return g;
}

}  // namespace memplan::graph::zoo
