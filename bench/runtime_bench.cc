// The runtime's own cost: load a model into an arena, plan it, commit it and run the
// first invocation with kernels that do no work (NullKernels), as an application pays
// at start-up. MobileNet v2 from the zoo (or the shared .tflite), and a synthetic chain.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "memplan/offsets.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/workload.h"

namespace memplan {
namespace {

std::string Strategy() {
  return FindOffsetStrategy("tflm_greedy") ? "tflm_greedy" : "greedy_by_size";
}

// The model to time, or nullopt when neither the zoo nor ../shared has it.
std::optional<Graph> MobileNetV2() {
  for (const std::string& spec :
       {std::string("zoo:mobilenet_v2"),
        std::string(MEMPLAN_SHARED_DIR) + "/models/mobilenet_v2_1.0_224_quant.tflite"}) {
    try {
      Workload w = LoadWorkload(spec);
      if (w.graph) return std::move(*w.graph);
    } catch (const std::exception&) {
      continue;  // not available in this build or checkout
    }
  }
  return std::nullopt;
}

// A chain of `ops` ops over 64 KiB tensors with a skip connection every 4 ops.
Graph Chain(std::size_t ops) {
  Graph g;
  g.source = "chain";
  Subgraph sg;
  for (std::size_t i = 0; i <= ops; ++i) {
    Tensor t;
    t.name = "t" + std::to_string(i);
    t.type = DataType::kInt8;
    t.shape = {65536};
    t.bytes = 65536;
    sg.tensors.push_back(t);
  }
  for (std::size_t i = 0; i < ops; ++i) {
    Operator op;
    op.type = "CONV_2D";
    op.inputs = {static_cast<std::int32_t>(i)};
    if (i >= 4 && i % 4 == 0) op.inputs.push_back(static_cast<std::int32_t>(i - 4));
    op.outputs = {static_cast<std::int32_t>(i + 1)};
    sg.ops.push_back(op);
  }
  sg.inputs = {0};
  sg.outputs = {static_cast<std::int32_t>(ops)};
  g.subgraphs.push_back(std::move(sg));
  return g;
}

void LoadPlanInvoke(benchmark::State& state, const Graph& graph) {
  InterpreterOptions options;
  options.strategy = Strategy();
  const Bytes need = RequiredArenaBytes(graph, NullKernels(), options);
  auto memory = std::make_unique<std::byte[]>(need + 16);
  const auto base = reinterpret_cast<std::uintptr_t>(memory.get());
  const std::span<std::byte> buffer(memory.get() + (16 - base % 16) % 16, need);
  for (auto _ : state) {
    Arena arena(buffer);
    Interpreter interpreter(graph, arena, NullKernels(), options);
    interpreter.Invoke();
    benchmark::DoNotOptimize(interpreter.plan().arena_bytes);
  }
  state.counters["arena_bytes"] = static_cast<double>(need);
}

void BM_MobileNetV2(benchmark::State& state) {
  static const std::optional<Graph> graph = MobileNetV2();
  if (!graph) {
    state.SkipWithError("MobileNet v2 not available (no zoo entry, no ../shared)");
    return;
  }
  LoadPlanInvoke(state, *graph);
}

void BM_Chain(benchmark::State& state) {
  const Graph graph = Chain(static_cast<std::size_t>(state.range(0)));
  LoadPlanInvoke(state, graph);
}

BENCHMARK(BM_MobileNetV2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Chain)->Arg(64)->Arg(512)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
