// tvm_greedy: TVM USMP's greedy_by_size on records (strategies.md 2.9), a comparison row
// that shows what gap reuse is worth. Larger size first, ties by more conflicts, then
// record order; each record goes just above the highest placed record it conflicts with
// (aligned), never into a gap below it.
#include <algorithm>

#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

namespace {

// How many other records each record conflicts with: all but those ending before it
// starts and those starting after it ends. O(n log n).
std::vector<std::uint64_t> ConflictCounts(const Problem& problem) {
  const std::size_t n = problem.size();
  std::vector<Step> firsts(n), lasts(n);
  for (std::size_t i = 0; i < n; ++i) {
    firsts[i] = problem.records[i].first;
    lasts[i] = problem.records[i].last;
  }
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  std::vector<std::uint64_t> counts(n);
  for (std::size_t i = 0; i < n; ++i) {
    const UsageRecord& r = problem.records[i];
    const auto ended = std::lower_bound(lasts.begin(), lasts.end(), r.first) - lasts.begin();
    const auto later = firsts.end() - std::upper_bound(firsts.begin(), firsts.end(), r.last);
    counts[i] = n - 1 - static_cast<std::uint64_t>(ended) - static_cast<std::uint64_t>(later);
  }
  return counts;
}

}  // namespace

OffsetPlan PlanTvmGreedy(const Problem& problem) {
  using namespace offsets_internal;
  const auto conflicts = ConflictCounts(problem);
  const auto order = SortOnline(problem, [&](std::size_t i) {
    return OrderKey{Descending(problem.records[i].size), Descending(conflicts[i]), 0};
  });
  return PlaceInOrder(problem, order, Fit::kTop, "tvm_greedy");
}

}  // namespace memplan
