#include "src/offsets/peak_anchor.h"

#include <algorithm>

namespace memplan::offsets {

std::int32_t HeaviestStep(const Problem& problem, const CompactSteps& steps) {
  if (problem.size() == 0 || steps.count == 0) return -1;
  const std::vector<Bytes> live = LiveBytes(problem, steps, problem.alignment);
  // max_element returns the first of equal maxima: the earliest step on ties.
  return static_cast<std::int32_t>(std::max_element(live.begin(), live.end()) - live.begin());
}

std::vector<std::size_t> OnlineLiveAt(const Problem& problem, const CompactSteps& steps,
                                      std::int32_t step, std::span<const Bytes> rank) {
  std::vector<std::size_t> live;
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (!problem.IsFixed(i) && steps.first[i] <= step && step <= steps.last[i]) live.push_back(i);
  std::stable_sort(live.begin(), live.end(),
                   [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
  return live;
}

Step OriginalStep(const Problem& problem, std::span<const std::size_t> live) {
  Step step = 0;
  for (std::size_t r : live) step = std::max(step, problem.records[r].first);
  return step;
}

bool PlaceAnchored(Placer& placer, std::span<const std::size_t> anchor,
                   std::span<const std::size_t> rest, Fit fit,
                   const std::atomic<Bytes>& give_up_above) {
  placer.Reset();
  // The anchored records all conflict with each other (they share a step), so first
  // fit in their order packs them bottom-up, around any fixed record.
  if (!placer.PlaceAll(anchor, Fit::kLowestGap, give_up_above)) return false;
  return placer.PlaceAll(rest, fit, give_up_above);
}

}  // namespace memplan::offsets
