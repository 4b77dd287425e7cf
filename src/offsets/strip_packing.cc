// strip_packing: memplan's reconstruction (docs/offsets.md, strip_packing) of the rectangle-packing
// heuristic of Sekiyama et al. 2018, as the best-fit skyline of Burke, Kendall & Whitwell
// with lifetimes as fixed x-positions. The skyline is the height used at each step; the
// lowest (then leftmost) flat segment takes the longest record that fits inside it (ties:
// larger, then lower index), or, when none fits, is raised to its lower neighbour.
// memplan's additions: with an alignment a record starts at the aligned height, and a
// record that would overlap a fixed record it conflicts with is moved up past it; the
// skyline then rises to the record's end.
#include <algorithm>
#include <numeric>
#include <queue>

#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

namespace {

using offsets::CompactSteps;
using offsets::ConflictIndex;

// Unplaced online records grouped by first step, each group longest first, so the best
// record inside a segment [a, b] starting at step s is the first unplaced one of group s
// ending by b.
class Candidates {
 public:
  Candidates(const Problem& problem, const CompactSteps& steps) : problem_(problem), steps_(steps) {
    const auto count = static_cast<std::size_t>(steps.count);
    start_.assign(count + 1, 0);
    for (std::size_t i = 0; i < problem.size(); ++i)
      if (!problem.IsFixed(i)) ++start_[static_cast<std::size_t>(steps.first[i]) + 1];
    std::partial_sum(start_.begin(), start_.end(), start_.begin());
    records_.resize(start_.back());
    std::vector<std::size_t> cursor(start_.begin(), start_.end() - 1);
    for (std::size_t i = 0; i < problem.size(); ++i)
      if (!problem.IsFixed(i)) records_[cursor[static_cast<std::size_t>(steps.first[i])]++] = i;
    for (std::size_t s = 0; s < count; ++s)
      std::sort(records_.begin() + static_cast<std::ptrdiff_t>(start_[s]),
                records_.begin() + static_cast<std::ptrdiff_t>(start_[s + 1]),
                [&](std::size_t x, std::size_t y) { return Better(x, y); });
    position_.resize(problem.size());
    for (std::size_t pos = 0; pos < records_.size(); ++pos) position_[records_[pos]] = pos;
    next_alive_.resize(records_.size() + 1);
    std::iota(next_alive_.begin(), next_alive_.end(), 0);
    next_step_.resize(count + 1);
    std::iota(next_step_.begin(), next_step_.end(), 0);
    for (std::size_t s = 0; s < count; ++s)
      if (start_[s] == start_[s + 1]) next_step_[s] = s + 1;
  }

  // The longest record (ties: larger, lower index) lying inside [a, b], if any.
  std::optional<std::size_t> BestInside(std::int32_t a, std::int32_t b) {
    std::optional<std::size_t> best;
    for (std::size_t s = NextStep(static_cast<std::size_t>(a)); s <= static_cast<std::size_t>(b);
         s = NextStep(s + 1)) {
      // Group s is sorted by last step, latest first: skip those ending after b.
      auto begin = records_.begin() + static_cast<std::ptrdiff_t>(start_[s]);
      auto end = records_.begin() + static_cast<std::ptrdiff_t>(start_[s + 1]);
      auto fits =
          std::partition_point(begin, end, [&](std::size_t r) { return steps_.last[r] > b; });
      const std::size_t pos = NextAlive(static_cast<std::size_t>(fits - records_.begin()));
      if (pos >= start_[s + 1]) continue;
      const std::size_t r = records_[pos];
      if (!best || Better(r, *best)) best = r;
    }
    return best;
  }

  void Remove(std::size_t r) {
    const auto s = static_cast<std::size_t>(steps_.first[r]);
    const std::size_t pos = position_[r];
    next_alive_[pos] = pos + 1;
    if (NextAlive(start_[s]) >= start_[s + 1]) next_step_[s] = s + 1;
  }

 private:
  bool Better(std::size_t x, std::size_t y) const {
    const UsageRecord& a = problem_.records[x];
    const UsageRecord& b = problem_.records[y];
    if (a.last - a.first != b.last - b.first) return a.last - a.first > b.last - b.first;
    if (a.size != b.size) return a.size > b.size;
    return x < y;
  }
  // Union-find style "next" pointers with path halving.
  static std::size_t Follow(std::vector<std::size_t>& next, std::size_t p) {
    while (next[p] != p) {
      next[p] = next[next[p]];
      p = next[p];
    }
    return p;
  }
  std::size_t NextAlive(std::size_t pos) { return Follow(next_alive_, pos); }
  std::size_t NextStep(std::size_t s) { return Follow(next_step_, s); }

  const Problem& problem_;
  const CompactSteps& steps_;
  std::vector<std::size_t> start_;       // group s is records_[start_[s], start_[s+1])
  std::vector<std::size_t> records_;     // online records by first step, longest first
  std::vector<std::size_t> position_;    // where each online record sits in records_
  std::vector<std::size_t> next_alive_;  // next unplaced position at or after a position
  std::vector<std::size_t> next_step_;   // next step at or after a step with unplaced records
};

// The skyline: maximal runs of steps of equal height, kept in arrays indexed by a run's
// first and last step, and a heap of (height, first step) with stale entries skipped,
// so finding the lowest run and changing one are O(log T).
class Skyline {
 public:
  explicit Skyline(std::int32_t count)
      : last_of_(static_cast<std::size_t>(count), -1),
        first_of_(static_cast<std::size_t>(count), -1),
        height_(static_cast<std::size_t>(count), 0) {
    if (count > 0) Set(0, count - 1, 0);
  }

