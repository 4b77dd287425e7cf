// memplan's CPU arena planner against TensorFlow Lite's algorithm (its tflite_cpu mode), step
// by step, in one process run (docs/cpu-planner.md, "Planning time against TensorFlow Lite"),
// on every model of ../shared with an open dimension (the .tflite models whose batch is open,
// the LFM2 decoder's sequence length), GPT-2's token count (zoo:gpt2) and a tiny chain (CI's
// case). Each model walks a sequence of values of its open dimension, as `memplan run --resize`
// does: the first value is the first plan (PlanAllocations + ExecuteAllocations of a new
// planner), a value not seen before is a fresh shape and one seen before a repeated shape
// (ResetAllocations + ExecuteAllocations). A late change makes a tensor three quarters
// through the graph grow, a new size each time, after the first plan. Both planners make
// the same calls on the same shapes; each sample times one planner's calls, the two
// alternating, so a loaded machine slows both alike. Counters are medians over the rounds:
// per kind of step the median of the steps' ratios memplan / tflite_cpu and the worst one,
// and the two times of the median step (each sample includes clock_floor_us, the time of an
// empty timed interval); fresh_nogrow_* the same over the fresh steps where neither
// planner's buffer grew. MEMPLAN_REPLAN_ROUNDS sets the rounds (default 41);
// MEMPLAN_REPLAN_STEPS=1 prints every step.
// BM_AgainstTfliteCold walks the same steps with the core's caches cold before each timed
// call (4 MiB written first, then the resize): what an engine meets when an inference runs
// between two plans, and closer to what `memplan run` times than the walk above, where the
// planners' memory stays cached between steps. Cold, a step's time follows the memory it
// touches, code and data, more than its instructions. The *_down walks bring a batch down
// one at a time: fresh shapes that no earlier layout scales to and no buffer grows for.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>

#include "memplan/bounds.h"
#include "memplan/cpu_arena_planner.h"
#include "memplan/cpu_runtime.h"
#include "memplan/workload.h"
#include "memplan/zoo.h"

