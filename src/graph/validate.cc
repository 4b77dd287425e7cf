// Structural checks every graph passes before lifetimes are derived, whatever format it
// came from: readers may trust nothing in a file, and lifetimes.cc indexes freely.
#include <fmt/format.h>

#include <limits>

#include "memplan/error.h"
#include "memplan/graph.h"

namespace memplan {

namespace {

// More tensor touches than this in one run means hostile control flow (a subgraph
// called from many places, nested, or ops with huge input lists); real models make
// thousands. Each touch is a step of the lifetime walk.
constexpr std::uint64_t kMaxTouches = 100'000'000;

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();
std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

// Σ over one run of subgraph 0 of own_cost(s) for every subgraph s it runs, each time
// it runs (callees counted once per call). Saturates; the call graph must be acyclic.
template <typename OwnCost>
std::uint64_t CostOfOneRun(const Graph& graph, OwnCost own_cost) {
  const std::size_t n = graph.subgraphs.size();
  if (n == 0) return 0;
  std::vector<std::uint64_t> cost(n, 0);
  std::vector<bool> done(n, false);
  // Post-order DFS (callees first); iterative to survive deep call chains.
  for (std::size_t root = 0; root < n; ++root) {
    if (done[root]) continue;
    std::vector<std::pair<std::size_t, bool>> stack{{root, false}};
    while (!stack.empty()) {
      const auto [s, expanded] = stack.back();
      stack.pop_back();
      if (done[s]) continue;
      if (!expanded) {
        stack.push_back({s, true});
        for (const Operator& op : graph.subgraphs[s].ops)
          for (const std::int32_t c : op.called_subgraphs)
            if (c >= 0 && static_cast<std::size_t>(c) < n && !done[static_cast<std::size_t>(c)])
              stack.push_back({static_cast<std::size_t>(c), false});
        continue;
      }
      std::uint64_t total = own_cost(graph.subgraphs[s]);
      for (const Operator& op : graph.subgraphs[s].ops)
        for (const std::int32_t c : op.called_subgraphs)
          if (c >= 0 && static_cast<std::size_t>(c) < n)
            total = SaturatingAdd(total, cost[static_cast<std::size_t>(c)]);
      cost[s] = total;
      done[s] = true;
    }
  }
  return cost[0];
}

class GraphChecker {
 public:
  explicit GraphChecker(const Graph& graph) : graph_(graph) {}

  void Run() {
    if (graph_.subgraphs.empty()) Fail("the model has no subgraphs");
    for (std::size_t s = 0; s < graph_.subgraphs.size(); ++s) CheckSubgraph(s);
    CheckFixedOffsets();
    CheckCalls();
    const std::uint64_t touches = CostOfOneRun(graph_, [](const Subgraph& sg) {
      std::uint64_t n = sg.inputs.size() + sg.outputs.size();
      for (const Operator& op : sg.ops) n += 1 + op.inputs.size() + op.outputs.size();
      return n;
    });
    if (touches > kMaxTouches)
      Fail(
          fmt::format("one run touches tensors more than {} times (control flow calling "
                      "subgraphs from many places, or huge ops); memplan refuses such a model",
                      kMaxTouches));
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw InputError(fmt::format("{}: {}", graph_.source.empty() ? "graph" : graph_.source, what));
  }

  std::string OpLabel(std::size_t s, std::size_t i) const {
    return fmt::format("subgraph {}, op {} ({})", s, i, graph_.subgraphs[s].ops[i].type);
  }

  std::string TensorLabel(std::size_t s, std::int32_t t) const {
    const Tensor& tensor = graph_.subgraphs[s].tensors[static_cast<std::size_t>(t)];
    return tensor.name.empty() ? fmt::format("#{}", t) : fmt::format("'{}' (#{})", tensor.name, t);
  }

  // `where` names the list; `allow_absent` lets -1 stand for an omitted optional input.
  void CheckIndices(std::size_t s, const std::vector<std::int32_t>& list, const std::string& where,
                    const char* role, bool allow_absent) const {
    const std::size_t n = graph_.subgraphs[s].tensors.size();
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::int32_t t = list[k];
      if (t == -1 && allow_absent) continue;
      if (t < 0)
        Fail(fmt::format("{}: {} {} is tensor {}, which is negative{}", where, role, k, t,
                         allow_absent ? " (only -1, an omitted optional input, may be)" : ""));
      if (static_cast<std::size_t>(t) >= n)
        Fail(fmt::format("{}: {} {} is tensor {}, but the subgraph has {} tensors", where, role, k,
                         t, n));
    }
  }

