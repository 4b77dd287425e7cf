// Building the built-in models' graphs (and, for the command's path, their records).
#include <benchmark/benchmark.h>

#include "memplan/zoo.h"

namespace memplan {
namespace {

void BM_BuildZooGraph(benchmark::State& state, const char* name) {
  for (auto _ : state) benchmark::DoNotOptimize(ZooGraph(name));
}

BENCHMARK_CAPTURE(BM_BuildZooGraph, mobilenet_v2, "mobilenet_v2")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BuildZooGraph, gpt2, "gpt2")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
