// Building the built-in models' graphs, and building plus deriving their records (what
// `memplan plan zoo:NAME` does before planning).
#include <benchmark/benchmark.h>

#include "memplan/lifetimes.h"
#include "memplan/zoo.h"

namespace memplan {
namespace {

void BM_BuildZooGraph(benchmark::State& state, const char* name) {
  for (auto _ : state) benchmark::DoNotOptimize(ZooGraph(name));
}

void BM_BuildZooRecords(benchmark::State& state, const char* name) {
  for (auto _ : state) benchmark::DoNotOptimize(RecordsFromGraph(*ZooGraph(name)));
}

BENCHMARK_CAPTURE(BM_BuildZooGraph, mobilenet_v2, "mobilenet_v2")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BuildZooGraph, gpt2, "gpt2")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BuildZooRecords, mobilenet_v2, "mobilenet_v2")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BuildZooRecords, gpt2, "gpt2")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