namespace memplan {
namespace {

using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One model's walk: the graph at each value of its open dimension.
struct Walk {
  std::string label;
  std::vector<std::int64_t> values;
  std::vector<CpuGraph> graphs;  // per value; all with the first one's structure
};

std::optional<Walk> WalkOf(const std::string& label, const std::vector<std::int64_t>& values,
                           const std::function<CpuGraph(std::int64_t)>& graph_at) {
  Walk w{label, values, {}};
  for (const std::int64_t v : values) {
    CpuGraph g = graph_at(v);
    if (!w.graphs.empty() && (g.tensors.size() != w.graphs[0].tensors.size() ||
                              g.nodes.size() != w.graphs[0].nodes.size()))
      return std::nullopt;  // the reader folded differently: not one graph resized
    w.graphs.push_back(std::move(g));
  }
  return w;
}

std::filesystem::path SharedModel(const std::string& file) {
  return std::filesystem::path(MEMPLAN_SHARED_DIR) / "models" / file;
}

// The batch of issue 32's `memplan run --resize batch=...`: doublings and back, so every
// fresh shape but the last is a whole multiple of one seen before.
const std::vector<std::int64_t> kBatches = {1, 2, 4, 8, 16, 8, 4, 1, 3};
// A batch coming down one at a time: every step a fresh shape that no layout before scales
// to by a whole ratio (15/16, 14/15, ...) and no buffer grows for - the planners' own work
// on a new shape, as an engine meets it for each new length of a speech or language model.
const std::vector<std::int64_t> kBatchesDown = {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5};

// A .tflite model of ../shared whose batch is open, over `values`.
std::optional<Walk> TfliteBatchWalk(const std::string& file,
                                    const std::vector<std::int64_t>& values = kBatches) {
  const std::filesystem::path model = SharedModel(file);
  if (!std::filesystem::exists(model)) return std::nullopt;
  return WalkOf(file, values, [&](std::int64_t batch) {
    LoadOptions load;
    load.dims = {{"batch", batch}};
    return CpuGraphOf(*LoadWorkload(model.string(), load).graph);
  });
}

// The LFM2 decoder (ONNX, symbolic dims): a prompt's length grows and comes back.
std::optional<Walk> Lfm2Walk() {
  const std::filesystem::path model = SharedModel("tiny_random_lfm2_decoder.onnx");
  if (!std::filesystem::exists(model)) return std::nullopt;
  return WalkOf("tiny_random_lfm2_decoder.onnx sequence_length",
                {16, 32, 64, 128, 256, 128, 64, 16, 48}, [&](std::int64_t length) {
                  LoadOptions load;
                  load.dims = {{"batch_size", 1},
                               {"past_sequence_length", 16},
                               {"sequence_length", length},
                               {"total_sequence_length", length + 16}};
                  return CpuGraphOf(*LoadWorkload(model.string(), load).graph);
                });
}

std::optional<Walk> Gpt2Walk() {
  return WalkOf("zoo:gpt2 tokens", {16, 64, 128, 512, 128, 300},
                [](std::int64_t tokens) { return CpuGraphOf(Gpt2WithTokens(tokens)); });
}

// A chain of 24 ops with a skip every 3 ops, its tensors scaled by the value (CI's case).
std::optional<Walk> TinyWalk() {
  return WalkOf("tiny chain", {1, 2, 4, 8, 4, 1, 3}, [](std::int64_t scale) {
    CpuGraph g;
    const auto s = static_cast<Bytes>(scale);
    g.tensors.push_back({64 * s, CpuAllocationType::kArenaRw});
    g.inputs = {0};
    for (std::int32_t i = 0; i < 24; ++i) {
      g.tensors.push_back({(64 + 16 * static_cast<Bytes>(i % 5)) * s, CpuAllocationType::kArenaRw});
      CpuNode node{{i}, {i + 1}, {}, 0};
      if (i >= 3 && i % 3 == 0) node.inputs.push_back(i - 3);
      g.nodes.push_back(node);
    }
    g.outputs = {24};
    return g;
  });
}

const std::optional<Walk>& CachedWalk(const std::string& name) {
  static std::map<std::string, std::optional<Walk>> walks;
  if (auto it = walks.find(name); it != walks.end()) return it->second;
  std::optional<Walk> w;
  if (name == "tiny") w = TinyWalk();
  if (name == "gpt2") w = Gpt2Walk();
  if (name == "lfm2") w = Lfm2Walk();
  if (name == "kws") w = TfliteBatchWalk("tinymlperf_kws_dscnn_float.tflite");
  if (name == "vww") w = TfliteBatchWalk("tinymlperf_vww_96_float.tflite");
  if (name == "resnet8") w = TfliteBatchWalk("tinymlperf_resnet8_cifar10_float.tflite");
  if (name == "resnet8_int8") w = TfliteBatchWalk("tinymlperf_resnet8_cifar10_int8.tflite");
  if (name == "ad01") w = TfliteBatchWalk("tinymlperf_ad01_autoencoder_float.tflite");
  if (name == "hello_world") w = TfliteBatchWalk("hello_world_float.tflite");
  if (name == "kws_down") w = TfliteBatchWalk("tinymlperf_kws_dscnn_float.tflite", kBatchesDown);
  if (name == "vww_down") w = TfliteBatchWalk("tinymlperf_vww_96_float.tflite", kBatchesDown);
  if (name == "resnet8_down")
    w = TfliteBatchWalk("tinymlperf_resnet8_cifar10_float.tflite", kBatchesDown);
  return walks.emplace(name, std::move(w)).first->second;
}

CpuPlannerOptions Options(CpuPlannerMode mode) {
  CpuPlannerOptions o;
  o.mode = mode;
  return o;  // 64-byte alignment and the cache's default capacity, as `memplan run`
}

std::int32_t LastNode(const CpuGraph& g) {
  return static_cast<std::int32_t>(g.nodes.size()) - 1;
}

void Resize(CpuArenaPlanner& p, const CpuGraph& g) {
  for (std::size_t t = 0; t < g.tensors.size(); ++t)
    p.ResizeTensor(static_cast<std::int32_t>(t), g.tensors[t].bytes);
}

// The planner's calls for one step, timed (resizes excluded, as in `memplan run`).
double PlanStep(CpuArenaPlanner& p, bool first) {
  const auto a = Clock::now();
  if (first) {
    p.PlanAllocations();
  } else {
    p.ResetAllocations();
  }
  p.ExecuteAllocations(0, LastNode(p.graph()));
  return std::chrono::duration<double, std::micro>(Clock::now() - a).count();
}

// The median of an empty timed interval: what each sample above includes besides the calls
// (two clock reads), worth knowing where a repeated shape's calls take tens of ns.
double ClockFloorUs() {
  std::vector<double> empty;
  for (int i = 0; i < 1001; ++i) {
    const auto a = Clock::now();
    empty.push_back(std::chrono::duration<double, std::micro>(Clock::now() - a).count());
  }
  return Median(std::move(empty));
}

// Samples per step and planner ([0] memplan, [1] tflite_cpu), and the arena figures.
struct Samples {
  std::vector<std::array<std::vector<double>, 2>> step;  // per step of the walk, then late
  // Per step: whether either planner's buffer grew there (TensorFlow Lite then allocates a
  // new block and copies the old one; the memplan mode copies what must survive).
  std::vector<bool> grew;
  std::size_t above_tflite = 0;
  double worst_vs_bound = 0;
};

// Writes a byte of every 64-byte line of 4 MiB, as an inference of a model of a few MiB of
// weights and activations would: more than a core's level-2 cache (1 MiB on the shared
// machine), so the next call finds little of its own there; the shared level 3 keeps most.
// MEMPLAN_REPLAN_EVICT_MIB sets the size: 64 passes the level 3 too (32 MiB on the shared
// machine), so every line a planner touches, code or data, comes from memory.
std::size_t EvictBytes() {
  const char* text = std::getenv("MEMPLAN_REPLAN_EVICT_MIB");
  const long mib = text ? std::atol(text) : 4;
  return static_cast<std::size_t>(std::max(1L, mib)) << 20;
}

void EvictCaches() {
  static std::vector<unsigned char> buffer(EvictBytes());
  for (std::size_t i = 0; i < buffer.size(); i += 64)
    buffer[i] = static_cast<unsigned char>(buffer[i] + 1);
  benchmark::DoNotOptimize(buffer.data());
  benchmark::ClobberMemory();
}

// One round: both planners new, through the walk, then the late changes; `cold`: the caches
// evicted before each planner's step (before its resize, as an inference would be).
void Round(const Walk& w, std::size_t round, std::size_t late_changes, bool cold, Samples& s) {
  std::array<std::optional<CpuArenaPlanner>, 2> planners;
  planners[0].emplace(w.graphs[0], Options(CpuPlannerMode::kMemplan));
  planners[1].emplace(w.graphs[0], Options(CpuPlannerMode::kTfliteCpu));
  const std::size_t lead = round % 2;  // which planner goes first in this round
  auto step = [&](std::size_t k, bool first, const auto& resize) {
    for (std::size_t i = 0; i < 2; ++i) {
      const std::size_t p = (lead + i) % 2;
      if (cold) EvictCaches();
      resize(*planners[p]);
      const Bytes buffer = planners[p]->ArenaBufferBytes();
      s.step[k][p].push_back(PlanStep(*planners[p], first));
      if (planners[p]->ArenaBufferBytes() != buffer) s.grew[k] = true;
    }
    const Bytes mine = planners[0]->PlannedArenaBytes();
    if (mine > planners[1]->PlannedArenaBytes()) ++s.above_tflite;
    const Bytes bound = OffsetsLowerBound(planners[0]->MainArenaLayout().first);
    if (bound > 0) s.worst_vs_bound = std::max(s.worst_vs_bound, double(mine) / double(bound));
  };
  for (std::size_t k = 0; k < w.graphs.size(); ++k)
    step(k, k == 0, [&](CpuArenaPlanner& p) { Resize(p, w.graphs[k]); });
  // The late changes start from the first value's plan (untimed), as a kernel sizing its
  // output at Prepare would.
  const CpuGraph& g = w.graphs[0];
  for (auto& p : planners) {
    Resize(*p, g);
    PlanStep(*p, false);
  }
  const std::int32_t tensor = g.nodes[g.nodes.size() * 3 / 4].outputs[0];
  for (std::size_t c = 0; c < late_changes; ++c) {
    step(w.graphs.size() + c, false, [&](CpuArenaPlanner& p) {
      p.ResizeTensor(tensor, g.tensors[tensor].bytes + 64 * (c + 1));
    });
  }
}

int Rounds() {
  const char* text = std::getenv("MEMPLAN_REPLAN_ROUNDS");
  return text ? std::max(1, std::atoi(text)) : 41;
}

// Which steps are which kind: the first, then each value seen before or not.
enum class Kind { kFirst, kFresh, kRepeated, kLate };

std::vector<Kind> KindsOf(const Walk& w, std::size_t late_changes) {
  std::vector<Kind> kinds;
  for (std::size_t k = 0; k < w.values.size(); ++k) {
    const bool seen = std::find(w.values.begin(), w.values.begin() + static_cast<long>(k),
                                w.values[k]) != w.values.begin() + static_cast<long>(k);
    kinds.push_back(k == 0 ? Kind::kFirst : seen ? Kind::kRepeated : Kind::kFresh);
  }
  kinds.insert(kinds.end(), late_changes, Kind::kLate);
  return kinds;
}

void AgainstTflite(benchmark::State& state, const std::string& name, bool cold) {
  const auto& walk = CachedWalk(name);
  if (!walk || walk->graphs.empty()) {
    state.SkipWithError("model not available (../shared missing?)");
    return;
  }
  constexpr std::size_t kLateChanges = 3;
  const std::vector<Kind> kinds = KindsOf(*walk, kLateChanges);
  Samples s;
  s.step.resize(kinds.size());
  s.grew.assign(kinds.size(), false);
  const bool print = std::getenv("MEMPLAN_REPLAN_STEPS") != nullptr;
  const int rounds = Rounds();
  for (auto _ : state)
    for (int r = 0; r < rounds; ++r)
      Round(*walk, static_cast<std::size_t>(r), kLateChanges, cold, s);
  // Per kind: the steps' ratios of medians; the median step's two times.
  const char* names[] = {"first", "fresh", "repeated", "late"};
  for (const Kind kind : {Kind::kFirst, Kind::kFresh, Kind::kRepeated, Kind::kLate}) {
    std::vector<std::pair<double, std::size_t>> ratios;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      if (kinds[k] != kind) continue;
      const double mine = Median(s.step[k][0]), theirs = Median(s.step[k][1]);
      ratios.push_back({mine / theirs, k});
      if (print)
        std::fprintf(stderr, "%s step %zu (%s%s%lld): memplan %.2f us, tflite_cpu %.2f us, %.2fx\n",
                     walk->label.c_str(), k, names[static_cast<int>(kind)],
                     k < walk->values.size() ? " " : "",
                     k < walk->values.size() ? static_cast<long long>(walk->values[k]) : 0LL, mine,
                     theirs, mine / theirs);
    }
    if (ratios.empty()) continue;
    std::sort(ratios.begin(), ratios.end());
    const std::size_t median_step = ratios[ratios.size() / 2].second;
    const std::string n = names[static_cast<int>(kind)];
    state.counters[n + "_ratio"] = ratios[ratios.size() / 2].first;
    state.counters[n + "_worst"] = ratios.back().first;
    state.counters[n + "_memplan_us"] = Median(s.step[median_step][0]);
    state.counters[n + "_tflite_us"] = Median(s.step[median_step][1]);
  }
  // The fresh steps where no buffer grew: the planners' own work, without the growth (and
  // TensorFlow Lite's copy of its old buffer) that dominates the others.
  std::vector<double> planning;
  for (std::size_t k = 0; k < kinds.size(); ++k)
    if (kinds[k] == Kind::kFresh && !s.grew[k])
      planning.push_back(Median(s.step[k][0]) / Median(s.step[k][1]));
  if (!planning.empty()) {
    state.counters["fresh_nogrow_ratio"] = Median(planning);
    state.counters["fresh_nogrow_worst"] = *std::max_element(planning.begin(), planning.end());
  }
  state.counters["tensors"] = static_cast<double>(walk->graphs[0].tensors.size());
  state.counters["steps_above_tflite"] = static_cast<double>(s.above_tflite);
  state.counters["worst_vs_bound"] = s.worst_vs_bound;
  state.counters["clock_floor_us"] = ClockFloorUs();
}

void BM_AgainstTflite(benchmark::State& state, const std::string& name) {
  AgainstTflite(state, name, false);
}
void BM_AgainstTfliteCold(benchmark::State& state, const std::string& name) {
  AgainstTflite(state, name, true);
}

// The first plan alone: new planners for the walk's first value, nothing before them in the
// round (BM_AgainstTflite's first step follows the previous round's walk, whose growth steps
// copy megabytes in tflite_cpu and leave both planners' memory cold).
void BM_FirstPlanAlone(benchmark::State& state, const std::string& name) {
  const auto& walk = CachedWalk(name);
  if (!walk || walk->graphs.empty()) {
    state.SkipWithError("model not available (../shared missing?)");
    return;
  }
  std::array<std::vector<double>, 2> times;
  const int rounds = Rounds() * 10;
  for (auto _ : state)
    for (int r = 0; r < rounds; ++r) {
      std::array<std::optional<CpuArenaPlanner>, 2> planners;
      planners[0].emplace(walk->graphs[0], Options(CpuPlannerMode::kMemplan));
      planners[1].emplace(walk->graphs[0], Options(CpuPlannerMode::kTfliteCpu));
      for (std::size_t i = 0; i < 2; ++i) {
        const std::size_t p = (static_cast<std::size_t>(r) + i) % 2;
        times[p].push_back(PlanStep(*planners[p], true));
      }
    }
  state.counters["first_alone_ratio"] = Median(times[0]) / Median(times[1]);
  state.counters["first_alone_memplan_us"] = Median(times[0]);
  state.counters["first_alone_tflite_us"] = Median(times[1]);
}

BENCHMARK_CAPTURE(BM_AgainstTflite, tiny, std::string("tiny"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, kws_dscnn_batch, std::string("kws"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, vww_96_batch, std::string("vww"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, resnet8_batch, std::string("resnet8"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, resnet8_int8_batch, std::string("resnet8_int8"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, ad01_autoencoder_batch, std::string("ad01"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, hello_world_batch, std::string("hello_world"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, kws_dscnn_batch_down, std::string("kws_down"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, vww_96_batch_down, std::string("vww_down"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, resnet8_batch_down, std::string("resnet8_down"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, lfm2_sequence_length, std::string("lfm2"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTflite, gpt2_tokens, std::string("gpt2"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_CAPTURE(BM_AgainstTfliteCold, tiny, std::string("tiny"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, kws_dscnn_batch, std::string("kws"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, vww_96_batch, std::string("vww"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, resnet8_batch, std::string("resnet8"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, resnet8_int8_batch, std::string("resnet8_int8"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, ad01_autoencoder_batch, std::string("ad01"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, hello_world_batch, std::string("hello_world"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, kws_dscnn_batch_down, std::string("kws_down"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, vww_96_batch_down, std::string("vww_down"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, resnet8_batch_down, std::string("resnet8_down"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, lfm2_sequence_length, std::string("lfm2"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AgainstTfliteCold, gpt2_tokens, std::string("gpt2"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_CAPTURE(BM_FirstPlanAlone, kws_dscnn, std::string("kws"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_FirstPlanAlone, vww_96, std::string("vww"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_FirstPlanAlone, resnet8, std::string("resnet8"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_FirstPlanAlone, resnet8_int8, std::string("resnet8_int8"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_FirstPlanAlone, ad01_autoencoder, std::string("ad01"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_FirstPlanAlone, hello_world, std::string("hello_world"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_FirstPlanAlone, lfm2, std::string("lfm2"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_FirstPlanAlone, gpt2, std::string("gpt2"))
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
