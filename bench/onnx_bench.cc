// Reading ONNX models and deriving their records: parse, checks, shape inference to the
// fixpoint, Graph, TFLM records. The speed target (< 50 ms) is for the largest shared
// model (the file size); the one with the most nodes is DenseNet-121.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "memplan/lifetimes.h"
#include "memplan/onnx.h"
#include "memplan/records_io.h"

namespace memplan {
namespace {

void BM_ReadOnnx(benchmark::State& state, const char* file) {
  const std::filesystem::path path = std::filesystem::path(MEMPLAN_SHARED_DIR) / "models" / file;
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared/models not found");
    return;
  }
  const std::string bytes = ReadFileBytes(path);
  for (auto _ : state) {
    const OnnxModel model = ReadOnnx(bytes, file);
    GraphRecords records = RecordsFromGraph(model.graph);
    benchmark::DoNotOptimize(records);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes.size()));
}

BENCHMARK_CAPTURE(BM_ReadOnnx, ultraface_largest_file, "ultraface_rfb_320_simplified.onnx")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadOnnx, densenet121_most_nodes, "light_densenet121.onnx")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
