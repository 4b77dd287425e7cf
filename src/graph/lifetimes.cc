// Records from a graph: TFLM's AllocationInfoBuilder rules, or the paper's
// intermediates-only accounting. Both follow scope_walk.h.
#include "memplan/lifetimes.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/remedy.h"
#include "src/graph/scope_walk.h"
#include "src/graph/unsized_tensors.h"

namespace memplan {

namespace {

// TFLM rounds every planned buffer up to MicroArenaBufferAlignment().
constexpr Bytes kTflmAlignment = 16;

std::string RecordName(const Tensor& tensor, std::size_t subgraph, std::size_t index) {
  std::string name = tensor.name.empty() ? fmt::format("tensor{}", index) : tensor.name;
  return subgraph == 0 ? name : fmt::format("subgraph{}/{}", subgraph, name);
}

bool HasOfflineOffset(const Graph& graph, std::size_t flat) {
  return !graph.fixed_offsets.empty() && graph.fixed_offsets[flat] >= 0;
}

// TFLM refuses ops whose intermediates take memory ("Does not support intermediate
// tensor with non-zero size").
void CheckIntermediatesEmpty(const Graph& graph) {
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (std::size_t i = 0; i < sg.ops.size(); ++i)
      for (const std::int32_t t : sg.ops[i].intermediates) {
        const Tensor& tensor = sg.tensors[static_cast<std::size_t>(t)];
        if (tensor.is_constant || !tensor.bytes || *tensor.bytes == 0) continue;
        throw InputErrorWithRemedies(
            fmt::format("{}: subgraph {}, op {} ({}): intermediate tensor '{}' (#{}) has {} bytes; "
                        "TensorFlow Lite Micro supports only empty intermediates (\"Does not "
                        "support intermediate tensor with non-zero size: {}\"); plan it in the "
                        "intermediates-only accounting",
                        graph.source, s, i, sg.ops[i].type, tensor.name, t, *tensor.bytes,
                        *tensor.bytes),
            {{Remedy::Kind::kIntermediatesOnly, "", ""}});
      }
  }
}

// The walk's steps as the records' steps: the walk started at `start` and every record
// step is `shift` later; steps before the first op run no op.
std::vector<StepOp> StepOpsOfRecords(const std::vector<StepOp>& walk_ops, Step start, Step shift) {
  const Step before = start + 1 + shift;  // record steps before the first op
  std::vector<StepOp> out(static_cast<std::size_t>(std::max<Step>(before, 0)));
  const auto skip = static_cast<std::size_t>(std::max<Step>(-before, 0));
  if (skip < walk_ops.size()) out.insert(out.end(), walk_ops.begin() + skip, walk_ops.end());
  return out;
}

// TflmLifetimes on a graph already validated; `step_ops`, when given, receives what
// each step of the walk runs.
std::vector<TensorLifetime> MarkTflmLifetimes(const Graph& graph,
                                              std::vector<StepOp>* step_ops = nullptr) {
  WalkResult walk = WalkScopes(graph, {.step_per_subgraph_entry = true, .start = 0});
  if (step_ops) *step_ops = std::move(walk.step_ops);
  std::vector<TensorLifetime> out(walk.marks.size());
  std::size_t flat = 0;
  for (const Subgraph& sg : graph.subgraphs) {
    for (const Tensor& tensor : sg.tensors) {
      const TouchMarks& m = walk.marks[flat];
      TensorLifetime& life = out[flat];
      life.first = m.first == kUntouched ? -1 : m.first;
      life.last = m.last == kUntouched ? -1 : m.last;
      // An offline offset brings a variable from the persistent tail into the plan.
      const bool empty = tensor.bytes && *tensor.bytes == 0;
      life.needs_allocating =
          !tensor.is_constant && !empty && (!tensor.is_variable || HasOfflineOffset(graph, flat));
      ++flat;
    }
  }
  return out;
}

GraphRecords TflmRecords(const Graph& graph) {
  ValidateGraph(graph);
  CheckIntermediatesEmpty(graph);
  std::vector<StepOp> walk_ops;
  const std::vector<TensorLifetime> lifetimes = MarkTflmLifetimes(graph, &walk_ops);
  GraphRecords out;
  out.ops = OpVisits(graph);
  Problem& p = out.problem;
  std::vector<TensorRef> unsized;
  bool any_fixed = false, fixed_aligned = true, never_created = false;
  std::size_t flat = 0;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (std::size_t t = 0; t < sg.tensors.size(); ++t, ++flat) {
      const TensorLifetime& life = lifetimes[flat];
      if (!life.needs_allocating) continue;
      const Tensor& tensor = sg.tensors[t];
      const TensorRef ref{static_cast<std::int32_t>(s), static_cast<std::int32_t>(t)};
      if (!tensor.bytes) {
        unsized.push_back(ref);
        continue;
      }
      p.records.push_back({AlignUp(*tensor.bytes, kTflmAlignment), life.first, life.last});
      p.names.push_back(RecordName(tensor, s, t));
      out.origins.push_back(ref);
      never_created = never_created || life.first < 0;
      std::optional<Bytes> fixed;
      if (HasOfflineOffset(graph, flat)) {
        fixed = static_cast<Bytes>(graph.fixed_offsets[flat]);
        any_fixed = true;
        fixed_aligned = fixed_aligned && *fixed % kTflmAlignment == 0;
      }
      p.fixed_offsets.push_back(fixed);
    }
  }
  if (!unsized.empty()) ThrowUnsizedTensors(graph, unsized);
  if (!any_fixed) p.fixed_offsets.clear();
  // Offline tools may place buffers at any byte; TFLM takes them as they are, so the
  // problem's alignment drops to 1 rather than reject such a plan.
  p.alignment = fixed_aligned ? kTflmAlignment : 1;
  if (never_created) {
    // TFLM passes -1 to its planner as an ordinary time; one step later everywhere keeps
    // every conflict and makes the steps valid.
    out.step_shift = 1;
    for (UsageRecord& r : p.records) ++r.first, ++r.last;
  }
  out.step_ops = StepOpsOfRecords(walk_ops, 0, out.step_shift);
  return out;
}

