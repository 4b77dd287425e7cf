#include "memplan/bounds.h"

#include <algorithm>
#include <utility>

namespace memplan {

Bytes NaiveBytes(const Problem& problem) {
  Bytes total = 0;
  for (const UsageRecord& r : problem.records) total += AlignUp(r.size, problem.alignment);
  return total;
}

namespace {

// Sweeps (step, +size) at first and (step after last, -size); returns the peak.
Bytes PeakLive(const std::vector<UsageRecord>& records, Bytes alignment) {
  std::vector<std::pair<Step, std::int64_t>> events;
  events.reserve(records.size() * 2);
  for (const UsageRecord& r : records) {
    if (r.size == 0) continue;
    const auto size = static_cast<std::int64_t>(AlignUp(r.size, alignment));
    events.emplace_back(r.first, size);
    events.emplace_back(r.last + 1, -size);
  }
  // At equal steps the releases (negative) come first: inclusive intervals that end at
  // step t-1 are gone before those starting at t arrive.
  std::sort(events.begin(), events.end());
  std::int64_t live = 0, peak = 0;
  for (const auto& [step, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return static_cast<Bytes>(peak);
}

}  // namespace

Bytes OffsetsLowerBound(const Problem& problem) {
  return PeakLive(problem.records, problem.alignment);
}

std::vector<Bytes> StepBreadths(const std::vector<UsageRecord>& records) {
  Step steps = 0;
  for (const UsageRecord& r : records) steps = std::max(steps, r.last + 1);
  std::vector<std::int64_t> delta(static_cast<std::size_t>(steps) + 1, 0);
  for (const UsageRecord& r : records) {
    delta[static_cast<std::size_t>(r.first)] += static_cast<std::int64_t>(r.size);
    delta[static_cast<std::size_t>(r.last + 1)] -= static_cast<std::int64_t>(r.size);
  }
  std::vector<Bytes> breadth(static_cast<std::size_t>(steps));
  std::int64_t live = 0;
  for (std::size_t t = 0; t < breadth.size(); ++t) {
    live += delta[t];
    breadth[t] = static_cast<Bytes>(live);
  }
  return breadth;
}

}  // namespace memplan
