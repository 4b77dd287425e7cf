#pragma once
// The built-in models: published architectures written down as graphs (shapes and
// operators, no weights), so memplan runs without any model file. `zoo:NAME` names
// one wherever a model file is accepted; `memplan zoo` lists them.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "memplan/graph.h"

namespace memplan {

struct ZooModel {
  std::string_view name;         // what zoo:NAME takes, e.g. "mobilenet_v2"
  std::string_view description;  // one line for `memplan zoo` and reports
  Graph (*build)();              // builds the graph (source "zoo:NAME", format "zoo")
  // The dimension left open, bound with --dim NAME=N ("tokens", "frames"), or empty.
  std::string_view open_dimension = {};
  std::int64_t open_min = 1;                    // the smallest value it takes
  Graph (*build_with)(std::int64_t) = nullptr;  // builds the graph at a value of it
};

// Every built-in model, in the order `memplan zoo` lists them.
std::span<const ZooModel> ZooModels();

// The graph of the built-in model called `name`, or nullopt when there is none.
std::optional<Graph> ZooGraph(std::string_view name);

// The built-in model `name` with its open dimension `dimension` at `value` (models whose
// sequence length or frame count changes: benchmarks of re-planning, docs/cpu-planner.md).
// nullopt when there is no such model; UsageError when it has no such open dimension or
// the value is outside [open_min, 2^20].
std::optional<Graph> ZooGraphWith(std::string_view name, std::string_view dimension,
                                  std::int64_t value);

// zoo:gpt2 over `tokens` tokens instead of 128 (ZooGraphWith("gpt2", "tokens", tokens)).
Graph Gpt2WithTokens(std::int64_t tokens);

}  // namespace memplan
