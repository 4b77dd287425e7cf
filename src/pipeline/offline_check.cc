#include "memplan/offline_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/tflite.h"
#include "memplan/vela.h"

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
  // Vela's feature maps inside an ethos-u op's scratch area are the scratch's bytes, as the
  // NPU sees them: one buffer with it.
  for (const VelaScratchArea& area : VelaScratchAreas(*workload.graph)) {
    const auto scratch = record_of.find({area.scratch.subgraph, area.scratch.tensor});
    if (scratch == record_of.end()) continue;
    for (const TensorRef& t : area.inside) {
      const auto it = record_of.find({t.subgraph, t.tensor});
      if (it == record_of.end() || !fixed.IsFixed(it->second)) continue;
      parent[find(it->second)] = find(scratch->second);
    }
    out.scratch_areas.push_back(VelaScratchText(*workload.graph, area));
  }
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
  std::vector<Bytes> ends;
  std::vector<std::size_t> group_of(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!fixed.IsFixed(i)) {
      ++out.online;
      continue;
    }
    ++out.placed;
    const Bytes begin = *fixed.fixed_offsets[i];
    const Bytes end = begin + fixed.records[i].size;
    if (!trusted.empty() && trusted[i]) {
      // Kept as fixed: FindViolations lets fixed records overlap each other only.
      groups.records.push_back(fixed.records[i]);
      groups.names.push_back(fixed.NameOf(i));
      groups.fixed_offsets.resize(groups.records.size());
      groups.fixed_offsets.back() = begin;
      offsets.push_back(begin);
      ends.push_back(end);
      continue;
    }
    const std::size_t r = find(i);
    if (group_of[r] == n) {
      group_of[r] = groups.records.size();
      groups.records.push_back(fixed.records[i]);
      groups.names.push_back(fixed.NameOf(r));
      offsets.push_back(begin);
      ends.push_back(end);
      if (!groups.fixed_offsets.empty()) groups.fixed_offsets.resize(groups.records.size());
    }
    // A group spans its members' bytes (shares start at one offset; a scratch area holds
    // its feature maps) and their lifetimes.
    const std::size_t g = group_of[r];
    offsets[g] = std::min(offsets[g], begin);
    ends[g] = std::max(ends[g], end);
    UsageRecord& record = groups.records[g];
    record.size = ends[g] - offsets[g];
    record.first = std::min(record.first, fixed.records[i].first);
    record.last = std::max(record.last, fixed.records[i].last);
  }
  if (!groups.fixed_offsets.empty()) groups.fixed_offsets.resize(groups.records.size());
  const OffsetPlan plan = MakeOffsetPlan(groups, "offline", offsets);
  out.violations = FindViolations(groups, plan, limit);
  out.arena_bytes = plan.arena_bytes;
  out.lower_bound = OffsetsLowerBound(groups);
  return out;
}

void RefuseUnsoundOfflinePlan(const Workload& workload, const std::string& input) {
  if (!workload.graph || workload.kind != "tflite" || !workload.problem.HasFixed()) return;
  constexpr std::size_t kListed = 3;
  const OfflineCheck check = CheckOfflinePlan(workload, InPlaceRuleSetNamed("tflm"),
                                              workload.problem.alignment, kListed + 1);
  if (check.violations.empty()) return;
  std::string listed;
  for (std::size_t k = 0; k < std::min(kListed, check.violations.size()); ++k)
    listed += "\n  " + check.violations[k].message;
  throw InputError(fmt::format(
      "{}: the {} plan it carries, which TFLM and every plan of it keep, does not fit the "
      "model ({}{} violations; memplan verify {} lists them):{}",
      input, kOfflinePlanMetadata, check.violations.size() > kListed ? "more than " : "",
      std::min(kListed, check.violations.size()), input, listed));
}

}  // namespace memplan
