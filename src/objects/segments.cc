// Live segments and the positional-maximum bounds of shared-objects plans.
#include <algorithm>
#include <set>

#include "memplan/bounds.h"
#include "src/objects/sweep.h"

namespace memplan {

namespace objects_internal {

namespace {

// Live records ordered as a task profile: size non-increasing, then record index.
struct ProfileOrder {
  const std::vector<UsageRecord>* records;
  bool operator()(std::size_t a, std::size_t b) const {
    const Bytes sa = (*records)[a].size, sb = (*records)[b].size;
    return sa != sb ? sa > sb : a < b;
  }
};

}  // namespace

std::vector<Segment> LiveSegments(const std::vector<UsageRecord>& records) {
  std::vector<Segment> out;
  // The live set changes only at a record's first step or the step after its last.
  const std::size_t n = records.size();
  std::vector<Step> points;
  points.reserve(2 * n);
  for (const UsageRecord& r : records) {
    points.push_back(r.first);
    points.push_back(r.last + 1);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<std::size_t> by_first(n), by_last(n);
  for (std::size_t i = 0; i < n; ++i) by_first[i] = by_last[i] = i;
  std::stable_sort(by_first.begin(), by_first.end(), [&](std::size_t a, std::size_t b) {
    return records[a].first < records[b].first;
  });
  std::stable_sort(by_last.begin(), by_last.end(),
                   [&](std::size_t a, std::size_t b) { return records[a].last < records[b].last; });
  std::set<std::size_t, ProfileOrder> live(ProfileOrder{&records});
  Bytes breadth = 0;
  std::size_t nf = 0, nl = 0;
  for (std::size_t p = 0; p + 1 < points.size(); ++p) {
    const Step step = points[p];
    while (nl < n && records[by_last[nl]].last < step) {
      breadth -= records[by_last[nl]].size;
      live.erase(by_last[nl++]);
    }
    while (nf < n && records[by_first[nf]].first == step) {
      breadth += records[by_first[nf]].size;
      live.insert(by_first[nf++]);
    }
    if (live.empty()) continue;
    out.push_back({step, points[p + 1] - 1, {live.begin(), live.end()}, breadth});
  }
  return out;
}

}  // namespace objects_internal

std::vector<std::vector<std::size_t>> TaskProfiles(const std::vector<UsageRecord>& records) {
  Step steps = 0;
  for (const UsageRecord& r : records) steps = std::max(steps, r.last + 1);
  std::vector<std::vector<std::size_t>> profiles(static_cast<std::size_t>(steps));
  for (std::size_t i = 0; i < records.size(); ++i)
    for (Step t = records[i].first; t <= records[i].last; ++t)
      profiles[static_cast<std::size_t>(t)].push_back(i);
  for (auto& profile : profiles)
    std::stable_sort(profile.begin(), profile.end(), [&](std::size_t a, std::size_t b) {
      return records[a].size > records[b].size;
    });
  return profiles;
}

std::vector<Bytes> PositionalMaximums(const std::vector<UsageRecord>& records) {
  // The live set just after some record starts contains the live set of every later
  // step up to the next start, so the k-th largest size peaks at a start step.
  std::vector<Bytes> pm;
  const std::size_t n = records.size();
  std::vector<std::size_t> by_first(n), by_last(n);
  for (std::size_t i = 0; i < n; ++i) by_first[i] = by_last[i] = i;
  std::sort(by_first.begin(), by_first.end(),
            [&](std::size_t a, std::size_t b) { return records[a].first < records[b].first; });
  std::sort(by_last.begin(), by_last.end(),
            [&](std::size_t a, std::size_t b) { return records[a].last < records[b].last; });
  std::multiset<Bytes, std::greater<>> live;
  std::size_t nf = 0, nl = 0;
  while (nf < n) {
    const Step step = records[by_first[nf]].first;
    while (nl < n && records[by_last[nl]].last < step)
      live.erase(live.find(records[by_last[nl++]].size));
    while (nf < n && records[by_first[nf]].first == step) live.insert(records[by_first[nf++]].size);
    if (live.size() > pm.size()) pm.resize(live.size(), 0);
    std::size_t k = 0;
    for (Bytes size : live) {
      pm[k] = std::max(pm[k], size);
      ++k;
    }
  }
  return pm;
}

Bytes ObjectsLowerBound(const Problem& problem) {
  Bytes total = 0;
  for (Bytes size : PositionalMaximums(objects_internal::AlignedRecords(problem))) total += size;
  return total;
}

}  // namespace memplan
