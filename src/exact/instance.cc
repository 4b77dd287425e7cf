#include "src/exact/instance.h"

#include <algorithm>
#include <numeric>

namespace memplan::exact {

namespace {

// Sorts and merges overlapping or touching ranges.
std::vector<Interval> Merge(std::vector<Interval> ranges) {
  std::sort(ranges.begin(), ranges.end());
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
  for (const Interval& o : buffer_obstacles[static_cast<std::size_t>(b)]) {
    if (o.second <= p) continue;
    if (o.first >= p + size[static_cast<std::size_t>(b)]) break;
    p = Align(o.second);
  }
  return p;
}

Units Instance::Available(int s, Units floor, Units capacity) const {
  if (floor >= capacity) return 0;
  Units free = capacity - floor;
  for (const Interval& o : obstacles[static_cast<std::size_t>(s)]) {
    const Units b = std::max(o.first, floor), e = std::min(o.second, capacity);
    if (b < e) free -= e - b;
  }
  return free;
}

Instance BuildInstance(const Problem& problem) {
  Instance in;
  // Every canonical offset is a sum of sizes (and fixed offsets), rounded up to the
  // alignment: a multiple of their gcd g, or of gcd(g, alignment) when the alignment
  // does not divide g.
  Bytes unit = 0;
  std::vector<Step> points;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.size == 0) continue;
    unit = std::gcd(unit, r.size);
    if (problem.IsFixed(i)) unit = std::gcd(unit, *problem.fixed_offsets[i]);
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
  auto section_of = [&](Step step) {
    return static_cast<int>(std::lower_bound(points.begin(), points.end(), step) - points.begin());
  };

  std::vector<std::vector<Interval>> fixed_in(static_cast<std::size_t>(in.sections));
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.size == 0) continue;
    const int lo = section_of(r.first), hi = section_of(r.last + 1) - 1;
    if (problem.IsFixed(i)) {
      const Units begin = *problem.fixed_offsets[i] / in.unit, end = begin + r.size / in.unit;
      in.fixed_top = std::max(in.fixed_top, end);
      for (int s = lo; s <= hi; ++s) fixed_in[static_cast<std::size_t>(s)].push_back({begin, end});
      in.any_obstacles = true;
      continue;
    }
    in.record.push_back(i);
    in.size.push_back(r.size / in.unit);
    in.lo.push_back(lo);
    in.hi.push_back(hi);
    in.steps.push_back(r.last - r.first + 1);
  }
  in.obstacles.resize(static_cast<std::size_t>(in.sections));
  for (int s = 0; s < in.sections; ++s)
    in.obstacles[static_cast<std::size_t>(s)] = Merge(fixed_in[static_cast<std::size_t>(s)]);

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
    std::vector<Interval> obstacles;
    for (int s = in.lo[b]; s <= in.hi[b]; ++s) {
      in.section_buffers[static_cast<std::size_t>(s)].push_back(static_cast<int>(b));
      const auto& here = in.obstacles[static_cast<std::size_t>(s)];
      obstacles.insert(obstacles.end(), here.begin(), here.end());
    }
    in.buffer_obstacles[b] = Merge(std::move(obstacles));
  }
  return in;
}

}  // namespace memplan::exact
