#include "tests/offsets_reference.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>

namespace memplan::reference {

namespace {

// A placed record in the walking list.
struct Placed {
  Bytes offset;       // where it starts
  std::size_t index;  // which record
};

// Inserts after every entry whose offset is <= the new one's.
void Insert(std::vector<Placed>& list, Placed p) {
  auto at = std::upper_bound(list.begin(), list.end(), p.offset,
                             [](Bytes o, const Placed& e) { return o < e.offset; });
  list.insert(at, p);
}

Bytes Choose(const Problem& problem, const std::vector<Placed>& list, std::size_t r, Rule rule) {
  const UsageRecord& rec = problem.records[r];
  const Bytes align = problem.alignment;
  if (rule == Rule::kArena) {
    Bytes current = 0, best_fit = std::numeric_limits<Bytes>::max();
    std::optional<Bytes> best;
    for (const Placed& p : list) {
      const UsageRecord& other = problem.records[p.index];
      if (other.last < rec.first || other.first > rec.last) continue;
      const Bytes start = AlignUp(current, align);
      if (start + rec.size <= p.offset && p.offset - start < best_fit) {
        best = start;
        best_fit = p.offset - current;
      }
      current = std::max(current, p.offset + other.size);
      if (best_fit == 0) break;
    }
    return best ? *best : AlignUp(current, align);
  }
  Bytes prev = 0, best_gap = std::numeric_limits<Bytes>::max();
  std::optional<Bytes> best;
  for (const Placed& p : list) {
    const UsageRecord& other = problem.records[p.index];
    if (!Conflicts(rec, other)) continue;
    if (rule != Rule::kAboveAll && p.offset >= prev) {
      const Bytes gap = p.offset - prev;
      if (gap >= rec.size && gap < best_gap) {
        best_gap = gap;
        best = prev;
        if (rule == Rule::kLowestGap) return prev;
      }
    }
    prev = std::max(prev, AlignUp(p.offset + other.size, align));
  }
  return best ? *best : prev;
}

std::vector<std::size_t> Online(const Problem& problem) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (!problem.IsFixed(i)) out.push_back(i);
  return out;
}

std::uint64_t Length(const UsageRecord& r) {
  return static_cast<std::uint64_t>(r.last - r.first);
}

}  // namespace

std::vector<Bytes> PlaceByWalking(const Problem& problem, const std::vector<std::size_t>& order,
                                  Rule rule) {
  std::vector<Bytes> offsets(problem.size(), 0);
  std::vector<Placed> list;
  const bool forget_empty = rule == Rule::kArena;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    if (!problem.IsFixed(i)) continue;
    offsets[i] = *problem.fixed_offsets[i];
    if (!(forget_empty && problem.records[i].size == 0)) Insert(list, {offsets[i], i});
  }
  for (std::size_t r : order) {
    if (forget_empty && problem.records[r].size == 0) {
      offsets[r] = 0;
      continue;
    }
    offsets[r] = Choose(problem, list, r, rule);
    Insert(list, {offsets[r], r});
  }
  return offsets;
}

std::vector<Bytes> GreedyBySize(const Problem& problem) {
  auto order = Online(problem);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return problem.records[a].size > problem.records[b].size;
  });
  return PlaceByWalking(problem, order, Rule::kSmallestGap);
}

