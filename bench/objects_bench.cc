// Shared-objects strategies: every strategy on random problems of model size (300-700
// records) and on every model in shared/models that memplan can read; greedy_by_size
// and best on 10,000 random records. Report medians with
//   build/bench/bench_objects --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "bench/random_records.h"
#include "memplan/objects.h"
#include "memplan/workload.h"
#include "tests/model_bindings.h"

namespace memplan {
namespace {

using bench::RandomRecords;

void BM_Random(benchmark::State& state, std::string name) {
  const Problem p = RandomRecords(static_cast<std::size_t>(state.range(0)), 42);
  Bytes total = 0;
  for (auto _ : state) total = PlanObjects(p, name).total_bytes;
  state.counters["bytes"] = static_cast<double>(total);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Model(benchmark::State& state, std::string path, std::string name) {
  Workload w;
  try {
    w = LoadWorkload(path, testing::SharedModelOptions(path));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  Bytes total = 0;
  for (auto _ : state) total = PlanObjects(w.problem, name).total_bytes;
  state.counters["bytes"] = static_cast<double>(total);
  state.counters["records"] = static_cast<double>(w.problem.size());
}

// Registers every strategy on random problems and on each readable shared model.
void RegisterAll() {
  for (const ObjectStrategy& s : ObjectStrategies()) {
    const std::string name(s.name);
    benchmark::RegisterBenchmark(("random/" + name).c_str(), BM_Random, name)
        ->Arg(300)
        ->Arg(700)
        ->Unit(benchmark::kMillisecond);
  }
  for (const char* name : {"greedy_by_size", "best"})
    benchmark::RegisterBenchmark((std::string("random/") + name).c_str(), BM_Random,
                                 std::string(name))
        ->Arg(10000)
        ->Unit(benchmark::kMillisecond);
  const std::filesystem::path models = std::filesystem::path(MEMPLAN_SHARED_DIR) / "models";
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(models, ec)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".tflite" || ext == ".onnx") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      LoadWorkload(file.string(), testing::SharedModelOptions(file.string()));
    } catch (const std::exception&) {
      continue;  // no reader for it yet
    }
    for (const ObjectStrategy& s : ObjectStrategies())
      benchmark::RegisterBenchmark(
          ("model/" + file.filename().string() + "/" + std::string(s.name)).c_str(), BM_Model,
          file.string(), std::string(s.name))
          ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace memplan

int main(int argc, char** argv) {
  memplan::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