  struct Segment {
    std::int32_t first;  // first step of the run
    std::int32_t last;   // last step of the run
    Bytes height;        // bytes used at each of its steps
  };

  // The lowest run, the leftmost on ties.
  Segment Lowest() {
    for (;;) {
      const auto [height, first] = lowest_.top();
      const auto f = static_cast<std::size_t>(first);
      if (last_of_[f] >= 0 && height_[f] == height) return {first, last_of_[f], height};
      lowest_.pop();  // the run changed since this entry was pushed
    }
  }

  // Sets [first, last], inside `run`, to `height` and joins equal neighbours.
  void Raise(const Segment& run, std::int32_t first, std::int32_t last, Bytes height) {
    Clear(run.first);
    if (run.first < first) Set(run.first, first - 1, run.height);
    if (last < run.last) Set(last + 1, run.last, run.height);
    Set(first, last, height);
    Join(first);
  }

  // Raises a run to its lower neighbour (false when it has none).
  bool RaiseToNeighbour(const Segment& s) {
    std::optional<Bytes> target;
    if (s.first > 0) target = height_[Start(s.first - 1)];
    if (static_cast<std::size_t>(s.last) + 1 < height_.size()) {
      const Bytes next = height_[static_cast<std::size_t>(s.last) + 1];
      target = target ? std::min(*target, next) : next;
    }
    if (!target) return false;
    Clear(s.first);
    Set(s.first, s.last, *target);
    Join(s.first);
    return true;
  }

 private:
  using Entry = std::pair<Bytes, std::int32_t>;  // (height, first step)

  // First step of the run whose last step is `last`.
  std::size_t Start(std::int32_t last) const {
    return static_cast<std::size_t>(first_of_[static_cast<std::size_t>(last)]);
  }
  void Set(std::int32_t first, std::int32_t last, Bytes height) {
    last_of_[static_cast<std::size_t>(first)] = last;
    first_of_[static_cast<std::size_t>(last)] = first;
    height_[static_cast<std::size_t>(first)] = height;
    lowest_.push({height, first});
  }
  void Clear(std::int32_t first) {
    const std::int32_t last = last_of_[static_cast<std::size_t>(first)];
    last_of_[static_cast<std::size_t>(first)] = -1;
    first_of_[static_cast<std::size_t>(last)] = -1;
  }
  // Joins the run starting at `first` with neighbours of the same height.
  void Join(std::int32_t first) {
    std::int32_t from = first, to = last_of_[static_cast<std::size_t>(first)];
    const Bytes height = height_[static_cast<std::size_t>(first)];
    if (static_cast<std::size_t>(to) + 1 < height_.size() &&
        height_[static_cast<std::size_t>(to) + 1] == height) {
      const std::int32_t next = to + 1;
      to = last_of_[static_cast<std::size_t>(next)];
      Clear(next);
    }
    if (from > 0 && height_[Start(from - 1)] == height) {
      const auto previous = static_cast<std::int32_t>(Start(from - 1));
      Clear(previous);
      from = previous;
    }
    if (from == first && to == last_of_[static_cast<std::size_t>(first)]) return;
    Clear(first);
    Set(from, to, height);
  }

  std::vector<std::int32_t> last_of_;   // run starting at a step: its last step, else -1
  std::vector<std::int32_t> first_of_;  // run ending at a step: its first step, else -1
  std::vector<Bytes> height_;           // run starting at a step: its height
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> lowest_;
};

// The lowest aligned start at or above `floor` that clears every fixed record conflicting
// with record r.
Bytes ClearOfFixed(const Problem& problem, const CompactSteps& steps, const ConflictIndex& index,
                   std::size_t r, Bytes floor) {
  Bytes start = AlignUp(floor, problem.alignment);
  if (!problem.HasFixed()) return start;
  std::vector<std::pair<Bytes, Bytes>> fixed;  // (offset, end)
  index.ForEachMeeting(steps.first[r], steps.last[r], [&](std::uint32_t p) {
    if (problem.IsFixed(p) && problem.records[p].size > 0)
      fixed.push_back(
          {*problem.fixed_offsets[p], *problem.fixed_offsets[p] + problem.records[p].size});
  });
  std::sort(fixed.begin(), fixed.end());
  const Bytes size = problem.records[r].size;
  if (size == 0) return start;
  for (const auto& [offset, end] : fixed) {
    if (offset >= start + size) break;
    if (end > start) start = AlignUp(end, problem.alignment);
  }
  return start;
}

}  // namespace

OffsetPlan PlanStripPacking(const Problem& problem) {
  const CompactSteps steps = offsets::Compact(problem);
  const ConflictIndex index(steps);
  std::vector<Bytes> offsets(problem.size(), 0);
  std::size_t left = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    if (problem.IsFixed(i))
      offsets[i] = *problem.fixed_offsets[i];
    else
      ++left;
  }
  Candidates candidates(problem, steps);
  Skyline skyline(steps.count);
  while (left > 0) {
    const Skyline::Segment low = skyline.Lowest();
    if (const auto r = candidates.BestInside(low.first, low.last)) {
      const Bytes offset = ClearOfFixed(problem, steps, index, *r, low.height);
      offsets[*r] = offset;
      candidates.Remove(*r);
      --left;
      const Bytes top = offset + problem.records[*r].size;
      if (top != low.height) skyline.Raise(low, steps.first[*r], steps.last[*r], top);
    } else if (!skyline.RaiseToNeighbour(low)) {
      break;  // cannot happen: every record lies inside the whole range
    }
  }
  return MakeOffsetPlan(problem, "strip_packing", std::move(offsets));
}

}  // namespace memplan
