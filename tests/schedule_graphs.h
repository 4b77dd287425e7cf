#pragma once
// Small graphs built by hand for the in-place and order-search tests.
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "memplan/graph.h"
#include "memplan/lifetimes.h"

namespace memplan::testing {

// Builds one subgraph tensor by tensor and op by op.
class SubgraphBuilder {
 public:
  explicit SubgraphBuilder(std::string source = "test") {
    graph_.source = std::move(source);
    graph_.format = "test";
    graph_.subgraphs.emplace_back();
  }

  // A planned tensor of `bytes` bytes (uint8 elements, shape [bytes]).
  std::int32_t Tensor(const std::string& name, Bytes bytes);
  // A constant (weights): never planned.
  std::int32_t Constant(const std::string& name, Bytes bytes);
  // An op reading `inputs` and writing `outputs`; returns its index.
  std::int32_t Op(const std::string& type, std::vector<std::int32_t> inputs,
                  std::vector<std::int32_t> outputs);
  void Inputs(std::vector<std::int32_t> tensors) { sub().inputs = std::move(tensors); }
  void Outputs(std::vector<std::int32_t> tensors) { sub().outputs = std::move(tensors); }

  Subgraph& sub() { return graph_.subgraphs[0]; }
  const Graph& graph() const { return graph_; }
  Graph& mutable_graph() { return graph_; }

 private:
  Graph graph_;
};

// Records as TensorFlow Lite Micro derives them for a single subgraph without control
// flow (inputs from step 0, op i at step i+1, outputs to the end), raw sizes; enough
// for tests that must not depend on the model readers.
GraphRecords SimpleRecords(const Graph& graph);

// A random DAG of `ops` ops over planned tensors: each op reads one or two earlier
// tensors (or a constant) and writes one; op types drawn from element-wise, reshape,
// weight-only and other kinds so every in-place rule gets exercised.
Graph RandomDag(std::uint64_t seed, std::size_t ops);

// Every topological order of subgraph 0 (small graphs only).
std::vector<std::vector<std::int32_t>> AllTopologicalOrders(const Graph& graph);

}  // namespace memplan::testing
