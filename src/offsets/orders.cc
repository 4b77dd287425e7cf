#include "src/offsets/orders.h"

#include <algorithm>

namespace memplan::offsets_internal {

std::vector<std::size_t> SizeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    return OrderKey{Descending(problem.records[i].size), 0, 0};
  });
}

std::vector<std::size_t> AreaOrder(const Problem& problem) {
  __extension__ using Wide = unsigned __int128;  // size x steps can exceed 64 bits
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    const Wide area = static_cast<Wide>(r.size) * Lifetime(r);
    return OrderKey{Descending(static_cast<std::uint64_t>(area >> 64)),
                    Descending(static_cast<std::uint64_t>(area)), Descending(r.size)};
  });
}

std::vector<std::size_t> LifetimeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    return OrderKey{Descending(Lifetime(r)), Descending(r.size), 0};
  });
}

std::vector<std::size_t> SizeThenLifetimeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    return OrderKey{Descending(r.size), Descending(Lifetime(r)), 0};
  });
}

std::vector<std::size_t> StartOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    return OrderKey{static_cast<std::uint64_t>(problem.records[i].first), 0, 0};
  });
}

std::vector<std::size_t> StartThenSizeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    return OrderKey{static_cast<std::uint64_t>(r.first), Descending(r.size), 0};
  });
}

std::vector<std::size_t> BreadthOrder(const Problem& problem, const CompactSteps& steps,
                                      const ConflictIndex& index) {
  const std::size_t n = problem.size();
  const auto count = static_cast<std::size_t>(steps.count);
  // Live bytes per (renumbered) step; renumbering keeps the order of steps, so ties
  // between equal breadths still go to the lower step.
  std::vector<Bytes> breadth(count + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    breadth[static_cast<std::size_t>(steps.first[i])] += problem.records[i].size;
    breadth[static_cast<std::size_t>(steps.last[i]) + 1] -= problem.records[i].size;
  }
  for (std::size_t t = 1; t < count; ++t) breadth[t] += breadth[t - 1];
  breadth.resize(count);
  std::vector<std::int32_t> tasks(count);
  for (std::size_t t = 0; t < count; ++t) tasks[t] = static_cast<std::int32_t>(t);
  std::stable_sort(tasks.begin(), tasks.end(), [&](std::int32_t a, std::int32_t b) {
    return breadth[static_cast<std::size_t>(a)] > breadth[static_cast<std::size_t>(b)];
  });

  std::vector<std::size_t> order;
  std::size_t online = 0;
  for (std::size_t i = 0; i < n; ++i) online += problem.IsFixed(i) ? 0 : 1;
  order.reserve(online);
  std::vector<char> listed(n, 0);
  std::vector<std::size_t> profile;
  for (std::int32_t t : tasks) {
    if (order.size() == online) break;
    profile.clear();
    index.ForEachMeeting(t, t, [&](std::uint32_t r) {
      if (!listed[r] && !problem.IsFixed(r)) profile.push_back(r);
    });
    std::sort(profile.begin(), profile.end(), [&](std::size_t a, std::size_t b) {
      const Bytes sa = problem.records[a].size, sb = problem.records[b].size;
      return sa != sb ? sa > sb : a < b;
    });
    for (std::size_t r : profile) {
      listed[r] = 1;
      order.push_back(r);
    }
  }
  return order;
}

}  // namespace memplan::offsets_internal