  void CheckSubgraph(std::size_t s) const {
    const Subgraph& sg = graph_.subgraphs[s];
    const std::string where = fmt::format("subgraph {}", s);
    CheckIndices(s, sg.inputs, where, "input", false);
    CheckIndices(s, sg.outputs, where, "output", false);
    // producer[t] = the first op that writes tensor t.
    std::vector<std::size_t> producer(sg.tensors.size(), std::numeric_limits<std::size_t>::max());
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      const Operator& op = sg.ops[i];
      const std::string label = OpLabel(s, i);
      CheckIndices(s, op.inputs, label, "input", true);
      CheckIndices(s, op.outputs, label, "output", false);
      CheckIndices(s, op.intermediates, label, "intermediate", false);
      for (std::size_t k = 0; k < op.called_subgraphs.size(); ++k) {
        const std::int32_t c = op.called_subgraphs[k];
        if (c < 0 || static_cast<std::size_t>(c) >= graph_.subgraphs.size())
          Fail(fmt::format("{}: calls subgraph {}, but the model has {} subgraphs", label, c,
                           graph_.subgraphs.size()));
      }
      for (const std::int32_t t : op.outputs) {
        auto& p = producer[static_cast<std::size_t>(t)];
        if (p == std::numeric_limits<std::size_t>::max()) p = i;
      }
    }
    // A constant, a variable or a subgraph input may be read before an op writes it (its
    // value comes from outside or from the previous run); any other tensor must be
    // produced before it is read.
    std::vector<bool> is_input(sg.tensors.size(), false);
    for (const std::int32_t t : sg.inputs) is_input[static_cast<std::size_t>(t)] = true;
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      for (const std::int32_t t : sg.ops[i].inputs) {
        if (t < 0) continue;
        const std::size_t p = producer[static_cast<std::size_t>(t)];
        const Tensor& tensor = sg.tensors[static_cast<std::size_t>(t)];
        if (p == std::numeric_limits<std::size_t>::max() || p <= i) continue;
        if (tensor.is_constant || tensor.is_variable || is_input[static_cast<std::size_t>(t)])
          continue;
        Fail(
            fmt::format("{} reads tensor {} before {} produces it (ops must be in execution order)",
                        OpLabel(s, i), TensorLabel(s, t), OpLabel(s, p)));
      }
    }
  }

  void CheckFixedOffsets() const {
    if (graph_.fixed_offsets.empty()) return;
    if (graph_.fixed_offsets.size() != graph_.TensorCount())
      Fail(fmt::format("the offline plan lists {} offsets, but the model has {} tensors",
                       graph_.fixed_offsets.size(), graph_.TensorCount()));
    for (std::size_t k = 0; k < graph_.fixed_offsets.size(); ++k)
      if (graph_.fixed_offsets[k] < -1)
        Fail(
            fmt::format("the offline plan gives tensor entry {} the negative offset {} (only -1, "
                        "plan online, may be negative)",
                        k, graph_.fixed_offsets[k]));
  }

  // Depth-first search over "op calls subgraph" edges; a back edge is a cycle, which
  // would make the runtime (and the lifetime walk) recurse forever.
  void CheckCalls() const {
    enum class Mark { kNew, kOpen, kDone };
    std::vector<Mark> mark(graph_.subgraphs.size(), Mark::kNew);
    struct Frame {
      std::size_t subgraph;
      std::size_t op = 0;    // next op to look at
      std::size_t call = 0;  // next called subgraph of that op
    };
    for (std::size_t root = 0; root < graph_.subgraphs.size(); ++root) {
      if (mark[root] != Mark::kNew) continue;
      std::vector<Frame> stack{{root}};
      mark[root] = Mark::kOpen;
      while (!stack.empty()) {
        Frame& f = stack.back();
        const Subgraph& sg = graph_.subgraphs[f.subgraph];
        if (f.op == sg.ops.size()) {
          mark[f.subgraph] = Mark::kDone;
          stack.pop_back();
          continue;
        }
        const Operator& op = sg.ops[f.op];
        if (f.call == op.called_subgraphs.size()) {
          ++f.op;
          f.call = 0;
          continue;
        }
        const auto callee = static_cast<std::size_t>(op.called_subgraphs[f.call++]);
        if (mark[callee] == Mark::kOpen)
          Fail(
              fmt::format("{} calls subgraph {}, which is already running: control flow must not "
                          "recurse",
                          OpLabel(f.subgraph, f.op), callee));
        if (mark[callee] == Mark::kNew) {
          mark[callee] = Mark::kOpen;
          stack.push_back({callee});
        }
      }
    }
  }

  const Graph& graph_;
};

}  // namespace

void ValidateGraph(const Graph& graph) {
  GraphChecker(graph).Run();
}

std::uint64_t OpVisits(const Graph& graph) {
  return CostOfOneRun(graph, [](const Subgraph& sg) { return std::uint64_t{sg.ops.size()}; });
}

}  // namespace memplan
