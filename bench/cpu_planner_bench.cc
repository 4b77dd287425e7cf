// The CPU arena planner through resize sequences (docs/cpu-planner.md): TensorFlow Lite's
// algorithm (tflite_cpu mode), memplan's mode (incremental, cached) and a plan from scratch
// with best (PlanOffsets "best" over the step's records), side by side on the same steps:
//  - GPT-2 small (zoo, 480 ops) with its sequence length 16 -> 512 one token at a time;
//  - the LFM2 decoder (../shared, ONNX symbolic dims) with sequence_length 16 -> 512, and
//    batch_size 1 -> 8;
//  - TinyMLPerf's ResNet-8, visual wake words and keyword spotting .tflite models (../shared,
//    shape_signature -1 batch, shapes propagated by the TFLite rules) with batch 1 -> 8;
//  - a tiny synthetic chain (CI runs it).
// Counters: arena figures per sequence (worst step ratios), planning time per step (median).
// Further cases time a change in the last half of the graph against a full plan, a repeated
// shape (cache hit) and an unchanged range. MEMPLAN_CPU_PLANNER_STEPS=1 prints every step;
// MEMPLAN_CPU_PLANNER_NO_SCRATCH=1 leaves out the plan with best from scratch (its counters
// then mean nothing), so a run compares the two planners in seconds.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "memplan/bounds.h"
#include "memplan/cpu_arena_planner.h"
#include "memplan/cpu_runtime.h"
#include "memplan/offsets.h"
#include "memplan/workload.h"
#include "memplan/zoo.h"

