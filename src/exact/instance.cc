#include "src/exact/instance.h"

#include <algorithm>
#include <numeric>

namespace memplan::exact {

namespace {

// Sorts and merges overlapping or touching ranges.
std::vector<Interval> Merge(std::vector<Interval> ranges) {
  if (!std::is_sorted(ranges.begin(), ranges.end())) std::sort(ranges.begin(), ranges.end());
  std::vector<Interval> merged;
  for (const Interval& r : ranges) {
    if (!merged.empty() && r.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  return merged;
}

}  // namespace

Units Instance::Lift(int b, Units start) const {
  Units p = Align(start);
  const std::vector<Interval>& ranges = buffer_obstacles[static_cast<std::size_t>(b)];
  // The first range that ends above p (ranges are merged: their ends increase too).
  auto it = std::upper_bound(ranges.begin(), ranges.end(), p,
                             [](Units v, const Interval& o) { return v < o.second; });
  for (; it != ranges.end(); ++it) {
    if (it->second <= p) continue;
    if (it->first >= p + size[static_cast<std::size_t>(b)]) break;
    p = Align(it->second);
  }
  return p;
}

Units Instance::Available(int s, Units floor, Units capacity) const {
  if (floor >= capacity) return 0;
  const auto si = static_cast<std::size_t>(s);
  const std::vector<Interval>& ranges = obstacles[si];
  const std::vector<Units>& prefix = obstacle_prefix[si];
  // Units the obstacles cover below `v`: whole ranges before it, and part of the one across.
  auto covered_below = [&](Units v) -> Units {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), v,
                               [](Units x, const Interval& o) { return x < o.second; });
    const auto k = static_cast<std::size_t>(it - ranges.begin());
    Units c = k == 0 ? 0 : prefix[k - 1];
    if (it != ranges.end() && it->first < v) c += v - it->first;
    return c;
  };
  return capacity - floor - (covered_below(capacity) - covered_below(floor));
}

namespace {

// The relations of the free records (buffers): which overlap in sections, which live in
// each section, and the fixed records (`fixed`, by offset) each must stay clear of.
void LinkBuffers(const Problem& problem, const std::vector<std::size_t>& fixed, Instance& in) {
  const std::size_t n = in.buffers();
  in.overlaps.assign(n, {});
  in.section_buffers.assign(static_cast<std::size_t>(in.sections), {});
  in.buffer_obstacles.assign(n, {});
  std::vector<int> by_lo(n);
  std::iota(by_lo.begin(), by_lo.end(), 0);
  std::sort(by_lo.begin(), by_lo.end(), [&](int a, int b) {
    return in.lo[static_cast<std::size_t>(a)] < in.lo[static_cast<std::size_t>(b)];
  });
  for (std::size_t x = 0; x < n; ++x) {
    const auto a = static_cast<std::size_t>(by_lo[x]);
    for (std::size_t y = x + 1; y < n; ++y) {
      const auto b = static_cast<std::size_t>(by_lo[y]);
      if (in.lo[b] > in.hi[a]) break;
      in.overlaps[a].push_back(static_cast<int>(b));
      in.overlaps[b].push_back(static_cast<int>(a));
    }
  }
  for (std::size_t b = 0; b < n; ++b) {
    std::sort(in.overlaps[b].begin(), in.overlaps[b].end());
    for (int s = in.lo[b]; s <= in.hi[b]; ++s)
      in.section_buffers[static_cast<std::size_t>(s)].push_back(static_cast<int>(b));
    // The fixed records live with it (fewer than the ranges of its sections summed when
    // fixed records live long, as in the neighbourhood search's windows).
    std::vector<Interval> obstacles;
    const UsageRecord& r = problem.records[in.record[b]];
    for (std::size_t i : fixed)
      if (Conflicts(r, problem.records[i])) {
        const Units begin = *problem.fixed_offsets[i] / in.unit;
        obstacles.push_back({begin, begin + problem.records[i].size / in.unit});
      }
    in.buffer_obstacles[b] = Merge(std::move(obstacles));
  }
}

// Sets the instance's unit, alignment and sections; returns the section bounds (where free
// records start and end). Every canonical offset is a sum of sizes (and fixed offsets),
// rounded up to the alignment: a multiple of their gcd g, or of gcd(g, alignment) when the
// alignment does not divide g.
std::vector<Step> SetUnitAndSections(const Problem& problem, Instance& in) {
  Bytes unit = 0;
  std::vector<Step> points;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.size == 0) continue;
    unit = std::gcd(unit, r.size);
    if (problem.IsFixed(i)) {
      unit = std::gcd(unit, *problem.fixed_offsets[i]);
      continue;
    }
    points.push_back(r.first);
    points.push_back(r.last + 1);
  }
  const Bytes alignment = std::max<Bytes>(problem.alignment, 1);
  if (unit == 0 || unit % alignment != 0) unit = std::gcd(unit, alignment);
  in.unit = unit;
  in.align = unit % alignment == 0 ? 1 : alignment / unit;
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  in.sections = points.empty() ? 0 : static_cast<int>(points.size()) - 1;
  for (int s = 0; s < in.sections; ++s)
    in.section_steps.push_back(points[static_cast<std::size_t>(s) + 1] -
                               points[static_cast<std::size_t>(s)]);
  return points;
}

