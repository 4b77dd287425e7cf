#include "tests/schedule_graphs.h"

#include <algorithm>
#include <functional>

namespace memplan::testing {

std::int32_t SubgraphBuilder::Tensor(const std::string& name, Bytes bytes) {
  memplan::Tensor t;
  t.name = name;
  t.type = DataType::kUInt8;
  t.shape = {static_cast<std::int64_t>(bytes)};
  t.bytes = bytes;
  sub().tensors.push_back(t);
  return static_cast<std::int32_t>(sub().tensors.size() - 1);
}

std::int32_t SubgraphBuilder::Constant(const std::string& name, Bytes bytes) {
  const std::int32_t t = Tensor(name, bytes);
  sub().tensors.back().is_constant = true;
  return t;
}

std::int32_t SubgraphBuilder::Op(const std::string& type, std::vector<std::int32_t> inputs,
                                 std::vector<std::int32_t> outputs) {
  Operator op;
  op.type = type;
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  sub().ops.push_back(op);
  return static_cast<std::int32_t>(sub().ops.size() - 1);
}

GraphRecords SimpleRecords(const Graph& graph) {
  const Subgraph& sg = graph.subgraphs[0];
  const auto n = static_cast<Step>(sg.ops.size());
  std::vector<Step> first(sg.tensors.size(), -1), last(sg.tensors.size(), -1);
  for (const std::int32_t t : sg.inputs)
    first[static_cast<std::size_t>(t)] = last[static_cast<std::size_t>(t)] = 0;
  for (std::size_t i = 0; i < sg.ops.size(); ++i) {
    const auto step = static_cast<Step>(i + 1);
    for (const std::int32_t t : sg.ops[i].inputs)
      if (t >= 0)
        last[static_cast<std::size_t>(t)] = std::max(last[static_cast<std::size_t>(t)], step);
    for (const std::int32_t t : sg.ops[i].outputs) {
      if (first[static_cast<std::size_t>(t)] < 0) first[static_cast<std::size_t>(t)] = step;
      last[static_cast<std::size_t>(t)] = std::max(last[static_cast<std::size_t>(t)], step);
    }
  }
  for (const std::int32_t t : sg.outputs) last[static_cast<std::size_t>(t)] = n;
  GraphRecords out;
  out.ops = sg.ops.size();
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    const memplan::Tensor& tensor = sg.tensors[t];
    if (tensor.is_constant || tensor.is_variable || !tensor.bytes || *tensor.bytes == 0) continue;
    if (first[t] < 0) continue;
    out.problem.records.push_back({*tensor.bytes, first[t], last[t]});
    out.problem.names.push_back(tensor.name);
    out.origins.push_back({0, static_cast<std::int32_t>(t)});
  }
  return out;
}

Graph RandomDag(std::uint64_t seed, std::size_t ops) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::vector<Bytes> sizes = {4, 16, 32, 32, 48, 64, 64, 100};
  SubgraphBuilder b("random" + std::to_string(seed));
  std::vector<std::int32_t> values = {b.Tensor("in", sizes[1 + pick(sizes.size() - 1)])};
  b.Inputs({values[0]});
  std::vector<bool> read(1, false);
  auto bytes_of = [&](std::int32_t t) {
    return *b.sub().tensors[static_cast<std::size_t>(t)].bytes;
  };
  auto any_value = [&]() {
    const std::int32_t t = values[pick(values.size())];
    read[static_cast<std::size_t>(t)] = true;
    return t;
  };
  const std::vector<std::string> kinds = {"ADD",     "RELU",          "RESHAPE",
                                          "CONV_2D", "DEQUANTIZE",    "SOFTMAX",
                                          "MUL",     "CONCATENATION", "SQUEEZE"};
  for (std::size_t i = 0; i < ops; ++i) {
    const std::string& kind = kinds[pick(kinds.size())];
    const std::string name = "t" + std::to_string(i);
    std::vector<std::int32_t> inputs;
    Bytes out_bytes = sizes[pick(sizes.size())];
    if (kind == "DEQUANTIZE") {
      inputs = {b.Constant("w" + std::to_string(i), out_bytes / 2 + 1)};
    } else if (kind == "ADD" || kind == "MUL" || kind == "CONCATENATION") {
      inputs = {any_value(), any_value()};
      out_bytes = kind == "CONCATENATION" ? bytes_of(inputs[0]) + bytes_of(inputs[1])
                                          : bytes_of(inputs[pick(2)]);
    } else if (kind == "CONV_2D") {
      inputs = {any_value(), b.Constant("f" + std::to_string(i), 8)};
    } else {
      inputs = {any_value()};
      if (pick(4) != 0) out_bytes = bytes_of(inputs[0]);
    }
    const std::int32_t out = b.Tensor(name, out_bytes);
    read.resize(b.sub().tensors.size(), false);
    b.Op(kind, inputs, {out});
    values.push_back(out);
  }
  std::vector<std::int32_t> outputs;
  for (const std::int32_t t : values)
    if (!read[static_cast<std::size_t>(t)] && (pick(4) != 0 || t == values.back()))
      outputs.push_back(t);
  b.Outputs(outputs);
  return b.graph();
}

std::vector<std::vector<std::int32_t>> AllTopologicalOrders(const Graph& graph) {
  const Subgraph& sg = graph.subgraphs[0];
  const std::size_t n = sg.ops.size();
  std::vector<std::int32_t> producer(sg.tensors.size(), -1);
  for (std::size_t i = 0; i < n; ++i)
    for (const std::int32_t t : sg.ops[i].outputs)
      producer[static_cast<std::size_t>(t)] = static_cast<std::int32_t>(i);
  std::vector<std::vector<std::int32_t>> preds(n);
  for (std::size_t i = 0; i < n; ++i)
    for (const std::int32_t t : sg.ops[i].inputs)
      if (t >= 0 && producer[static_cast<std::size_t>(t)] >= 0)
        preds[i].push_back(producer[static_cast<std::size_t>(t)]);
  std::vector<std::vector<std::int32_t>> orders;
  std::vector<std::int32_t> order;
  std::vector<bool> done(n, false);
  std::function<void()> extend = [&]() {
    if (order.size() == n) {
      orders.push_back(order);
      return;
    }
    for (std::size_t v = 0; v < n; ++v) {
      if (done[v] || !std::all_of(preds[v].begin(), preds[v].end(), [&](std::int32_t p) {
            return done[static_cast<std::size_t>(p)];
          }))
        continue;
      done[v] = true;
      order.push_back(static_cast<std::int32_t>(v));
      extend();
      order.pop_back();
      done[v] = false;
    }
  };
  extend();
  return orders;
}

}  // namespace memplan::testing
