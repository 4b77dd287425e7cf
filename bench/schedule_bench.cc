// In-place analysis plus the operator-order search (the target: under 1 s for models up
// to 1,000 ops): on built-in graphs of 1,000 ops (a CNN of residual and Inception-like
// blocks; a randomly wired graph, where the search runs into its limits) and on every
// shared model once the model readers are part of the build.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>

#include "memplan/inplace.h"
#include "memplan/schedule.h"
#include "tests/model_bindings.h"

#if __has_include("memplan/tflite.h")
#include "memplan/tflite.h"
#define MEMPLAN_HAVE_TFLITE 1
#endif
#if __has_include("memplan/onnx.h")
#include "memplan/onnx.h"
#define MEMPLAN_HAVE_ONNX 1
#endif

namespace memplan {
namespace {

class Builder {
 public:
  Builder() { graph_.subgraphs.emplace_back(); }
  std::int32_t Tensor(Bytes bytes, bool constant = false) {
    memplan::Tensor t;
    t.name = "t" + std::to_string(sub().tensors.size());
    t.type = DataType::kUInt8;
    t.shape = {static_cast<std::int64_t>(bytes)};
    t.bytes = bytes;
    t.is_constant = constant;
    sub().tensors.push_back(t);
    return static_cast<std::int32_t>(sub().tensors.size() - 1);
  }
  std::int32_t Op(const char* type, std::vector<std::int32_t> inputs, Bytes out_bytes) {
    const std::int32_t out = Tensor(out_bytes);
    Operator op;
    op.type = type;
    op.inputs = std::move(inputs);
    op.outputs = {out};
    sub().ops.push_back(op);
    return out;
  }
  Subgraph& sub() { return graph_.subgraphs[0]; }
  Graph graph_;
};

// Residual blocks (CONV, RELU, CONV, ADD, RELU) alternating with Inception-like blocks
// (four branches of one to three convolutions with RELUs, then a concatenation).
Graph Cnn(std::size_t ops) {
  Builder b;
  const std::int32_t w = b.Tensor(64, true);
  std::int32_t x = b.Tensor(1 << 16);
  b.sub().inputs = {x};
  std::mt19937 rng(7);
  while (b.sub().ops.size() + 16 < ops) {
    const Bytes size = Bytes{1} << (12 + rng() % 5);
    if (rng() % 2) {
      const std::int32_t c1 = b.Op("CONV_2D", {x, w}, size);
      const std::int32_t r1 = b.Op("RELU", {c1}, size);
      const std::int32_t c2 = b.Op("CONV_2D", {r1, w}, *b.sub().tensors[x].bytes);
      const std::int32_t add = b.Op("ADD", {c2, x}, *b.sub().tensors[x].bytes);
      x = b.Op("RELU", {add}, *b.sub().tensors[x].bytes);
    } else {
      std::vector<std::int32_t> branches;
      Bytes total = 0;
      for (int k = 0; k < 4; ++k) {
        std::int32_t y = x;
        for (int d = 0; d <= k % 3; ++d)
          y = b.Op("RELU", {b.Op("CONV_2D", {y, w}, size / 4)}, size / 4);
        branches.push_back(y);
        total += size / 4;
      }
      x = b.Op("CONCATENATION", branches, total);
    }
  }
  b.sub().outputs = {b.Op("CONV_2D", {x, w}, 4096)};
  return b.graph_;
}

// Each op reads one or two of the last 12 values: wide, with many ready ops at a time.
Graph RandomlyWired(std::size_t ops) {
  Builder b;
  std::mt19937 rng(11);
  std::vector<std::int32_t> values = {b.Tensor(4096)};
  b.sub().inputs = {values[0]};
  for (std::size_t i = 0; i < ops; ++i) {
    auto recent = [&] {
      return values[values.size() - 1 - rng() % std::min<std::size_t>(12, values.size())];
    };
    const Bytes size = Bytes{1024} << (rng() % 4);
    values.push_back(rng() % 3 ? b.Op("CONV_2D", {recent()}, size)
                               : b.Op("ADD", {recent(), recent()}, size));
  }
  b.sub().outputs = {values.back()};
  return b.graph_;
}

void SearchWithInPlace(benchmark::State& state, const Graph& graph) {
  const InPlaceRuleSet& all = InPlaceRuleSetNamed("all");
  OrderSearchOptions options;
  options.inplace = &all;
  for (auto _ : state) {
    benchmark::DoNotOptimize(FindShares(graph, 0, all));
    const OrderSearchResult r = SearchOperatorOrder(graph, options);
    benchmark::DoNotOptimize(r.subgraphs[0].peak);
    state.counters["proven"] = r.proven_optimal;
    state.counters["states"] = static_cast<double>(r.subgraphs[0].states);
  }
  state.counters["ops"] = static_cast<double>(graph.subgraphs[0].ops.size());
}

void BM_Cnn1000(benchmark::State& state) {
  SearchWithInPlace(state, Cnn(1000));
}
BENCHMARK(BM_Cnn1000)->Unit(benchmark::kMillisecond);

void BM_RandomlyWired1000(benchmark::State& state) {
  SearchWithInPlace(state, RandomlyWired(1000));
}
BENCHMARK(BM_RandomlyWired1000)->Unit(benchmark::kMillisecond);

// A model file a reader of this build reads.
bool Readable(const std::filesystem::path& path) {
  [[maybe_unused]] const auto ext = path.extension();
#ifdef MEMPLAN_HAVE_TFLITE
  if (ext == ".tflite") return true;
#endif
#ifdef MEMPLAN_HAVE_ONNX
  if (ext == ".onnx") return true;
#endif
  return false;
}

// The shared models the readers in this build can read.
std::optional<Graph> ReadModel(const std::filesystem::path& path) {
#ifdef MEMPLAN_HAVE_TFLITE
  if (path.extension() == ".tflite") return ReadTfliteFile(path).graph;
#endif
#ifdef MEMPLAN_HAVE_ONNX
  if (path.extension() == ".onnx")
    return LoadOnnx(path, testing::SharedModelOptions(path.filename().string())).graph;
#endif
  return std::nullopt;
}

void BM_SharedModel(benchmark::State& state, const std::filesystem::path& path) {
  const std::optional<Graph> graph = ReadModel(path);
  if (!graph) {
    state.SkipWithError("no reader for this model in this build");
    return;
  }
  SearchWithInPlace(state, *graph);
}

const bool kRegistered = [] {
  const std::filesystem::path models = std::filesystem::path(MEMPLAN_SHARED_DIR) / "models";
  if (!std::filesystem::exists(models)) return false;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(models))
    if (Readable(e.path())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    benchmark::RegisterBenchmark(("BM_SharedModel/" + f.stem().string()).c_str(), BM_SharedModel, f)
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
