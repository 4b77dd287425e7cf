#include "src/offsets/peak_anchor.h"

#include <algorithm>

namespace memplan::offsets_internal {

std::int32_t HeaviestStep(const Problem& problem, const CompactSteps& steps) {
  if (problem.size() == 0 || steps.count == 0) return -1;
  // Live bytes per renumbered step from +size at first and -size after last.
  std::vector<Bytes> delta(static_cast<std::size_t>(steps.count) + 1, 0);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const Bytes size = AlignUp(problem.records[i].size, problem.alignment);
    delta[static_cast<std::size_t>(steps.first[i])] += size;
    delta[static_cast<std::size_t>(steps.last[i]) + 1] -= size;
  }
  Bytes live = 0, heaviest = 0;
  std::int32_t at = 0;
  for (std::int32_t s = 0; s < steps.count; ++s) {
    live += delta[static_cast<std::size_t>(s)];
    if (live > heaviest) {
      heaviest = live;
      at = s;
    }
  }
  return at;
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
  if (!placer.PlaceAll(anchor, Fit::kFirst, give_up_above)) return false;
  return placer.PlaceAll(rest, fit, give_up_above);
}

}  // namespace memplan::offsets_internal
