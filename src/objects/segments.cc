// Live segments and the positional-maximum bounds of shared-objects plans.
#include <algorithm>

#include "memplan/bounds.h"
#include "src/objects/sweep.h"

namespace memplan {

namespace objects {

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
  std::size_t live = 0;
  Bytes breadth = 0;
  std::size_t nf = 0, nl = 0;
  for (std::size_t p = 0; p + 1 < points.size(); ++p) {
    const Step step = points[p];
    while (nl < n && records[by_last[nl]].last < step) {
      breadth -= records[by_last[nl++]].size;
      --live;
    }
    while (nf < n && records[by_first[nf]].first == step) {
      breadth += records[by_first[nf++]].size;
      ++live;
    }
    if (live == 0) continue;
    out.push_back({step, points[p + 1] - 1, breadth});
  }
  return out;
}

}  // namespace objects

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

namespace {

// Counts over a range of positions: add to a range, read the largest count anywhere.
class RangeAddMax {
 public:
  explicit RangeAddMax(std::size_t positions) {
    while (leaves_ < positions) leaves_ *= 2;
    max_.assign(2 * leaves_, 0);
    add_.assign(2 * leaves_, 0);
  }
  void Add(std::size_t lo, std::size_t hi) { Add(1, 0, leaves_ - 1, lo, hi); }
  std::size_t Max() const { return max_[1]; }

 private:
  void Add(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from, std::size_t to) {
    if (to < lo || hi < from) return;
    if (from <= lo && hi <= to) {
      ++add_[node];
      ++max_[node];
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    Add(2 * node, lo, mid, from, to);
    Add(2 * node + 1, mid + 1, hi, from, to);
    max_[node] = add_[node] + std::max(max_[2 * node], max_[2 * node + 1]);
  }
  std::size_t leaves_ = 1;
  std::vector<std::size_t> max_;  // the largest count in the node's range
  std::vector<std::size_t> add_;  // added to the node's whole range
};

}  // namespace

std::vector<Bytes> PositionalMaximums(const std::vector<UsageRecord>& records) {
  // The k-th largest live size at a step is >= s exactly when at least k records of size
  // >= s are live there. So with C(s) the most records of size >= s live at once,
  // pm[k] (0-based) is the largest size s with C(s) > k. Records are added largest first
  // to counts over the start steps (the live set at a start holds that of every step up
  // to the next start, so counts peak at starts); after each size, the peak is C(size).
  // O(n log n), whatever the number of records live at once.
  const std::size_t n = records.size();
  std::vector<Step> starts;
  starts.reserve(n);
  for (const UsageRecord& r : records) starts.push_back(r.first);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<std::size_t> by_size(n);
  for (std::size_t i = 0; i < n; ++i) by_size[i] = i;
  std::sort(by_size.begin(), by_size.end(),
            [&](std::size_t a, std::size_t b) { return records[a].size > records[b].size; });
  RangeAddMax counts(starts.size());
  std::vector<Bytes> pm;
  for (std::size_t k = 0; k < n;) {
    const Bytes size = records[by_size[k]].size;
    for (; k < n && records[by_size[k]].size == size; ++k) {
      const UsageRecord& r = records[by_size[k]];
      const auto lo = static_cast<std::size_t>(
          std::lower_bound(starts.begin(), starts.end(), r.first) - starts.begin());
      const auto hi = static_cast<std::size_t>(
          std::upper_bound(starts.begin(), starts.end(), r.last) - starts.begin());
      counts.Add(lo, hi - 1);  // hi > lo: r's own start is in the range
    }
    if (counts.Max() > pm.size()) pm.resize(counts.Max(), size);
  }
  return pm;
}

Bytes ObjectsLowerBound(const Problem& problem) {
  Bytes total = 0;
  for (Bytes size : PositionalMaximums(objects::AlignedRecords(problem))) total += size;
  return total;
}

}  // namespace memplan