namespace memplan {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A resize sequence: one graph structure and each step's tensor sizes.
struct Sequence {
  std::string label;
  CpuGraph graph;                         // the first step
  std::vector<std::vector<Bytes>> bytes;  // per step, per tensor
};

std::vector<Bytes> BytesOf(const CpuGraph& g) {
  std::vector<Bytes> out;
  for (const CpuTensor& t : g.tensors) out.push_back(t.bytes);
  return out;
}

// Adds a step when its structure matches the first one (readers may fold differently).
void AddStep(Sequence& s, const CpuGraph& g) {
  if (s.bytes.empty()) s.graph = g;
  if (g.tensors.size() != s.graph.tensors.size() || g.nodes.size() != s.graph.nodes.size()) return;
  s.bytes.push_back(BytesOf(g));
}

std::optional<Sequence> Gpt2Tokens() {
  Sequence s{"gpt2 tokens 16..512", {}, {}};
  for (std::int64_t tokens = 16; tokens <= 512; ++tokens)
    AddStep(s, CpuGraphOf(Gpt2WithTokens(tokens)));
  return s;
}

// A speech encoder's frame count: zoo:conformer_s over 100 to 1,000 frames (1 s to 10 s
// of audio at a 10 ms hop), 50 frames a step.
std::optional<Sequence> ConformerFrames() {
  Sequence s{"conformer_s frames 100..1000", {}, {}};
  for (std::int64_t frames = 100; frames <= 1000; frames += 50)
    AddStep(s, CpuGraphOf(*ZooGraphWith("conformer_s", "frames", frames)));
  return s;
}

std::optional<Sequence> Lfm2(const std::string& dim, std::int64_t from, std::int64_t to) {
  const std::filesystem::path model =
      std::filesystem::path(MEMPLAN_SHARED_DIR) / "models" / "tiny_random_lfm2_decoder.onnx";
  if (!std::filesystem::exists(model)) return std::nullopt;
  Sequence s{"lfm2 " + dim, {}, {}};
  for (std::int64_t v = from; v <= to; ++v) {
    std::map<std::string, std::int64_t> dims = {
        {"batch_size", 1}, {"sequence_length", 64}, {"past_sequence_length", 16}};
    dims[dim] = v;
    dims["total_sequence_length"] = dims["sequence_length"] + dims["past_sequence_length"];
    LoadOptions load;
    load.dims.assign(dims.begin(), dims.end());
    const Workload w = LoadWorkload(model.string(), load);
    AddStep(s, CpuGraphOf(*w.graph));
  }
  return s;
}

// A .tflite model of ../shared whose batch is open, batch 1 -> 8.
std::optional<Sequence> TfliteBatch(const std::string& file) {
  const std::filesystem::path model = std::filesystem::path(MEMPLAN_SHARED_DIR) / "models" / file;
  if (!std::filesystem::exists(model)) return std::nullopt;
  Sequence s{file + " batch", {}, {}};
  for (std::int64_t batch = 1; batch <= 8; ++batch) {
    LoadOptions load;
    load.dims = {{"batch", batch}};
    AddStep(s, CpuGraphOf(*LoadWorkload(model.string(), load).graph));
  }
  return s;
}

// A chain of 24 ops with a skip every 3 ops, tensors scaled by the step.
std::optional<Sequence> Tiny() {
  Sequence s{"tiny chain", {}, {}};
  for (Bytes scale = 1; scale <= 8; ++scale) {
    CpuGraph g;
    g.tensors.push_back({64 * scale, CpuAllocationType::kArenaRw});
    g.inputs = {0};
    for (std::int32_t i = 0; i < 24; ++i) {
      g.tensors.push_back(
          {(64 + 16 * static_cast<Bytes>(i % 5)) * scale, CpuAllocationType::kArenaRw});
      CpuNode node{{i}, {i + 1}, {}, 0};
      if (i >= 3 && i % 3 == 0) node.inputs.push_back(i - 3);
      g.nodes.push_back(node);
    }
    g.outputs = {24};
    AddStep(s, g);
  }
  return s;
}

const std::optional<Sequence>& Cached(const std::string& name) {
  static std::map<std::string, std::optional<Sequence>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  std::optional<Sequence> s;
  if (name == "gpt2") s = Gpt2Tokens();
  if (name == "lfm2_seq") s = Lfm2("sequence_length", 16, 512);
  if (name == "lfm2_batch") s = Lfm2("batch_size", 1, 8);
  if (name == "tiny") s = Tiny();
  if (name == "conformer_frames") s = ConformerFrames();
  if (name == "resnet8_batch") s = TfliteBatch("tinymlperf_resnet8_cifar10_float.tflite");
  if (name == "vww_batch") s = TfliteBatch("tinymlperf_vww_96_float.tflite");
  if (name == "kws_batch") s = TfliteBatch("tinymlperf_kws_dscnn_float.tflite");
  return cache.emplace(name, std::move(s)).first->second;
}

CpuPlannerOptions Options(CpuPlannerMode mode, std::size_t cache = 64) {
  CpuPlannerOptions o;
  o.mode = mode;
  o.cache_capacity = cache;
  return o;  // tensor alignment 64, as TensorFlow Lite's interpreter
}

std::int32_t LastNode(const CpuGraph& g) {
  return static_cast<std::int32_t>(g.nodes.size()) - 1;
}

void Apply(CpuArenaPlanner& p, const std::vector<Bytes>& bytes) {
  for (std::size_t t = 0; t < bytes.size(); ++t)
    p.ResizeTensor(static_cast<std::int32_t>(t), bytes[t]);
}

double PlanAll(CpuArenaPlanner& p) {
  const auto a = Clock::now();
  p.ResetAllocations();
  p.ExecuteAllocations(0, LastNode(p.graph()));
  return Micros(a, Clock::now());
}

// The three planners through the sequence, side by side. Arena figures are the same in every
// run; times are per step, medians over the steps of the last run.
void BM_ResizeSequence(benchmark::State& state, const std::string& name) {
  const auto& seq = Cached(name);
  if (!seq || seq->bytes.empty()) {
    state.SkipWithError("model not available (../shared missing?)");
    return;
  }
  const bool print = std::getenv("MEMPLAN_CPU_PLANNER_STEPS") != nullptr;
  // Profiling the two planners alone: the plan with best from scratch costs ~100x more.
  const bool scratch_too = std::getenv("MEMPLAN_CPU_PLANNER_NO_SCRATCH") == nullptr;
  std::vector<double> t_tflite, t_memplan, t_scratch;
  double worst_vs_tflite = 0, worst_vs_bound = 0, worst_tflite_vs_bound = 0;
  std::size_t above_tflite = 0, above_scratch = 0;
  for (auto _ : state) {
    t_tflite.clear();
    t_memplan.clear();
    t_scratch.clear();
    CpuArenaPlanner tflite(seq->graph, Options(CpuPlannerMode::kTfliteCpu));
    CpuArenaPlanner ours(seq->graph, Options(CpuPlannerMode::kMemplan));
    tflite.PlanAllocations();
    ours.PlanAllocations();
    for (std::size_t k = 0; k < seq->bytes.size(); ++k) {
      Apply(tflite, seq->bytes[k]);
      Apply(ours, seq->bytes[k]);
      t_tflite.push_back(PlanAll(tflite));
      t_memplan.push_back(PlanAll(ours));
      // best from scratch on the same records (the memplan layout's tensors and lifetimes).
      Problem records = ours.MainArenaLayout().first;
      const auto a = Clock::now();
      const OffsetPlan scratch =
          scratch_too ? PlanOffsets(records, "best") : PlanOffsets(records, "naive");
      t_scratch.push_back(Micros(a, Clock::now()));
      const Bytes mine = ours.PlannedArenaBytes(), theirs = tflite.PlannedArenaBytes();
      const Bytes bound = OffsetsLowerBound(ours.MainArenaLayout().first);
      if (mine > theirs) ++above_tflite;
      if (scratch_too && mine > scratch.arena_bytes) ++above_scratch;
      worst_vs_tflite = std::max(worst_vs_tflite, static_cast<double>(mine) / theirs);
      worst_vs_bound = std::max(worst_vs_bound, static_cast<double>(mine) / bound);
      worst_tflite_vs_bound = std::max(worst_tflite_vs_bound, static_cast<double>(theirs) / bound);
      if (print)
        std::fprintf(stderr,
                     "%s step %zu: memplan %llu B (%zu placed, %s) tflite_cpu %llu B, scratch %llu "
                     "B, bound %llu B; us memplan %.1f tflite %.1f scratch %.1f\n",
                     seq->label.c_str(), k, static_cast<unsigned long long>(mine),
                     ours.last_stats().placed, ours.last_stats().cache_hit ? "hit" : "miss",
                     static_cast<unsigned long long>(theirs),
                     static_cast<unsigned long long>(scratch.arena_bytes),
                     static_cast<unsigned long long>(bound), t_memplan.back(), t_tflite.back(),
                     t_scratch.back());
    }
  }
  state.counters["steps"] = static_cast<double>(seq->bytes.size());
  state.counters["ops"] = static_cast<double>(seq->graph.nodes.size());
  state.counters["steps_above_tflite"] = static_cast<double>(above_tflite);
  state.counters["steps_above_scratch_best"] = static_cast<double>(above_scratch);
  state.counters["worst_memplan_vs_tflite"] = worst_vs_tflite;
  state.counters["worst_memplan_vs_bound"] = worst_vs_bound;
  state.counters["worst_tflite_vs_bound"] = worst_tflite_vs_bound;
  state.counters["tflite_us_per_step"] = Median(t_tflite);
  state.counters["memplan_us_per_step"] = Median(t_memplan);
  state.counters["scratch_best_us_per_step"] = Median(t_scratch);
}

// A tensor in the last half of the graph grows (a kernel sizing its output at Prepare):
// memplan mode re-plans from its node on. Counter: the re-plan's time over a full plan's.
void BM_ReplanLateChange(benchmark::State& state, const std::string& name) {
  const auto& seq = Cached(name);
  if (!seq || seq->bytes.empty()) {
    state.SkipWithError("model not available (../shared missing?)");
    return;
  }
  const CpuGraph& g = seq->graph;
  const std::size_t node = g.nodes.size() * 3 / 4;
  const std::int32_t tensor = g.nodes[node].outputs[0];
  std::vector<double> full;
  for (int k = 0; k < 5; ++k) {
    const auto a = Clock::now();
    CpuArenaPlanner fresh(g, Options(CpuPlannerMode::kMemplan, 0));
    fresh.PlanAllocations();
    fresh.ExecuteAllocations(0, LastNode(g));
    full.push_back(Micros(a, Clock::now()));
  }
  CpuArenaPlanner ours(g, Options(CpuPlannerMode::kMemplan, 0));
  ours.PlanAllocations();
  PlanAll(ours);
  const Bytes base = g.tensors[tensor].bytes;
  std::vector<double> replan;
  std::size_t placed = 0;
  Bytes grow = 64;
  for (auto _ : state) {
    ours.ResizeTensor(tensor, base + grow);  // a new size every time: nothing cached
    grow = grow % 4096 + 64;
    const auto a = Clock::now();
    ours.ResetAllocations();
    ours.ExecuteAllocations(0, LastNode(g));
    const auto b = Clock::now();
    state.SetIterationTime(std::chrono::duration<double>(b - a).count());
    replan.push_back(Micros(a, b));
    placed = ours.last_stats().placed;
  }
  state.counters["ops"] = static_cast<double>(g.nodes.size());
  state.counters["changed_node"] = static_cast<double>(node);
  state.counters["placed_tensors"] = static_cast<double>(placed);
  state.counters["full_plan_us"] = Median(full);
  state.counters["replan_us"] = Median(replan);
  state.counters["replan_vs_full"] = Median(replan) / Median(full);
}

// Returning to a shape seen before: the layout comes from the cache. Timed: ResetAllocations +
// ExecuteAllocations over all nodes (the engine's resizes are not).
void BM_RepeatedShape(benchmark::State& state, const std::string& name) {
  const auto& seq = Cached(name);
  if (!seq || seq->bytes.size() < 2) {
    state.SkipWithError("model not available (../shared missing?)");
    return;
  }
  CpuArenaPlanner ours(seq->graph, Options(CpuPlannerMode::kMemplan));
  ours.PlanAllocations();
  const std::vector<Bytes>& a = seq->bytes.front();
  const std::vector<Bytes>& b = seq->bytes.back();
  for (const auto* shape : {&a, &b}) {
    Apply(ours, *shape);
    PlanAll(ours);
  }
  bool flip = false;
  std::size_t hits = 0, runs = 0;
  std::vector<double> lookups;
  for (auto _ : state) {
    Apply(ours, flip ? b : a);
    flip = !flip;
    const auto t0 = Clock::now();
    ours.ResetAllocations();
    ours.ExecuteAllocations(0, LastNode(seq->graph));
    const auto t1 = Clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    if (lookups.size() < 1000000) lookups.push_back(Micros(t0, t1) * 1000);
    hits += ours.last_stats().cache_hit ? 1 : 0;
    ++runs;
  }
  // The mean (the time column) counts every preemption on a shared machine; the median does not.
  state.counters["median_ns"] = Median(lookups);
  state.counters["cache_hit_share"] = runs ? static_cast<double>(hits) / runs : 0;
  state.counters["tensors"] = static_cast<double>(seq->graph.tensors.size());
}

// Nothing changed since the last call over the same range.
void BM_Unchanged(benchmark::State& state, const std::string& name) {
  const auto& seq = Cached(name);
  if (!seq || seq->bytes.empty()) {
    state.SkipWithError("model not available (../shared missing?)");
    return;
  }
  CpuArenaPlanner ours(seq->graph, Options(CpuPlannerMode::kMemplan));
  ours.PlanAllocations();
  PlanAll(ours);
  const std::int32_t last = LastNode(seq->graph);
  for (auto _ : state) {
    ours.ExecuteAllocations(0, last);
    benchmark::DoNotOptimize(ours.last_stats().unchanged);
  }
}

BENCHMARK_CAPTURE(BM_ResizeSequence, tiny, std::string("tiny"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ResizeSequence, gpt2_tokens_16_512, std::string("gpt2"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ResizeSequence, lfm2_sequence_16_512, std::string("lfm2_seq"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ResizeSequence, lfm2_batch_1_8, std::string("lfm2_batch"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ResizeSequence, conformer_frames_100_1000, std::string("conformer_frames"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ResizeSequence, resnet8_batch_1_8, std::string("resnet8_batch"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ResizeSequence, vww_batch_1_8, std::string("vww_batch"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ResizeSequence, kws_batch_1_8, std::string("kws_batch"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_ReplanLateChange, gpt2, std::string("gpt2"))
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReplanLateChange, conformer, std::string("conformer_frames"))
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReplanLateChange, tiny, std::string("tiny"))
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RepeatedShape, gpt2, std::string("gpt2"))->UseManualTime();
BENCHMARK_CAPTURE(BM_RepeatedShape, lfm2_sequence, std::string("lfm2_seq"))->UseManualTime();
BENCHMARK_CAPTURE(BM_RepeatedShape, tiny, std::string("tiny"))->UseManualTime();
BENCHMARK_CAPTURE(BM_Unchanged, gpt2, std::string("gpt2"));
BENCHMARK_CAPTURE(BM_Unchanged, tiny, std::string("tiny"));

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
