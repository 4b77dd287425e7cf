// Reading ONNX models and deriving their records: parse, checks, shape inference to the
// fixpoint, Graph, TFLM records. The speed target (< 50 ms) is for the largest shared
// model (the file size); the one with the most nodes is DenseNet-121. Wall time: ONNX's
// inference runs in a child process whose CPU time the benchmark would not see; the
// in-process variants show what the child costs.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "memplan/lifetimes.h"
#include "memplan/onnx.h"
#include "memplan/records_io.h"
#include "src/formats/onnx/onnx_isolate.h"

namespace memplan {
namespace {

void BM_ReadOnnx(benchmark::State& state, const char* file, bool in_child) {
  const std::filesystem::path path = std::filesystem::path(MEMPLAN_SHARED_DIR) / "models" / file;
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared/models not found");
    return;
  }
  const std::string bytes = ReadFileBytes(path);
  formats::SetIsolation(in_child);
  for (auto _ : state) {
    const OnnxModel model = ReadOnnx(bytes, file);
    GraphRecords records = RecordsFromGraph(model.graph);
    benchmark::DoNotOptimize(records);
  }
  formats::SetIsolation(true);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes.size()));
}

BENCHMARK_CAPTURE(BM_ReadOnnx, ultraface_largest_file, "ultraface_rfb_320_simplified.onnx", true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReadOnnx, densenet121_most_nodes, "light_densenet121.onnx", true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReadOnnx, ultraface_in_process, "ultraface_rfb_320_simplified.onnx", false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_ReadOnnx, densenet121_in_process, "light_densenet121.onnx", false)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
