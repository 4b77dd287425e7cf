// Writes a small .tflite model with memplan's library (WriteTflite), for firmware_check where no
// real model is at hand (a fresh clone without the shared models): a float convolution, a
// ReLU and an add over 8x8 images, weights all zero.
//   make_model OUT.tflite
#include <memplan/graph.h>
#include <memplan/tflite.h>

#include <cstdio>
#include <fstream>

namespace {

std::int32_t Add(memplan::Subgraph& subgraph, const char* name, std::vector<std::int64_t> shape,
                 bool constant = false) {
  memplan::Tensor tensor;
  tensor.name = name;
  tensor.type = memplan::DataType::kFloat32;
  tensor.shape = std::move(shape);
  tensor.bytes = memplan::TensorBytes(tensor.type, *memplan::ShapeElements(tensor.shape));
  tensor.is_constant = constant;
  subgraph.tensors.push_back(tensor);
  return static_cast<std::int32_t>(subgraph.tensors.size() - 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_model OUT.tflite\n");
    return 2;
  }
  memplan::Graph graph;
  graph.source = "examples/consumer";
  graph.format = "tflite";
  memplan::Subgraph subgraph;
  const std::int32_t in = Add(subgraph, "in", {1, 8, 8, 3});
  const std::int32_t filter = Add(subgraph, "filter", {4, 1, 1, 3}, true);
  const std::int32_t conv = Add(subgraph, "conv", {1, 8, 8, 4});
  const std::int32_t relu = Add(subgraph, "relu", {1, 8, 8, 4});
  const std::int32_t out = Add(subgraph, "out", {1, 8, 8, 4});
  subgraph.inputs = {in};
  subgraph.outputs = {out};
  subgraph.ops.push_back({"CONV_2D", "", {in, filter, -1}, {conv}, {}, {}, {}});
  subgraph.ops.push_back({"RELU", "", {conv}, {relu}, {}, {}, {}});
  subgraph.ops.push_back({"ADD", "", {conv, relu}, {out}, {}, {}, {}});
  graph.subgraphs.push_back(subgraph);
  std::ofstream file(argv[1], std::ios::binary | std::ios::trunc);
  file << memplan::WriteTflite(graph);
  return file ? 0 : 1;
}