std::vector<Bytes> TflmGreedy(const Problem& problem) {
  const std::size_t n = problem.size();
  const Bytes align = problem.alignment;
  auto size_of = [&](std::size_t i) { return AlignUp(problem.records[i].size, align); };
  // Offline buffers from the front in add order, online ones from the back.
  std::vector<std::size_t> buffers(n);
  std::size_t front = 0, back = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (problem.IsFixed(i))
      buffers[front++] = i;
    else
      buffers[--back] = i;
  }
  // Stable bubble sort of the online part, largest first.
  for (std::size_t pass = front; pass < n; ++pass)
    for (std::size_t k = front; k + 1 < n; ++k)
      if (size_of(buffers[k]) < size_of(buffers[k + 1])) std::swap(buffers[k], buffers[k + 1]);
  std::vector<Bytes> offsets(n, 0);
  std::vector<Placed> list;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t b = buffers[k];
    const UsageRecord& rec = problem.records[b];
    if (problem.IsFixed(b)) {
      offsets[b] = *problem.fixed_offsets[b];
    } else {
      std::int64_t candidate = 0;
      std::optional<std::size_t> previous;
      for (const Placed& e : list) {
        const UsageRecord& other = problem.records[e.index];
        if (rec.first > other.last || rec.last < other.first) continue;
        if (previous) {
          const auto end = static_cast<std::int64_t>(offsets[*previous] + size_of(*previous));
          candidate = std::max(candidate, end);
        }
        previous = e.index;
        const std::int64_t gap = static_cast<std::int64_t>(e.offset) - candidate;
        if (gap >= static_cast<std::int64_t>(size_of(b))) {
          previous.reset();
          break;
        }
      }
      if (previous) {
        const auto end = static_cast<std::int64_t>(offsets[*previous] + size_of(*previous));
        candidate = std::max(candidate, end);
      }
      offsets[b] = static_cast<Bytes>(candidate);
    }
    Insert(list, {offsets[b], b});
  }
  return offsets;
}

std::vector<Bytes> TfliteCpu(const Problem& problem) {
  Step end = 0;
  for (const UsageRecord& r : problem.records) end = std::max(end, r.last);
  std::vector<std::size_t> whole, rest;
  for (std::size_t i : Online(problem)) {
    const UsageRecord& r = problem.records[i];
    (r.first == 0 && r.last == end ? whole : rest).push_back(i);
  }
  std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) {
    const UsageRecord &x = problem.records[a], &y = problem.records[b];
    if (x.size != y.size) return x.size > y.size;
    if (x.first != y.first) return x.first < y.first;
    return a < b;
  });
  whole.insert(whole.end(), rest.begin(), rest.end());
  return PlaceByWalking(problem, whole, Rule::kArena);
}

std::vector<Bytes> GreedyInOrder(const Problem& problem) {
  auto order = Online(problem);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return problem.records[a].first < problem.records[b].first;
  });
  return PlaceByWalking(problem, order, Rule::kSmallestGap);
}

std::vector<Bytes> GreedyByBreadth(const Problem& problem) {
  Step steps = 0;
  for (const UsageRecord& r : problem.records) steps = std::max(steps, r.last + 1);
  std::vector<Bytes> breadth(static_cast<std::size_t>(steps), 0);
  for (const UsageRecord& r : problem.records)
    for (Step t = r.first; t <= r.last; ++t) breadth[static_cast<std::size_t>(t)] += r.size;
  std::vector<std::size_t> tasks(breadth.size());
  std::iota(tasks.begin(), tasks.end(), 0);
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&](std::size_t a, std::size_t b) { return breadth[a] > breadth[b]; });
  std::vector<char> listed(problem.size(), 0);
  std::vector<std::size_t> order;
  for (std::size_t t : tasks) {
    std::vector<std::size_t> profile;
    for (std::size_t i = 0; i < problem.size(); ++i) {
      const UsageRecord& r = problem.records[i];
      if (!listed[i] && !problem.IsFixed(i) && r.first <= static_cast<Step>(t) &&
          static_cast<Step>(t) <= r.last)
        profile.push_back(i);
    }
    std::stable_sort(profile.begin(), profile.end(), [&](std::size_t a, std::size_t b) {
      return problem.records[a].size > problem.records[b].size;
    });
    for (std::size_t i : profile) {
      listed[i] = 1;
      order.push_back(i);
    }
  }
  return PlaceByWalking(problem, order, Rule::kSmallestGap);
}

