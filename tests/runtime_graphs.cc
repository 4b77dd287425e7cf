#include "tests/runtime_graphs.h"

#include <fmt/format.h>

namespace memplan::testing {

Tensor ByteTensor(std::string name, Bytes bytes, bool constant) {
  Tensor t;
  t.name = std::move(name);
  t.type = DataType::kInt8;
  t.shape = {static_cast<std::int64_t>(bytes)};
  t.bytes = bytes;
  t.is_constant = constant;
  return t;
}

Graph MakeGraph(const std::vector<Bytes>& sizes, const std::vector<OpSpec>& ops,
                std::vector<std::int32_t> inputs, std::vector<std::int32_t> outputs) {
  Graph g;
  g.source = "test-graph";
  g.format = "test";
  Subgraph sg;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    sg.tensors.push_back(ByteTensor(fmt::format("t{}", i), sizes[i]));
  for (const OpSpec& spec : ops) {
    Operator op;
    op.type = spec.type;
    op.inputs = spec.inputs;
    op.outputs = spec.outputs;
    sg.ops.push_back(op);
  }
  sg.inputs = std::move(inputs);
  sg.outputs = outputs.empty()
                   ? std::vector<std::int32_t>{static_cast<std::int32_t>(sizes.size() - 1)}
                   : std::move(outputs);
  g.subgraphs.push_back(std::move(sg));
  return g;
}

Graph BranchGraph() {
  return MakeGraph({100, 300, 200, 50, 400, 120}, {{"CONV_2D", {0}, {1}},
                                                   {"CONV_2D", {0}, {2}},
                                                   {"ADD", {1, 2}, {3}},
                                                   {"CONV_2D", {3}, {4}},
                                                   {"CONCATENATION", {4, 1}, {5}}});
}

Graph SvdfGraph() {
  Graph g;
  g.source = "svdf-graph";
  g.format = "test";
  Subgraph sg;
  auto add = [&](std::string name, DataType type, std::vector<std::int64_t> shape, bool constant,
                 bool variable) {
    Tensor t;
    t.name = std::move(name);
    t.type = type;
    t.shape = shape;
    std::uint64_t elements = 1;
    for (auto d : shape) elements *= static_cast<std::uint64_t>(d);
    t.bytes = TensorBytes(type, elements);
    t.is_constant = constant;
    t.is_variable = variable;
    sg.tensors.push_back(t);
    return static_cast<std::int32_t>(sg.tensors.size() - 1);
  };
  const int in = add("input", DataType::kInt8, {1, 40}, false, false);
  // SVDF 1: 64 filters, rank 2 -> 32 units, memory 10.
  const int wf1 = add("wf1", DataType::kInt8, {64, 40}, true, false);
  const int wt1 = add("wt1", DataType::kInt16, {64, 10}, true, false);
  const int b1 = add("b1", DataType::kInt32, {32}, true, false);
  const int s1 = add("state1", DataType::kInt16, {1, 640}, false, true);
  const int o1 = add("svdf1", DataType::kInt8, {1, 32}, false, false);
  // SVDF 2: 32 filters, rank 1 -> 32 units, memory 8.
  const int wf2 = add("wf2", DataType::kInt8, {32, 32}, true, false);
  const int wt2 = add("wt2", DataType::kInt16, {32, 8}, true, false);
  const int s2 = add("state2", DataType::kInt16, {1, 256}, false, true);
  const int o2 = add("svdf2", DataType::kInt8, {1, 32}, false, false);
  const int fw = add("fc_w", DataType::kInt8, {4, 32}, true, false);
  const int out = add("output", DataType::kInt8, {1, 4}, false, false);
  sg.ops.push_back({"SVDF", "", {in, wf1, wt1, b1, s1}, {o1}, {}, {}, {2}});
  sg.ops.push_back({"SVDF", "", {o1, wf2, wt2, -1, s2}, {o2}, {}, {}, {1}});
  sg.ops.push_back({"FULLY_CONNECTED", "", {o2, fw, -1}, {out}, {}, {}, {}});
  sg.inputs = {in};
  sg.outputs = {out};
  g.subgraphs.push_back(std::move(sg));
  return g;
}

Graph GraphFromJson(const nlohmann::json& model) {
  Graph g;
  g.source = "conformance-graph";
  g.format = "test";
  for (const auto& js : model.at("subgraphs")) {
    Subgraph sg;
    for (const auto& jt : js.at("tensors"))
      sg.tensors.push_back(ByteTensor(fmt::format("t{}", sg.tensors.size()),
                                      jt.at("bytes").get<Bytes>(), jt.value("const", false)));
    for (const auto& jo : js.at("ops")) {
      Operator op;
      op.type = jo.at("op").get<std::string>();
      op.inputs = jo.at("inputs").get<std::vector<std::int32_t>>();
      op.outputs = jo.at("outputs").get<std::vector<std::int32_t>>();
      op.intermediates = jo.value("intermediates", std::vector<std::int32_t>{});
      op.called_subgraphs = jo.value("subgraphs", std::vector<std::int32_t>{});
      sg.ops.push_back(op);
    }
    sg.inputs = js.at("inputs").get<std::vector<std::int32_t>>();
    sg.outputs = js.at("outputs").get<std::vector<std::int32_t>>();
    g.subgraphs.push_back(std::move(sg));
  }
  return g;
}

}  // namespace memplan::testing
