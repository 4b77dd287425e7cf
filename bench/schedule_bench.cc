// In-place analysis plus the operator-order search (the target: under 1 s for models up
// to 1,000 ops): on built-in graphs of 1,000 ops (a CNN of residual and Inception-like
// blocks; a randomly wired graph, where the search runs into its limits) and on every
// shared model once the model readers are part of the build.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include "memplan/inplace.h"
#include "memplan/schedule.h"

#if __has_include("memplan/tflite.h") && __has_include("memplan/onnx.h")
#include "memplan/onnx.h"
#include "memplan/tflite.h"
#define MEMPLAN_HAVE_READERS 1
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

#ifdef MEMPLAN_HAVE_READERS
void BM_SharedModel(benchmark::State& state, std::filesystem::path path) {
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared/models not found");
    return;
  }
  const Graph graph =
      path.extension() == ".onnx" ? LoadOnnx(path).graph : ReadTfliteFile(path).graph;
  SearchWithInPlace(state, graph);
}

const bool kRegistered = [] {
  const std::filesystem::path models = std::filesystem::path(MEMPLAN_SHARED_DIR) / "models";
  if (!std::filesystem::exists(models)) return false;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(models))
    if (e.path().extension() == ".tflite" || e.path().extension() == ".onnx")
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    benchmark::RegisterBenchmark(("BM_SharedModel/" + f.stem().string()).c_str(), BM_SharedModel, f)
        ->Unit(benchmark::kMillisecond);
  return true;
}();
#endif

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