std::vector<Bytes> XlaSpatial(const Problem& problem) {
  auto order = Online(problem);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const UsageRecord &x = problem.records[a], &y = problem.records[b];
    if (x.size != y.size) return x.size > y.size;
    return Length(x) > Length(y);
  });
  return PlaceByWalking(problem, order, Rule::kSmallestGap);
}

std::vector<Bytes> XlaTemporal(const Problem& problem) {
  auto order = Online(problem);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const UsageRecord &x = problem.records[a], &y = problem.records[b];
    if (Length(x) != Length(y)) return Length(x) > Length(y);
    return x.size > y.size;
  });
  return PlaceByWalking(problem, order, Rule::kSmallestGap);
}

std::vector<Bytes> TvmGreedy(const Problem& problem) {
  std::vector<std::size_t> conflicts(problem.size(), 0);
  for (std::size_t i = 0; i < problem.size(); ++i)
    for (std::size_t j = 0; j < problem.size(); ++j)
      if (i != j && Conflicts(problem.records[i], problem.records[j])) ++conflicts[i];
  auto order = Online(problem);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (problem.records[a].size != problem.records[b].size)
      return problem.records[a].size > problem.records[b].size;
    return conflicts[a] > conflicts[b];
  });
  return PlaceByWalking(problem, order, Rule::kAboveAll);
}

std::vector<Bytes> StripPacking(const Problem& problem) {
  Step steps = 0;
  for (const UsageRecord& r : problem.records) steps = std::max(steps, r.last + 1);
  const auto count = static_cast<std::size_t>(steps);
  std::vector<Bytes> height(count, 0);
  std::vector<Bytes> offsets(problem.size(), 0);
  std::vector<char> placed(problem.size(), 0);
  std::size_t left = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    if (problem.IsFixed(i)) {
      offsets[i] = *problem.fixed_offsets[i];
      placed[i] = 1;
    } else {
      ++left;
    }
  }
  while (left > 0) {
    // The lowest run of equal heights, leftmost on ties.
    std::size_t a = 0;
    for (std::size_t t = 1; t < count; ++t)
      if (height[t] < height[a]) a = t;
    std::size_t b = a;
    while (b + 1 < count && height[b + 1] == height[a]) ++b;
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < problem.size(); ++i) {
      const UsageRecord& r = problem.records[i];
      if (placed[i] || r.first < static_cast<Step>(a) || r.last > static_cast<Step>(b)) continue;
      if (!pick) {
        pick = i;
        continue;
      }
      const UsageRecord& q = problem.records[*pick];
      if (Length(r) != Length(q) ? Length(r) > Length(q) : r.size > q.size) pick = i;
    }
    if (!pick) {
      std::optional<Bytes> target;
      if (a > 0) target = height[a - 1];
      if (b + 1 < count) target = target ? std::min(*target, height[b + 1]) : height[b + 1];
      if (!target) break;
      for (std::size_t t = a; t <= b; ++t) height[t] = *target;
      continue;
    }
    const UsageRecord& r = problem.records[*pick];
    // The lowest aligned start at or above the run clear of conflicting fixed records.
    Bytes start = AlignUp(height[a], problem.alignment);
    for (bool moved = r.size > 0; moved;) {
      moved = false;
      for (std::size_t j = 0; j < problem.size(); ++j) {
        // Fixed records of size 0 occupy no bytes.
        if (!problem.IsFixed(j) || problem.records[j].size == 0) continue;
        if (!Conflicts(r, problem.records[j])) continue;
        const Bytes begin = offsets[j], end = offsets[j] + problem.records[j].size;
        if (begin < start + r.size && start < end) {
          start = AlignUp(end, problem.alignment);
          moved = true;
        }
      }
    }
    offsets[*pick] = start;
    placed[*pick] = 1;
    --left;
    for (Step t = r.first; t <= r.last; ++t) height[static_cast<std::size_t>(t)] = start + r.size;
  }
  return offsets;
}

}  // namespace memplan::reference
