// In place as a record transform: find the shares of the file order, merge the records.
#include <fmt/format.h>

#include <map>
#include <numeric>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "src/schedule/simulate.h"
#include "src/schedule/tensor_graph.h"

namespace memplan {

std::vector<BufferShare> FindShares(const Graph& graph, std::size_t subgraph,
                                    const InPlaceRuleSet& rules,
                                    std::span<const std::int32_t> order) {
  if (subgraph >= graph.subgraphs.size())
    throw UsageError(fmt::format("{}: no subgraph {}", graph.source, subgraph));
  const Subgraph& sg = graph.subgraphs[subgraph];
  const schedule::TensorGraph g = schedule::BuildTensorGraph(graph, subgraph, &rules, 1);
  std::vector<std::int32_t> file;
  if (order.empty()) {
    file.resize(g.ops.size());
    std::iota(file.begin(), file.end(), 0);
    order = file;
  }
  schedule::CheckTopological(g, order, fmt::format("{}: subgraph {}", graph.source, subgraph));
  const schedule::Simulation sim = schedule::Simulate(g, order);
  // The buffer a tensor lives in, followed through every share made so far.
  std::vector<std::int32_t> root(sg.tensors.size());
  std::iota(root.begin(), root.end(), 0);
  std::vector<BufferShare> shares;
  for (const std::int32_t v : order) {
    const schedule::OpNode& node = g.ops[static_cast<std::size_t>(v)];
    const Operator& op = sg.ops[static_cast<std::size_t>(v)];
    std::int32_t input = -1;
    ShareKind kind = ShareKind::kAlias;
    if (node.alias_input >= 0) {
      input = node.alias_input;
    } else if (const std::int32_t c = sim.overwrite[static_cast<std::size_t>(v)]; c >= 0) {
      input = node.candidates[static_cast<std::size_t>(c)].tensor;
      kind = ShareKind::kOverwrite;
    }
    if (input < 0) continue;
    const std::int32_t output = op.outputs[0];
    root[static_cast<std::size_t>(output)] = root[static_cast<std::size_t>(input)];
    shares.push_back({static_cast<std::int32_t>(subgraph), v, output, input,
                      root[static_cast<std::size_t>(output)], kind});
  }
  return shares;
}

InPlaceRecords ApplyInPlace(const Graph& graph, const GraphRecords& records,
                            const InPlaceRuleSet& rules) {
  const Problem& original = records.problem;
  const std::size_t n = original.size();
  if (records.origins.size() != n)
    throw UsageError(
        fmt::format("{}: in place needs the tensor behind every record ({} records, {} "
                    "origins)",
                    graph.source, n, records.origins.size()));
  std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> record_of;
  for (std::size_t i = 0; i < n; ++i)
    record_of[{records.origins[i].subgraph, records.origins[i].tensor}] = i;
  auto find_record = [&](std::int32_t s, std::int32_t t) -> std::optional<std::size_t> {
    const auto it = record_of.find({s, t});
    if (it == record_of.end()) return std::nullopt;
    return it->second;
  };

  // Union-find over records; the input side (the older buffer) stays the root.
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  InPlaceRecords out;
  if (!rules.empty())
    for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
      for (const BufferShare& share : FindShares(graph, s, rules)) {
        const auto out_rec = find_record(share.subgraph, share.output);
        const auto in_rec = find_record(share.subgraph, share.input);
        if (!out_rec || !in_rec || original.IsFixed(*out_rec) || original.IsFixed(*in_rec))
          continue;
        parent[find(*out_rec)] = find(*in_rec);
        out.shares.push_back(share);
      }
  // Root tensors of the shares as applied (a skipped share breaks a chain).
  for (BufferShare& share : out.shares)
    share.root = records.origins[find(*find_record(share.subgraph, share.output))].tensor;

  out.buffer_of.assign(n, 0);
  std::vector<std::size_t> merged_of_root(n, n);
  Problem& p = out.problem;
  p.alignment = original.alignment;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t r = find(i);
    if (merged_of_root[r] == n) {
      merged_of_root[r] = p.records.size();
      p.records.push_back(original.records[r]);
      if (!original.names.empty()) p.names.push_back(original.names[r]);
      if (!original.fixed_offsets.empty()) p.fixed_offsets.push_back(original.fixed_offsets[r]);
      out.origins.push_back(records.origins[r]);
    }
    const std::size_t m = merged_of_root[r];
    out.buffer_of[i] = m;
    UsageRecord& merged = p.records[m];
    const UsageRecord& rec = original.records[i];
    merged.size = std::max(merged.size, rec.size);
    merged.first = std::min(merged.first, rec.first);
    merged.last = std::max(merged.last, rec.last);
  }
  return out;
}

OffsetPlan ExpandPlan(const Problem& original, const InPlaceRecords& merged,
                      const OffsetPlan& merged_plan) {
  if (merged.buffer_of.size() != original.size() ||
      merged_plan.offsets.size() != merged.problem.size())
    throw InternalError("ExpandPlan: the merged records do not belong to this problem or plan");
  std::vector<Bytes> offsets(original.size());
  for (std::size_t i = 0; i < original.size(); ++i) {
    const std::size_t b = merged.buffer_of[i];
    const UsageRecord& buffer = merged.problem.records[b];
    const UsageRecord& rec = original.records[i];
    if (rec.size > buffer.size || rec.first < buffer.first || rec.last > buffer.last)
      throw InternalError(fmt::format(
          "in place: {} does not fit its buffer {} (size {}, steps {}..{})", original.Describe(i),
          merged.problem.NameOf(b), buffer.size, buffer.first, buffer.last));
    offsets[i] = merged_plan.offsets[b];
  }
  OffsetPlan plan = merged_plan;
  plan.offsets = std::move(offsets);
  plan.arena_bytes = ArenaBytes(original, plan.offsets);
  return plan;
}

void VerifyExpandedOrThrow(const Problem& original, const InPlaceRecords& merged,
                           const OffsetPlan& merged_plan, const OffsetPlan& expanded) {
  VerifyOrThrow(merged.problem, merged_plan);
  const OffsetPlan again = ExpandPlan(original, merged, merged_plan);
  if (again.offsets != expanded.offsets)
    throw InternalError("in place: a tensor does not sit at the offset of the buffer it shares");
  if (expanded.arena_bytes != ArenaBytes(original, expanded.offsets))
    throw InternalError("in place: the expanded plan's arena_bytes is wrong");
}

}  // namespace memplan
