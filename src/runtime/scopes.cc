#include "src/runtime/scopes.h"

#include <fmt/format.h>

#include "memplan/error.h"

namespace memplan::runtime {

namespace {

class ScopeMarker {
 public:
  ScopeMarker(const Graph& graph, Scopes& scopes)
      : graph_(graph), scopes_(scopes), on_stack_(graph.subgraphs.size(), false) {}

  void Mark(std::size_t subgraph) {
    if (on_stack_[subgraph])
      throw InputError(fmt::format("{}: subgraph {} runs itself (recursive control flow)",
                                   graph_.source, subgraph));
    on_stack_[subgraph] = true;
    const Subgraph& sg = graph_.subgraphs[subgraph];
    for (std::int32_t t : sg.inputs) Use(subgraph, t, true);
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      const Operator& op = sg.ops[i];
      ++counter_;
      for (std::int32_t t : op.outputs) Create(subgraph, t);
      const Step start = counter_;
      for (std::int32_t called : op.called_subgraphs) {
        ++counter_;
        Mark(static_cast<std::size_t>(called));
      }
      for (std::int32_t t : op.inputs)
        if (t >= 0) Use(subgraph, t, false);
      for (std::int32_t t : op.outputs) Use(subgraph, t, false);
      const std::size_t node = scopes_.op_base[subgraph] + i;
      scopes_.op_first[node] = start;
      scopes_.op_last[node] = counter_;
    }
    for (std::int32_t t : sg.outputs) Use(subgraph, t, true);
    on_stack_[subgraph] = false;
  }

 private:
  std::size_t Global(std::size_t subgraph, std::int32_t t) const {
    return scopes_.tensor_base[subgraph] + static_cast<std::size_t>(t);
  }
  void Create(std::size_t subgraph, std::int32_t t) {
    Step& first = scopes_.first[Global(subgraph, t)];
    if (first < 0) first = counter_;
  }
  // Subgraph inputs and outputs are created by their use if nothing created them yet.
  void Use(std::size_t subgraph, std::int32_t t, bool creates) {
    if (creates) Create(subgraph, t);
    Step& last = scopes_.last[Global(subgraph, t)];
    if (last < counter_) last = counter_;
  }

  const Graph& graph_;
  Scopes& scopes_;
  std::vector<bool> on_stack_;  // subgraphs being marked (recursion guard)
  Step counter_ = 0;            // TFLM's global scope counter
};

void CheckIndex(const Graph& graph, std::size_t subgraph, std::size_t op, std::int32_t t,
                bool optional, const char* role) {
  const auto count = static_cast<std::int32_t>(graph.subgraphs[subgraph].tensors.size());
  if ((t == -1 && optional) || (t >= 0 && t < count)) return;
  const std::string where = op == static_cast<std::size_t>(-1)
                                ? fmt::format("subgraph {}", subgraph)
                                : fmt::format("subgraph {} op {} ({})", subgraph, op,
                                              graph.subgraphs[subgraph].ops[op].type);
  throw InputError(fmt::format("{}: {} names {} tensor {}, but the subgraph has {} tensors",
                               graph.source, where, role, t, count));
}

void CheckGraph(const Graph& graph) {
  if (graph.subgraphs.empty())
    throw InputError(fmt::format("{}: the model has no subgraphs", graph.source));
  const std::size_t none = static_cast<std::size_t>(-1);
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (std::int32_t t : sg.inputs) CheckIndex(graph, s, none, t, false, "input");
    for (std::int32_t t : sg.outputs) CheckIndex(graph, s, none, t, false, "output");
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      const Operator& op = sg.ops[i];
      for (std::int32_t t : op.inputs) CheckIndex(graph, s, i, t, true, "input");
      for (std::int32_t t : op.outputs) CheckIndex(graph, s, i, t, false, "output");
      for (std::int32_t t : op.intermediates) CheckIndex(graph, s, i, t, false, "intermediate");
      for (std::int32_t c : op.called_subgraphs)
        if (c < 0 || static_cast<std::size_t>(c) >= graph.subgraphs.size())
          throw InputError(
              fmt::format("{}: subgraph {} op {} ({}) runs subgraph {}, but the "
                          "model has {} subgraphs",
                          graph.source, s, i, op.type, c, graph.subgraphs.size()));
    }
  }
}

}  // namespace

Scopes MarkScopes(const Graph& graph) {
  CheckGraph(graph);
  Scopes scopes;
  std::size_t tensors = 0, ops = 0;
  for (const Subgraph& sg : graph.subgraphs) {
    scopes.tensor_base.push_back(tensors);
    scopes.op_base.push_back(ops);
    tensors += sg.tensors.size();
    ops += sg.ops.size();
  }
  scopes.first.assign(tensors, -1);
  scopes.last.assign(tensors, -1);
  scopes.op_first.assign(ops, -1);
  scopes.op_last.assign(ops, -1);
  ScopeMarker(graph, scopes).Mark(0);
  return scopes;
}

}  // namespace memplan::runtime
