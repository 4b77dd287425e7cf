// Offset strategies on random problems of growing size.
#include <benchmark/benchmark.h>

#include <random>

#include "memplan/offsets.h"

namespace memplan {
namespace {

// Random records shaped like a long network: mostly short lifetimes, a few long ones.
Problem RandomRecords(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p;
  p.records.reserve(n);
  const Step steps = static_cast<Step>(n / 2 + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const Step first = static_cast<Step>(rng() % static_cast<std::uint64_t>(steps));
    const Step span = rng() % 16 == 0 ? static_cast<Step>(rng() % 64) : static_cast<Step>(rng() % 4);
    p.records.push_back({1 + rng() % (1 << 20), first, first + span});
  }
  return p;
}

void BM_Strategy(benchmark::State& state, const char* name) {
  const Problem p = RandomRecords(static_cast<std::size_t>(state.range(0)), 42);
  for (auto _ : state) benchmark::DoNotOptimize(PlanOffsets(p, name));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK_CAPTURE(BM_Strategy, naive, "naive")->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Strategy, greedy_by_size, "greedy_by_size")->RangeMultiplier(10)->Range(1000, 10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
