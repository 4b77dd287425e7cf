// Writes small .tflite seeds that reach what the shared models do not: control flow,
// offline plans, kernel-sized custom outputs with flexbuffers options, variables.
#include <flatbuffers/flexbuffers.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "memplan/tflite.h"

namespace {

using memplan::DataType;
using memplan::Graph;

std::int32_t Add(memplan::Subgraph& sg, const char* name, DataType type,
                 std::vector<std::int64_t> shape, bool constant = false, bool variable = false) {
  memplan::Tensor t;
  t.name = name;
  t.type = type;
  t.shape = std::move(shape);
  if (auto n = memplan::ShapeElements(t.shape)) t.bytes = memplan::TensorBytes(type, *n);
  t.is_constant = constant;
  t.is_variable = variable;
  sg.tensors.push_back(std::move(t));
  return static_cast<std::int32_t>(sg.tensors.size() - 1);
}

memplan::Operator Op(const char* type, std::vector<std::int32_t> in, std::vector<std::int32_t> out,
                     std::vector<std::int32_t> called = {}) {
  memplan::Operator op;
  op.type = type;
  op.inputs = std::move(in);
  op.outputs = std::move(out);
  op.called_subgraphs = std::move(called);
  return op;
}

Graph ControlFlow() {
  Graph g;
  g.subgraphs.resize(3);
  auto& main = g.subgraphs[0];
  const auto c = Add(main, "cond", DataType::kBool, {1});
  const auto x = Add(main, "x", DataType::kFloat32, {1, 4});
  const auto y = Add(main, "y", DataType::kFloat32, {1, 4});
  const auto s = Add(main, "state", DataType::kInt16, {1, 8}, false, true);
  main.inputs = {c, x};
  main.outputs = {y};
  main.ops = {Op("CALL_ONCE", {}, {}, {2}), Op("IF", {c, x, s}, {y}, {1, 2}),
              Op("WHILE", {y}, {y}, {1, 2})};
  for (int k = 1; k <= 2; ++k) {
    auto& sg = g.subgraphs[static_cast<std::size_t>(k)];
    const auto in = Add(sg, "in", DataType::kFloat32, {1, 4});
    const auto out = Add(sg, "out", DataType::kFloat16, {1, 4});
    sg.inputs = {in};
    sg.outputs = {out};
    sg.ops = {Op(k == 1 ? "ABS" : "GELU", {in, -1}, {out})};
  }
  return g;
}

Graph PostProcess() {
  Graph g;
  g.subgraphs.resize(1);
  auto& sg = g.subgraphs[0];
  const auto boxes = Add(sg, "boxes", DataType::kFloat32, {1, 10, 4});
  const auto anchors = Add(sg, "anchors", DataType::kFloat32, {10, 4}, true);
  std::vector<std::int32_t> outs;
  for (const char* name : {"d", "d:1", "d:2", "d:3"}) {
    outs.push_back(Add(sg, name, DataType::kFloat32, {}));
    sg.tensors.back().bytes.reset();
  }
  sg.inputs = {boxes};
  sg.outputs = outs;
  sg.ops = {Op("TFLite_Detection_PostProcess", {boxes, anchors}, outs)};
  return g;
}

void Write(const std::filesystem::path& dir, const char* name, const std::string& bytes) {
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SEED_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  Write(dir, "control_flow.tflite", memplan::WriteTflite(ControlFlow()));
  memplan::TfliteWriteOptions offline;
  offline.offline_offsets = std::vector<std::int32_t>{0, 16, -1, 64, 0, -1, -1, 32};
  Write(dir, "offline_plan.tflite", memplan::WriteTflite(ControlFlow(), offline));
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("max_detections", 10);
    fbb.Int("max_classes_per_detection", 1);
  });
  fbb.Finish();
  memplan::TfliteWriteOptions custom;
  custom.custom_options.push_back({0, 0, fbb.GetBuffer()});
  Write(dir, "postprocess.tflite", memplan::WriteTflite(PostProcess(), custom));
  return 0;
}
