#include "tests/graph_builder.h"

#include "memplan/tflite.h"

namespace memplan::testing {

GraphBuilder::GraphBuilder() {
  graph_.source = "test graph";
  graph_.format = "test";
  graph_.subgraphs.emplace_back();
}

GraphBuilder& GraphBuilder::NextSubgraph() {
  graph_.subgraphs.emplace_back();
  return *this;
}

std::int32_t GraphBuilder::Typed(const std::string& name, DataType type,
                                 std::vector<std::int64_t> shape) {
  memplan::Tensor t;
  t.name = name;
  t.type = type;
  t.shape = std::move(shape);
  if (const auto n = ShapeElements(t.shape)) t.bytes = TensorBytes(type, *n);
  Current().tensors.push_back(std::move(t));
  return static_cast<std::int32_t>(Current().tensors.size() - 1);
}

std::int32_t GraphBuilder::Tensor(const std::string& name, std::int64_t bytes) {
  return Typed(name, DataType::kInt8, {bytes});
}

std::int32_t GraphBuilder::Constant(const std::string& name, std::int64_t bytes) {
  const auto t = Tensor(name, bytes);
  Last().is_constant = true;
  return t;
}

std::int32_t GraphBuilder::Variable(const std::string& name, std::int64_t bytes) {
  const auto t = Tensor(name, bytes);
  Last().is_variable = true;
  return t;
}

std::int32_t GraphBuilder::Unsized(const std::string& name, DataType type) {
  const auto t = Typed(name, type, {});
  Last().bytes.reset();
  return t;
}

GraphBuilder& GraphBuilder::Inputs(std::vector<std::int32_t> tensors) {
  Current().inputs = std::move(tensors);
  return *this;
}

GraphBuilder& GraphBuilder::Outputs(std::vector<std::int32_t> tensors) {
  Current().outputs = std::move(tensors);
  return *this;
}

GraphBuilder& GraphBuilder::Op(const std::string& type, std::vector<std::int32_t> inputs,
                               std::vector<std::int32_t> outputs, std::vector<std::int32_t> called,
                               std::vector<std::int32_t> intermediates) {
  Operator op;
  op.type = type;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  op.called_subgraphs = std::move(called);
  op.intermediates = std::move(intermediates);
  Current().ops.push_back(std::move(op));
  return *this;
}

memplan::Tensor& GraphBuilder::Last() {
  return Current().tensors.back();
}

Graph ConvReluAddChain() {
  GraphBuilder b;
  const auto in = b.Typed("in", DataType::kFloat32, {1, 8, 8, 3});
  const auto w = b.Constant("w", 64);
  const auto a = b.Typed("a", DataType::kFloat32, {1, 8, 8, 4});
  const auto c = b.Typed("b", DataType::kFloat32, {1, 8, 8, 4});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 8, 8, 4});
  b.Inputs({in}).Outputs({out});
  b.Op("CONV_2D", {in, w}, {a}).Op("RELU", {a}, {c}).Op("ADD", {a, c}, {out});
  return b.Build();
}

std::string VelaLikeModel(const std::string& op, std::int32_t input_at, std::int32_t output_at,
                          std::vector<std::uint8_t> custom_options) {
  GraphBuilder b;
  const auto in = b.Typed("input", DataType::kInt8, {1, 8, 8, 3});  // 192 B
  const auto cms = b.Typed("sg_command_stream", DataType::kUInt8, {64});
  b.Last().is_constant = true;
  const auto flash = b.Typed("sg_flash", DataType::kUInt8, {256});
  b.Last().is_constant = true;
  const auto scratch = b.Typed("sg_scratch", DataType::kUInt8, {1024});
  const auto fast = b.Typed("sg_scratch_fast", DataType::kUInt8, {512});
  const auto out = b.Typed("output", DataType::kInt8, {1, 10});
  b.Inputs({in}).Outputs({out}).Op(op, {cms, flash, scratch, fast, in}, {out});
  TfliteWriteOptions w;
  w.offline_offsets = std::vector<std::int32_t>{input_at, -1, -1, 0, 0, output_at};
  if (!custom_options.empty()) w.custom_options.push_back({0, 0, std::move(custom_options)});
  return WriteTflite(b.Build(), w);
}

}  // namespace memplan::testing
