#include "memplan/memory_map.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/error.h"

namespace memplan {

MapPlan MapOfOffsets(const std::string& key, const OffsetPlan& plan) {
  return MapPlan{key, plan.offsets, plan.arena_bytes, {}, {}};
}

MapPlan MapOfObjects(const std::string& key, const std::vector<std::size_t>& object_of_record,
                     const std::vector<Bytes>& object_sizes, Bytes alignment) {
  std::vector<Bytes> base(object_sizes.size());
  Bytes top = 0, next = 0;
  for (std::size_t k = 0; k < object_sizes.size(); ++k) {
    base[k] = next;
    top = std::max(top, next + object_sizes[k]);
    next = AlignUp(next + object_sizes[k], alignment);
  }
  MapPlan map{key, {}, top, object_of_record, object_sizes};
  map.offsets.reserve(object_of_record.size());
  for (std::size_t object : object_of_record) {
    if (object >= base.size())
      throw InternalError(
          fmt::format("memory map of {}: object {} of {} has no size", key, object, base.size()));
    map.offsets.push_back(base[object]);
  }
  return map;
}

MapTotals ComputeMapTotals(const Problem& problem) {
  MapTotals totals;
  totals.lower_bound = OffsetsLowerBound(problem);
  totals.naive = NaiveBytes(problem);
  for (const UsageRecord& r : problem.records) {
    totals.steps = std::max(totals.steps, r.last + 1);
    if (r.size == 0) ++totals.empty;
  }
  return totals;
}

std::vector<std::pair<Step, Bytes>> LiveBytesChanges(const Problem& problem) {
  std::vector<std::pair<Step, std::int64_t>> events;
  for (const UsageRecord& r : problem.records) {
    if (r.size == 0) continue;
    const auto size = static_cast<std::int64_t>(AlignUp(r.size, problem.alignment));
    events.emplace_back(r.first, size);
    events.emplace_back(r.last + 1, -size);
  }
  std::sort(events.begin(), events.end());
  std::vector<std::pair<Step, Bytes>> out;
  std::int64_t live = 0;
  for (std::size_t k = 0; k < events.size();) {
    const Step at = events[k].first;
    while (k < events.size() && events[k].first == at) live += events[k++].second;
    if (out.empty() || out.back().second != static_cast<Bytes>(live))
      out.emplace_back(at, static_cast<Bytes>(live));
  }
  return out;
}

namespace {

// "#3 CONV_2D 'conv1'" (the op's index in its subgraph, type, name when it has one).
std::string OpLabel(const Operator& op, std::size_t index) {
  std::string label = fmt::format("#{} {}", index, op.type.empty() ? "?" : op.type);
  if (!op.name.empty()) label += fmt::format(" '{}'", op.name);
  return label;
}

}  // namespace

std::vector<StepLabel> StepLabels(const Workload& workload) {
  std::vector<StepLabel> out;
  if (!workload.graph) return out;
  const Graph& graph = *workload.graph;
  out.reserve(workload.step_ops.size());
  for (const StepOp& at : workload.step_ops) {
    if (at.subgraph < 0 || static_cast<std::size_t>(at.subgraph) >= graph.subgraphs.size()) {
      out.push_back({"inputs", "the graph inputs arrive"});
      continue;
    }
    const Subgraph& sub = graph.subgraphs[at.subgraph];
    if (at.op < 0 || static_cast<std::size_t>(at.op) >= sub.ops.size()) {
      out.push_back({fmt::format("enter subgraph {}", at.subgraph),
                     fmt::format("subgraph {} is entered", at.subgraph)});
      continue;
    }
    const Operator& op = sub.ops[at.op];
    std::string detail = OpLabel(op, static_cast<std::size_t>(at.op));
    if (at.subgraph > 0) detail += fmt::format(" in subgraph {}", at.subgraph);
    out.push_back({op.type.empty() ? "?" : op.type, std::move(detail)});
  }
  return out;
}

std::vector<std::string> TensorOpSummaries(const Workload& workload) {
  const std::size_t n = workload.problem.size();
  std::vector<std::string> out(n);
  if (!workload.graph || workload.origins.size() != n) return out;
  const Graph& graph = *workload.graph;
  // Per subgraph and tensor: the ops writing it and the ops reading it.
  struct Uses {
    std::vector<std::size_t> producers, consumers;
  };
  std::vector<std::vector<Uses>> uses(graph.subgraphs.size());
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sub = graph.subgraphs[s];
    uses[s].resize(sub.tensors.size());
    auto note = [&](std::int32_t tensor, std::size_t op, bool produces) {
      if (tensor < 0 || static_cast<std::size_t>(tensor) >= sub.tensors.size()) return;
      auto& list = produces ? uses[s][tensor].producers : uses[s][tensor].consumers;
      if (list.empty() || list.back() != op) list.push_back(op);
    };
    for (std::size_t k = 0; k < sub.ops.size(); ++k) {
      for (std::int32_t t : sub.ops[k].inputs) note(t, k, false);
      for (std::int32_t t : sub.ops[k].outputs) note(t, k, true);
      for (std::int32_t t : sub.ops[k].intermediates) note(t, k, true);
    }
  }
  constexpr std::size_t kMaxListed = 6;  // long fan-outs are cut so tooltips stay small
  auto list = [&](const Subgraph& sub, const std::vector<std::size_t>& ops) {
    std::string text;
    for (std::size_t k = 0; k < ops.size() && k < kMaxListed; ++k)
      text += (k ? ", " : "") + OpLabel(sub.ops[ops[k]], ops[k]);
    if (ops.size() > kMaxListed) text += fmt::format(" and {} more", ops.size() - kMaxListed);
    return text;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const TensorRef& ref = workload.origins[i];
    if (ref.subgraph < 0 || static_cast<std::size_t>(ref.subgraph) >= graph.subgraphs.size())
      continue;
    const Subgraph& sub = graph.subgraphs[ref.subgraph];
    if (ref.tensor < 0 || static_cast<std::size_t>(ref.tensor) >= sub.tensors.size()) continue;
    const Uses& u = uses[ref.subgraph][ref.tensor];
    std::string text = graph.subgraphs.size() > 1 ? fmt::format("subgraph {}; ", ref.subgraph) : "";
    const bool is_input =
        std::find(sub.inputs.begin(), sub.inputs.end(), ref.tensor) != sub.inputs.end();
    if (!u.producers.empty())
      text += "produced by " + list(sub, u.producers);
    else
      text += is_input ? (ref.subgraph == 0 ? "a graph input" : "a subgraph input") : "no producer";
    text += u.consumers.empty() ? "; no consumer" : "; read by " + list(sub, u.consumers);
    out[i] = std::move(text);
  }
  return out;
}

}  // namespace memplan
