// greedy_by_size: TensorFlow Lite GPU's best fit (Pisarchyk & Lee, Algorithm 3).
// Records in order of size (largest first, equal sizes in record order); each goes
// into the smallest gap between already placed records it conflicts with, else just
// above the highest of them. Fixed records are placed first, where they are.
#include <algorithm>
#include <limits>
#include <numeric>

#include "memplan/offsets.h"

namespace memplan {

OffsetPlan PlanGreedyBySize(const Problem& problem) {
  const std::size_t n = problem.size();
  const Bytes align = problem.alignment;
  std::vector<Bytes> offsets(n, 0);
  std::vector<std::size_t> placed;  // records placed so far, by offset (stable)
  auto insert_placed = [&](std::size_t r) {
    auto pos = std::upper_bound(placed.begin(), placed.end(), offsets[r],
                                [&](Bytes off, std::size_t p) { return off < offsets[p]; });
    placed.insert(pos, r);
  };

  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i) {
    if (problem.IsFixed(i)) {
      offsets[i] = *problem.fixed_offsets[i];
      insert_placed(i);
    } else {
      order.push_back(i);
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return problem.records[a].size > problem.records[b].size;
  });

  for (std::size_t r : order) {
    const UsageRecord& rec = problem.records[r];
    Bytes prev = 0;
    Bytes best_gap = std::numeric_limits<Bytes>::max();
    std::optional<Bytes> best;
    for (std::size_t p : placed) {
      const UsageRecord& other = problem.records[p];
      if (!Conflicts(rec, other)) continue;
      if (offsets[p] >= prev) {
        const Bytes gap = offsets[p] - prev;
        if (gap >= rec.size && gap < best_gap) {
          best_gap = gap;
          best = prev;
        }
      }
      prev = std::max(prev, AlignUp(offsets[p] + other.size, align));
    }
    offsets[r] = best ? *best : prev;
    insert_placed(r);
  }
  return MakeOffsetPlan(problem, "greedy_by_size", std::move(offsets));
}

}  // namespace memplan
