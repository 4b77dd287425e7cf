#include "memplan/offline_check.h"

#include <map>
#include <numeric>

#include "memplan/bounds.h"
#include "memplan/error.h"

namespace memplan {

OfflineCheck CheckOfflinePlan(const Workload& workload, const InPlaceRuleSet& rules,
                              Bytes alignment, std::size_t limit,
                              const std::vector<bool>& trusted) {
  if (!workload.graph) throw InternalError("CheckOfflinePlan needs a model");
  const Problem& fixed = workload.problem;
  const std::size_t n = fixed.size();
  OfflineCheck out;
  // The shares the rules allow in the model's order, found on records without offsets
  // (ApplyInPlace never merges a fixed record).
  Problem free = fixed;
  free.fixed_offsets.clear();
  const InPlaceRecords merged =
      ApplyInPlace(*workload.graph, {free, workload.origins, workload.ops}, rules);
  std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> record_of;
  for (std::size_t i = 0; i < n; ++i)
    record_of[{workload.origins[i].subgraph, workload.origins[i].tensor}] = i;

  // Placed tensors that share by a rule at one offset become one record (size max,
  // lifetime union): a union-find over the shares the offsets use.
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const BufferShare& share : merged.shares) {
    const std::size_t o = record_of.at({share.subgraph, share.output});
    const std::size_t i = record_of.at({share.subgraph, share.input});
    const bool kept = !trusted.empty() && (trusted[o] || trusted[i]);
    if (!kept && fixed.IsFixed(o) && fixed.IsFixed(i) &&
        *fixed.fixed_offsets[o] == *fixed.fixed_offsets[i]) {
      parent[find(o)] = find(i);
      ++out.shares;
    }
  }
  Problem groups;
  groups.alignment = alignment;
  std::vector<Bytes> offsets;
  std::vector<std::size_t> group_of(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!fixed.IsFixed(i)) {
      ++out.online;
      continue;
    }
    ++out.placed;
    if (!trusted.empty() && trusted[i]) {
      // Kept as fixed: FindViolations lets fixed records overlap each other only.
      groups.records.push_back(fixed.records[i]);
      groups.names.push_back(fixed.NameOf(i));
      groups.fixed_offsets.resize(groups.records.size());
      groups.fixed_offsets.back() = *fixed.fixed_offsets[i];
      offsets.push_back(*fixed.fixed_offsets[i]);
      continue;
    }
    const std::size_t r = find(i);
    if (group_of[r] == n) {
      group_of[r] = groups.records.size();
      groups.records.push_back(fixed.records[i]);
      groups.names.push_back(fixed.NameOf(i));
      offsets.push_back(*fixed.fixed_offsets[i]);
      if (!groups.fixed_offsets.empty()) groups.fixed_offsets.resize(groups.records.size());
    }
    UsageRecord& g = groups.records[group_of[r]];
    g.size = std::max(g.size, fixed.records[i].size);
    g.first = std::min(g.first, fixed.records[i].first);
    g.last = std::max(g.last, fixed.records[i].last);
  }
  if (!groups.fixed_offsets.empty()) groups.fixed_offsets.resize(groups.records.size());
  const OffsetPlan plan = MakeOffsetPlan(groups, "offline", offsets);
  out.violations = FindViolations(groups, plan, limit);
  out.arena_bytes = plan.arena_bytes;
  out.lower_bound = OffsetsLowerBound(groups);
  return out;
}

}  // namespace memplan
