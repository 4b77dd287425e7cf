// Reading a .tflite model and deriving its records (TFLM accounting), per shared model:
// the target is under 50 ms for the largest one. "tiny" runs without shared/.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "memplan/lifetimes.h"
#include "memplan/records_io.h"
#include "memplan/shape_binding.h"
#include "memplan/tflite.h"
#include "tests/model_bindings.h"

namespace memplan {
namespace {

// From bytes in memory: parse, verify, bind, derive.
void ReadAndDerive(benchmark::State& state, const std::string& bytes,
                   const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& shapes) {
  std::size_t records = 0;
  for (auto _ : state) {
    TfliteModel model = ParseTflite(bytes, "bench.tflite");
    ApplyShapeBindings(model.graph, {}, shapes);
    const GraphRecords r = RecordsFromGraph(model.graph);
    records = r.problem.size();
    benchmark::DoNotOptimize(r.problem.records.data());
  }
  state.counters["records"] = static_cast<double>(records);
  state.counters["file_MB"] = static_cast<double>(bytes.size()) / 1e6;
}

// From the file: the whole `memplan plan` input path before planning.
void ReadFileAndDerive(benchmark::State& state, const std::filesystem::path& path) {
  const auto shapes = testing::KernelSizedShapes(path.filename().string());
  for (auto _ : state) {
    TfliteModel model = ReadTfliteFile(path);
    ApplyShapeBindings(model.graph, {}, shapes);
    benchmark::DoNotOptimize(RecordsFromGraph(model.graph).problem.records.data());
  }
}

// A 3-op model written by memplan itself.
std::string TinyModel() {
  Graph g;
  g.subgraphs.resize(1);
  auto& sg = g.subgraphs[0];
  for (int i = 0; i < 4; ++i) {
    Tensor t;
    t.name = "t" + std::to_string(i);
    t.shape = {1, 16};
    t.bytes = 64;
    sg.tensors.push_back(t);
  }
  sg.inputs = {0};
  sg.outputs = {3};
  for (int i = 0; i < 3; ++i) {
    Operator op;
    op.type = "RELU";
    op.inputs = {i};
    op.outputs = {i + 1};
    sg.ops.push_back(op);
  }
  return WriteTflite(g);
}

void RegisterModels() {
  static const std::string tiny = TinyModel();
  benchmark::RegisterBenchmark("ReadAndDerive/tiny", ReadAndDerive, tiny,
                               std::vector<std::pair<std::string, std::vector<std::int64_t>>>{})
      ->Unit(benchmark::kMicrosecond);
  const std::filesystem::path models = std::filesystem::path(MEMPLAN_SHARED_DIR) / "models";
  std::error_code ec;
  if (!std::filesystem::is_directory(models, ec)) return;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(models))
    if (entry.path().extension() == ".tflite") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    const std::string name = path.stem().string();
    static std::vector<std::string> contents;  // outlive the benchmarks
    contents.reserve(files.size());
    contents.push_back(ReadFileBytes(path));
    benchmark::RegisterBenchmark(("ReadAndDerive/" + name).c_str(), ReadAndDerive, contents.back(),
                                 testing::KernelSizedShapes(name))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("ReadFileAndDerive/" + name).c_str(), ReadFileAndDerive, path)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace
}  // namespace memplan

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  memplan::RegisterModels();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
