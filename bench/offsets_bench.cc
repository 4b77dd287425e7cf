// Offset strategies on random problems of growing size, and on the MiniMalloc
// challenging suite when ../shared is there. Figures for notes:
//   build/bench/bench_offsets --benchmark_filter=Random --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include "bench/random_records.h"
#include "memplan/offsets.h"
#include "memplan/records_io.h"

namespace memplan {
namespace {

using bench::RandomRecords;

// One strategy on n random records; wall time (`best` may use both cores).
void BM_Random(benchmark::State& state, const char* name) {
  const Problem p = RandomRecords(static_cast<std::size_t>(state.range(0)), 42);
  Bytes arena = 0;
  for (auto _ : state) arena = PlanOffsets(p, name).arena_bytes;
  state.counters["arena"] = static_cast<double>(arena);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void Sizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK_CAPTURE(BM_Random, naive, "naive")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, greedy_by_size, "greedy_by_size")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, tflm_greedy, "tflm_greedy")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, tflite_cpu, "tflite_cpu")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, greedy_in_order, "greedy_in_order")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, greedy_by_breadth, "greedy_by_breadth")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, strip_packing, "strip_packing")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, xla_spatial, "xla_spatial")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, tvm_greedy, "tvm_greedy")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Random, best, "best")->Apply(Sizes);

// One strategy on one MiniMalloc challenging instance (skipped without ../shared).
void BM_MiniMalloc(benchmark::State& state, const char* instance, const char* name) {
  const auto path = std::filesystem::path(MEMPLAN_SHARED_DIR) / "benchmarks" / "minimalloc" /
                    "challenging" / (std::string(instance) + ".1048576.csv");
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared/benchmarks/minimalloc not found");
    return;
  }
  const Problem p = ParseRecordsCsv(ReadFileBytes(path), path.string());
  Bytes arena = 0;
  for (auto _ : state) arena = PlanOffsets(p, name).arena_bytes;
  state.counters["arena"] = static_cast<double>(arena);
}

#define MEMPLAN_MINIMALLOC(I)                                          \
  BENCHMARK_CAPTURE(BM_MiniMalloc, I##_tflm_greedy, #I, "tflm_greedy") \
      ->Unit(benchmark::kMicrosecond)                                  \
      ->UseRealTime();                                                 \
  BENCHMARK_CAPTURE(BM_MiniMalloc, I##_best, #I, "best")               \
      ->Unit(benchmark::kMillisecond)                                  \
      ->UseRealTime()
MEMPLAN_MINIMALLOC(A);
MEMPLAN_MINIMALLOC(B);
MEMPLAN_MINIMALLOC(C);
MEMPLAN_MINIMALLOC(D);
MEMPLAN_MINIMALLOC(E);
MEMPLAN_MINIMALLOC(F);
MEMPLAN_MINIMALLOC(G);
MEMPLAN_MINIMALLOC(H);
MEMPLAN_MINIMALLOC(I);
MEMPLAN_MINIMALLOC(J);
MEMPLAN_MINIMALLOC(K);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
