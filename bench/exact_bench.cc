// The exact solver on MiniMalloc's challenging suite (../shared/benchmarks/minimalloc):
// the decision at 1,048,576 bytes (MiniMalloc's question) and the minimization, with
// the arena, whether it is proven optimal and the proven bound as counters. Run with
// --benchmark_repetitions=3 for medians. Skips (with a message) without ../shared.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "memplan/exact.h"
#include "memplan/workload.h"

namespace memplan {
namespace {

std::filesystem::path Suite() {
  return std::filesystem::path(MEMPLAN_SHARED_DIR) / "benchmarks/minimalloc/challenging";
}

std::optional<Problem> Load(char letter) {
  const auto path = Suite() / (std::string(1, letter) + ".1048576.csv");
  if (!std::filesystem::exists(path)) return std::nullopt;
  return LoadWorkload(path.string()).problem;
}

void BM_Decide(benchmark::State& state, char letter) {
  const auto problem = Load(letter);
  if (!problem) {
    state.SkipWithError("../shared/benchmarks/minimalloc not found");
    return;
  }
  FitResult fit;
  for (auto _ : state)
    fit = FitsInCapacity(*problem, 1048576, FitOptions{std::chrono::seconds(20)});
  state.counters["fits"] = fit.answer == FitAnswer::kYes ? 1 : 0;
  state.counters["nodes"] = static_cast<double>(fit.nodes);
}

void BM_Minimize(benchmark::State& state, char letter) {
  const auto problem = Load(letter);
  if (!problem) {
    state.SkipWithError("../shared/benchmarks/minimalloc not found");
    return;
  }
  ExactResult result;
  ExactOptions options;
  options.time_limit = std::chrono::seconds(30);
  for (auto _ : state) result = SolveExact(*problem, options);
  state.counters["arena"] = static_cast<double>(result.plan->arena_bytes);
  state.counters["bound"] = static_cast<double>(result.bound_bytes);
  state.counters["proven"] = result.proven_optimal ? 1 : 0;
}

#define MEMPLAN_EXACT_BENCH(L)             \
  BENCHMARK_CAPTURE(BM_Decide, L, #L[0])   \
      ->Unit(benchmark::kMillisecond)      \
      ->Iterations(1)                      \
      ->UseRealTime();                     \
  BENCHMARK_CAPTURE(BM_Minimize, L, #L[0]) \
      ->Unit(benchmark::kMillisecond)      \
      ->Iterations(1)                      \
      ->UseRealTime()

MEMPLAN_EXACT_BENCH(A);
MEMPLAN_EXACT_BENCH(B);
MEMPLAN_EXACT_BENCH(C);
MEMPLAN_EXACT_BENCH(D);
MEMPLAN_EXACT_BENCH(E);
MEMPLAN_EXACT_BENCH(F);
MEMPLAN_EXACT_BENCH(G);
MEMPLAN_EXACT_BENCH(H);
MEMPLAN_EXACT_BENCH(I);
MEMPLAN_EXACT_BENCH(J);
MEMPLAN_EXACT_BENCH(K);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
