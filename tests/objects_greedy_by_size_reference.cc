#include "tests/objects_greedy_by_size_reference.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "memplan/bounds.h"

namespace memplan::reference {

namespace {

using Distance = std::uint64_t;
constexpr Distance kFar = std::numeric_limits<Distance>::max();
constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();

// The steps between two records that do not conflict, kFar when they do.
Distance Gap(const UsageRecord& a, const UsageRecord& b) {
  if (a.last < b.first) return static_cast<Distance>(b.first - a.last);
  if (b.last < a.first) return static_cast<Distance>(a.first - b.last);
  return kFar;
}

// The smallest gap between q and a member, kFar when q conflicts with one (or there is
// none).
Distance DistanceTo(const std::vector<UsageRecord>& members, const UsageRecord& q) {
  Distance best = kFar;
  for (const UsageRecord& m : members) {
    const Distance d = Gap(m, q);
    if (d == kFar) return kFar;
    best = std::min(best, d);
  }
  return best;
}

}  // namespace

StepNumbered NumberByFirstStep(const Problem& problem) {
  StepNumbered out;
  out.order.resize(problem.size());
  std::iota(out.order.begin(), out.order.end(), std::size_t{0});
  std::stable_sort(out.order.begin(), out.order.end(), [&](std::size_t a, std::size_t b) {
    return problem.records[a].first < problem.records[b].first;
  });
  for (std::size_t i : out.order) {
    UsageRecord r = problem.records[i];
    r.size = AlignUp(r.size, problem.alignment);
    out.records.push_back(r);
  }
  return out;
}

ObjectPlan ObjectsGreedyBySize(const Problem& problem) {
  const std::size_t n = problem.size();
  const auto [order, records] = NumberByFirstStep(problem);
  // A record's position: how many positional maximums are >= its size, minus one.
  const std::vector<Bytes> pm = PositionalMaximums(records);
  std::vector<std::size_t> position(n);
  for (std::size_t i = 0; i < n; ++i)
    position[i] = static_cast<std::size_t>(std::count_if(
                      pm.begin(), pm.end(), [&](Bytes m) { return m >= records[i].size; })) -
                  1;

  std::vector<Distance> best_dist(n, kFar);
  std::vector<ObjectId> best_object(n, kNone);
  std::vector<bool> done(n, false);
  std::vector<std::vector<UsageRecord>> members;  // per object
  std::vector<Bytes> sizes;                       // per object
  std::vector<ObjectId> ids(n, kNone);
  for (std::size_t placed = 0; placed < n; ++placed) {
    // The lowest position with a record left, then nearest object, larger size, lower
    // index.
    std::size_t pick = n;
    for (std::size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      if (pick == n || position[i] < position[pick]) {
        pick = i;
        continue;
      }
      if (position[i] != position[pick]) continue;
      if (best_dist[i] != best_dist[pick]) {
        if (best_dist[i] < best_dist[pick]) pick = i;
      } else if (records[i].size > records[pick].size) {
        pick = i;
      }
    }
    const UsageRecord& chosen = records[pick];
    const bool new_object = best_object[pick] == kNone;
    const ObjectId object = new_object ? members.size() : best_object[pick];
    if (new_object) {
      members.emplace_back();
      sizes.push_back(0);
    }
    members[object].push_back(chosen);
    sizes[object] = std::max(sizes[object], chosen.size);
    ids[pick] = object;
    done[pick] = true;
    // Every record left: one that conflicts with `chosen` and had `object` as its best
    // takes the nearest object that still fits it (lowest id among the nearest); one
    // that fits `object` and is strictly nearer to `chosen` than to its best takes it.
    for (std::size_t q = 0; q < n; ++q) {
      if (done[q]) continue;
      const Distance d = Gap(chosen, records[q]);
      if (d == kFar) {
        if (best_object[q] != object) continue;
        best_dist[q] = kFar;
        best_object[q] = kNone;
        for (ObjectId o = 0; o < members.size(); ++o) {
          const Distance to = DistanceTo(members[o], records[q]);
          if (to < best_dist[q]) {
            best_dist[q] = to;
            best_object[q] = o;
          }
        }
      } else if (d < best_dist[q] && DistanceTo(members[object], records[q]) != kFar) {
        best_dist[q] = d;
        best_object[q] = object;
      }
    }
  }
  std::vector<ObjectId> out(n);
  for (std::size_t p = 0; p < n; ++p) out[order[p]] = ids[p];
  return MakeObjectPlan("greedy_by_size", std::move(out), std::move(sizes));
}

}  // namespace memplan::reference