GraphRecords IntermediateRecords(const Graph& graph) {
  ValidateGraph(graph);
  const WalkResult walk =
      WalkScopes(graph, {.step_per_subgraph_entry = false, .start = -1, .any_touch_creates = true});
  GraphRecords out;
  out.ops = walk.op_visits;
  // The paper leaves out what the caller owns: the entry subgraph's inputs and outputs.
  const Subgraph& entry = graph.subgraphs[0];
  std::vector<bool> boundary(entry.tensors.size(), false);
  for (const std::int32_t t : entry.inputs) boundary[static_cast<std::size_t>(t)] = true;
  for (const std::int32_t t : entry.outputs) boundary[static_cast<std::size_t>(t)] = true;
  std::vector<TensorRef> unsized;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      const Tensor& tensor = sg.tensors[t];
      const TouchMarks& m = walk.marks[walk.first_of[s] + t];
      if (m.first == kUntouched || tensor.is_constant || tensor.is_variable) continue;
      if (s == 0 && boundary[t]) continue;
      const TensorRef ref{static_cast<std::int32_t>(s), static_cast<std::int32_t>(t)};
      if (!tensor.bytes) {
        unsized.push_back(ref);
        continue;
      }
      if (*tensor.bytes == 0) continue;
      out.problem.records.push_back({*tensor.bytes, m.first, m.last});
      out.problem.names.push_back(RecordName(tensor, s, t));
      out.origins.push_back(ref);
    }
  }
  if (!unsized.empty()) ThrowUnsizedTensors(graph, unsized);
  out.step_ops = StepOpsOfRecords(walk.step_ops, -1, 0);
  return out;
}

}  // namespace

std::vector<TensorLifetime> TflmLifetimes(const Graph& graph) {
  ValidateGraph(graph);
  return MarkTflmLifetimes(graph);
}

GraphRecords RecordsFromGraph(const Graph& graph, const LifetimeOptions& options) {
  return options.accounting == Accounting::kTflm ? TflmRecords(graph) : IntermediateRecords(graph);
}

}  // namespace memplan
