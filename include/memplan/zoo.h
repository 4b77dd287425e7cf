#pragma once
// The built-in models: published architectures written down as graphs (shapes and
// operators, no weights), so memplan runs without any model file. `zoo:NAME` names
// one wherever a model file is accepted; `memplan zoo` lists them.

#include <optional>
#include <span>
#include <string_view>

#include "memplan/graph.h"

namespace memplan {

struct ZooModel {
  std::string_view name;         // what zoo:NAME takes, e.g. "mobilenet_v2"
  std::string_view description;  // one line for `memplan zoo` and reports
  Graph (*build)();              // builds the graph (source "zoo:NAME", format "zoo")
};

// Every built-in model, in the order `memplan zoo` lists them.
std::span<const ZooModel> ZooModels();

// The graph of the built-in model called `name`, or nullopt when there is none.
std::optional<Graph> ZooGraph(std::string_view name);

// zoo:gpt2 over `tokens` tokens instead of 128: a model whose sequence length changes
// (benchmarks of re-planning, docs/cpu-planner.md). UsageError unless 1 <= tokens <= 2^20.
Graph Gpt2WithTokens(std::int64_t tokens);

}  // namespace memplan
