#include "src/graph/scope_walk.h"

#include <algorithm>

namespace memplan {

namespace {

// One subgraph being run: where the walk is inside it.
struct Frame {
  std::size_t subgraph = 0;
  std::size_t op = 0;         // the op being run (== ops.size() once all have run)
  std::size_t next_call = 0;  // the next subgraph that op calls
  bool entered = false;       // inputs marked
  bool op_started = false;    // the op's step taken and its outputs created
};

class Walker {
 public:
  Walker(const Graph& graph, const WalkOptions& options) : graph_(graph), options_(options) {
    result_.first_of.reserve(graph.subgraphs.size());
    std::size_t total = 0;
    for (const Subgraph& s : graph.subgraphs) {
      result_.first_of.push_back(total);
      total += s.tensors.size();
    }
    result_.marks.assign(total, TouchMarks{});
    step_ = options.start;
  }

  WalkResult Run() && {
    std::vector<Frame> stack{{}};
    while (!stack.empty()) {
      Frame& f = stack.back();
      const Subgraph& sg = graph_.subgraphs[f.subgraph];
      if (!f.entered) {
        // Inputs exist when the subgraph starts.
        for (const std::int32_t t : sg.inputs) Create(f.subgraph, t), Use(f.subgraph, t);
        f.entered = true;
      }
      if (f.op == sg.ops.size()) {
        // Outputs live to the end of the subgraph (and exist even if nothing wrote them).
        for (const std::int32_t t : sg.outputs) Create(f.subgraph, t), Use(f.subgraph, t);
        stack.pop_back();
        continue;
      }
      const Operator& op = sg.ops[f.op];
      if (!f.op_started) {
        ++step_;
        ++result_.op_visits;
        result_.step_ops.push_back(
            {static_cast<std::int32_t>(f.subgraph), static_cast<std::int32_t>(f.op)});
        for (const std::int32_t t : op.outputs) Create(f.subgraph, t);
        f.op_started = true;
      }
      if (f.next_call < op.called_subgraphs.size()) {
        const auto callee = static_cast<std::size_t>(op.called_subgraphs[f.next_call++]);
        if (options_.step_per_subgraph_entry) {
          ++step_;
          result_.step_ops.push_back({static_cast<std::int32_t>(callee), -1});
        }
        stack.push_back(Frame{callee});  // invalidates `f`
        continue;
      }
      // The op's inputs and outputs stay alive until every subgraph it ran has finished.
      for (const std::int32_t t : op.inputs)
        if (t >= 0) Use(f.subgraph, t);
      for (const std::int32_t t : op.outputs) Use(f.subgraph, t);
      ++f.op;
      f.next_call = 0;
      f.op_started = false;
    }
    return std::move(result_);
  }

 private:
  TouchMarks& At(std::size_t subgraph, std::int32_t tensor) {
    return result_.marks[result_.first_of[subgraph] + static_cast<std::size_t>(tensor)];
  }
  void Create(std::size_t subgraph, std::int32_t tensor) {
    TouchMarks& m = At(subgraph, tensor);
    if (m.first == kUntouched) m.first = step_;
  }
  void Use(std::size_t subgraph, std::int32_t tensor) {
    TouchMarks& m = At(subgraph, tensor);
    if (options_.any_touch_creates && m.first == kUntouched) m.first = step_;
    m.last = std::max(m.last, step_);
  }

  const Graph& graph_;
  const WalkOptions& options_;
  WalkResult result_;
  Step step_ = 0;
};

}  // namespace

WalkResult WalkScopes(const Graph& graph, const WalkOptions& options) {
  if (graph.subgraphs.empty()) return {};
  return Walker(graph, options).Run();
}

}  // namespace memplan