// The fixed records live in some section, with the sections they are live in.
struct FixedRecords {
  std::vector<std::size_t> records;
  std::vector<std::pair<int, int>> spans;
};

// Adds the free records to the instance (in units, with their sections) and returns the
// fixed ones that meet a section.
FixedRecords AddRecords(const Problem& problem, const std::vector<Step>& points, Instance& in) {
  auto section_of = [&](Step step) {
    return static_cast<int>(std::lower_bound(points.begin(), points.end(), step) - points.begin());
  };
  FixedRecords fixed;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.size == 0) continue;
    if (problem.IsFixed(i)) {
      const Units begin = *problem.fixed_offsets[i] / in.unit, end = begin + r.size / in.unit;
      in.fixed_top = std::max(in.fixed_top, end);
      in.any_obstacles = true;
      // The sections with a step in first..last: from the one holding `first` (the last
      // bound at or before it) to the one before the first bound after `last`.
      const int lo =
          std::max(0, static_cast<int>(std::upper_bound(points.begin(), points.end(), r.first) -
                                       points.begin()) -
                          1);
      const int hi = std::min(in.sections - 1, section_of(r.last + 1) - 1);
      if (lo > hi) continue;
      fixed.records.push_back(i);
      fixed.spans.push_back({lo, hi});
      continue;
    }
    const int lo = section_of(r.first), hi = section_of(r.last + 1) - 1;
    in.record.push_back(i);
    in.size.push_back(r.size / in.unit);
    in.lo.push_back(lo);
    in.hi.push_back(hi);
    in.steps.push_back(r.last - r.first + 1);
  }
  return fixed;
}

// Puts the fixed records in order of offset (so each section's and buffer's ranges come
// sorted) and sets each section's obstacles and their prefix sums.
void SetObstacles(const Problem& problem, FixedRecords& fixed, Instance& in) {
  std::vector<std::vector<Interval>> fixed_in(static_cast<std::size_t>(in.sections));
  std::vector<std::size_t> by_offset(fixed.records.size());
  std::iota(by_offset.begin(), by_offset.end(), 0);
  std::stable_sort(by_offset.begin(), by_offset.end(), [&](std::size_t a, std::size_t b) {
    return *problem.fixed_offsets[fixed.records[a]] < *problem.fixed_offsets[fixed.records[b]];
  });
  std::vector<std::size_t> sorted;
  for (std::size_t k : by_offset) {
    const std::size_t i = fixed.records[k];
    sorted.push_back(i);
    const Units begin = *problem.fixed_offsets[i] / in.unit;
    const Interval range{begin, begin + problem.records[i].size / in.unit};
    for (int s = fixed.spans[k].first; s <= fixed.spans[k].second; ++s)
      fixed_in[static_cast<std::size_t>(s)].push_back(range);
  }
  fixed.records = std::move(sorted);
  in.obstacles.resize(static_cast<std::size_t>(in.sections));
  in.obstacle_prefix.resize(static_cast<std::size_t>(in.sections));
  for (std::size_t s = 0; s < static_cast<std::size_t>(in.sections); ++s) {
    in.obstacles[s] = Merge(std::move(fixed_in[s]));
    Units covered = 0;
    for (const Interval& o : in.obstacles[s]) {
      covered += o.second - o.first;
      in.obstacle_prefix[s].push_back(covered);
    }
  }
}

}  // namespace

Instance BuildInstance(const Problem& problem) {
  Instance in;
  const std::vector<Step> points = SetUnitAndSections(problem, in);
  FixedRecords fixed = AddRecords(problem, points, in);
  SetObstacles(problem, fixed, in);
  LinkBuffers(problem, fixed.records, in);
  return in;
}

}  // namespace memplan::exact
