#include "memplan/bounds.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace memplan {

Bytes NaiveBytes(const Problem& problem) {
  Bytes total = 0;
  for (const UsageRecord& r : problem.records) total += AlignUp(r.size, problem.alignment);
  return total;
}

namespace {

// Live fixed records by begin; offline plans may let them overlap each other, so the
// bound counts the bytes they cover (their union), not the sum of their sizes.
class FixedCover {
 public:
  void Add(Bytes begin, Bytes end) {
    ranges_.emplace(begin, end);
    dirty_ = true;
  }
  void Remove(Bytes begin, Bytes end) {
    auto [first, last] = ranges_.equal_range(begin);
    for (auto it = first; it != last; ++it)
      if (it->second == end) {
        ranges_.erase(it);
        break;
      }
    dirty_ = true;
  }
  // Bytes covered by at least one live fixed record (recomputed only after a change).
  Bytes Union() {
    if (!dirty_) return union_;
    union_ = 0;
    Bytes covered_to = 0;
    for (const auto& [begin, end] : ranges_) {
      const Bytes from = std::max(begin, covered_to);
      if (end > from) union_ += end - from;
      covered_to = std::max(covered_to, end);
    }
    dirty_ = false;
    return union_;
  }

 private:
  std::multimap<Bytes, Bytes> ranges_;  // begin -> end
  Bytes union_ = 0;
  bool dirty_ = false;
};

}  // namespace

// Why the topmost record's padding is taken off: records alive at one step sit at
// aligned, disjoint offsets; each but the highest is followed by an aligned start, so
// it takes its rounded size, while the highest ends the arena at its raw size.
Bytes OffsetsLowerBound(const Problem& problem) {
  const Bytes align = problem.alignment;
  struct Event {
    Step step;
    bool arrive;  // false sorts first: inclusive intervals end before the next begin
    std::size_t record;
    bool operator<(const Event& o) const {
      return std::tie(step, arrive, record) < std::tie(o.step, o.arrive, o.record);
    }
  };
  std::vector<Event> events;
  events.reserve(problem.size() * 2);
  Bytes bound = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.size == 0) continue;
    events.push_back({r.first, true, i});
    events.push_back({r.last + 1, false, i});
    if (problem.IsFixed(i)) bound = std::max(bound, *problem.fixed_offsets[i] + r.size);
  }
  std::sort(events.begin(), events.end());
  Bytes padded = 0;           // rounded sizes of the live free records
  std::multiset<Bytes> pads;  // their nonzero paddings (alignment > 1 only)
  FixedCover fixed;
  for (std::size_t e = 0; e < events.size(); ++e) {
    const Event& ev = events[e];
    const UsageRecord& r = problem.records[ev.record];
    if (problem.IsFixed(ev.record)) {
      const Bytes begin = *problem.fixed_offsets[ev.record];
      if (ev.arrive)
        fixed.Add(begin, begin + r.size);
      else
        fixed.Remove(begin, begin + r.size);
    } else {
      const Bytes aligned = AlignUp(r.size, align);
      const Bytes pad = aligned - r.size;
      if (ev.arrive) {
        padded += aligned;
        if (pad) pads.insert(pad);
      } else {
        padded -= aligned;
        if (pad) pads.erase(pads.find(pad));
      }
    }
    if (e + 1 < events.size() && events[e + 1].step == ev.step) continue;
    const Bytes top_pad = pads.empty() ? 0 : *pads.rbegin();
    const Bytes free_part = padded > top_pad ? padded - top_pad : 0;
    bound = std::max(bound, fixed.Union() + free_part);
  }
  return bound;
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
