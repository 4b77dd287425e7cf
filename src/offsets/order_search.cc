#include "src/offsets/order_search.h"

#include <algorithm>

namespace memplan::offsets {

namespace {

// SplitMix64: a tiny generator whose sequence is the same on every platform (the
// standard distributions are not).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for n far below 2^64.
  std::size_t Below(std::size_t n) { return static_cast<std::size_t>(Next() % n); }

 private:
  std::uint64_t state_;
};

// Places `order`; returns the arena, or nullopt as soon as it exceeds `limit`. The first
// `keep` records go where `known` has them (the plan they are a prefix of).
std::optional<Bytes> Run(Placer& placer, const std::vector<std::size_t>& order, Fit fit,
                         Bytes limit, std::size_t keep = 0,
                         const std::vector<Bytes>* known = nullptr) {
  placer.Reset(fit != Fit::kArena);
  for (std::size_t k = 0; k < keep; ++k) placer.Adopt(order[k], (*known)[order[k]]);
  if (!placer.PlaceAll(std::span(order).subspan(keep), fit, limit)) return std::nullopt;
  return placer.ArenaSoFar();
}

}  // namespace

std::optional<SearchResult> SearchOrders(Placer& placer, const Problem& problem,
                                         std::vector<std::size_t> order, Fit fit, Bytes bound,
                                         std::uint64_t budget, std::uint64_t runs) {
  if (order.size() < 2) return std::nullopt;
  Random random(0x6d656d706c616e);  // "memplan"
  const std::uint64_t reads_at_start = placer.Reads();
  if (!Run(placer, order, fit, ~Bytes{0})) return std::nullopt;
  budget = std::min(budget, runs * (placer.Reads() - reads_at_start));
  std::vector<Bytes> current = placer.Offsets();
  Bytes current_arena = placer.ArenaSoFar();
  std::optional<SearchResult> best;
  std::vector<std::size_t> position(problem.size(), 0);
  std::vector<std::size_t> tops;
  std::size_t tries = 0;
  while (placer.Reads() - reads_at_start < budget && current_arena > bound) {
    for (std::size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
    tops.clear();
    for (std::size_t r : order)
      if (current[r] + problem.records[r].size == current_arena && position[r] > 0)
        tops.push_back(r);
    if (tops.empty()) break;  // the top is a fixed record or the first one placed
    const std::size_t r = tops[random.Below(tops.size())];
    const std::size_t from = position[r];
    const std::size_t to = random.Below(from);
    std::vector<std::size_t> trial = order;
    std::rotate(trial.begin() + static_cast<std::ptrdiff_t>(to),
                trial.begin() + static_cast<std::ptrdiff_t>(from),
                trial.begin() + static_cast<std::ptrdiff_t>(from) + 1);
    ++tries;
    // Records before `to` keep their places: the trial replays them.
    const std::optional<Bytes> got = Run(placer, trial, fit, current_arena, to, &current);
    if (!got) continue;
    order = std::move(trial);
    current = placer.Offsets();
    if (*got < current_arena) best = SearchResult{current, *got, tries};
    current_arena = *got;
  }
  if (best) best->tries = tries;
  return best;
}

}  // namespace memplan::offsets
