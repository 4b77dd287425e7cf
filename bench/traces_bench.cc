// Every offsets strategy, and the objects strategies a plan runs by default at scale, on
// the production compiler traces (../shared/benchmarks/compiler_traces, skipped when
// absent): time and arena of each in one run. Figures for docs/scale.md:
//   build/bench/bench_traces --benchmark_filter=Y_1 --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
// The anytime arena of offsets/exact with a 60 s budget (large-neighbourhood search):
//   build/bench/bench_traces --benchmark_filter='BM_TraceExact/.*/60s'
// The Tiny cases (a generated trace-like problem of 1,000 records) are the ones CI runs.
// best against all on 10^6 random records: --benchmark_filter=RandomBestVsAll
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>
#include <string>

#include "bench/random_records.h"
#include "memplan/bounds.h"
#include "memplan/exact.h"
#include "memplan/objects.h"
#include "memplan/offsets.h"
#include "memplan/records_io.h"

namespace memplan {
namespace {

// Mostly short lifetimes, one in fifty long, sizes from a short list: the traces' shape.
Problem TraceLike(std::size_t records, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p;
  const auto steps = static_cast<Step>(records / 2);
  for (std::size_t i = 0; i < records; ++i) {
    const auto first = static_cast<Step>(rng() % static_cast<std::uint64_t>(steps));
    const auto length = static_cast<Step>(rng() % 50 == 0 ? rng() % 500 : rng() % 16);
    p.records.push_back({(1 + rng() % 64) * 4096, first, std::min(first + length, steps - 1)});
  }
  return p;
}

void Report(benchmark::State& state, const Problem& p, Bytes bytes) {
  state.counters["arena"] = static_cast<double>(bytes);
  state.counters["x_bound"] =
      static_cast<double>(bytes) / static_cast<double>(std::max<Bytes>(1, OffsetsLowerBound(p)));
  state.counters["records"] = static_cast<double>(p.size());
}

void BM_Trace_Tiny(benchmark::State& state) {
  const Problem p = TraceLike(1000, 7);
  Bytes arena = 0;
  for (auto _ : state) arena = PlanOffsets(p, "greedy_by_size").arena_bytes;
  Report(state, p, arena);
}
BENCHMARK(BM_Trace_Tiny)->Unit(benchmark::kMillisecond);

// objects greedy_by_size on the same tiny trace-like problem (its indexed bookkeeping).
void BM_TraceObjectsGreedyBySize_Tiny(benchmark::State& state) {
  const Problem p = TraceLike(1000, 7);
  Bytes total = 0;
  for (auto _ : state) total = PlanObjectsGreedyBySize(p).total_bytes;
  state.counters["total"] = static_cast<double>(total);
}
BENCHMARK(BM_TraceObjectsGreedyBySize_Tiny)->Unit(benchmark::kMillisecond);

// One strategy ("offsets/NAME" or "objects/NAME") on one trace file.
void BM_Trace(benchmark::State& state, std::filesystem::path path, std::string key) {
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("../shared/benchmarks/compiler_traces not found");
    return;
  }
  const Problem p = ParseRecordsCsv(ReadFileBytes(path), path.string());
  const std::string mode = key.substr(0, key.find('/'));
  const std::string name = key.substr(key.find('/') + 1);
  Bytes bytes = 0;
  for (auto _ : state)
    bytes = mode == "offsets" ? PlanOffsets(p, name).arena_bytes : PlanObjects(p, name).total_bytes;
  Report(state, p, bytes);
}

// best against every other offsets strategy on random records shaped like a long network
// (bench/random_records.h) of 10^6 records, one run: each arena as a counter, and an
// error when best is above any of them (issue 16 asks best <= all up to 10^6 records;
// the tests check 10^3-10^5). About a minute on the 2-core machine.
void BM_RandomBestVsAll(benchmark::State& state) {
  const Problem p = bench::RandomRecords(static_cast<std::size_t>(state.range(0)), 11);
  for (auto _ : state) {
    const Bytes best = PlanOffsets(p, "best").arena_bytes;
    state.counters["best"] = static_cast<double>(best);
    for (const OffsetStrategy& s : OffsetStrategies()) {
      const std::string name(s.name);
      if (name == "best" || name == "exact") continue;
      const Bytes arena = PlanOffsets(p, name).arena_bytes;
      state.counters[name] = static_cast<double>(arena);
      if (arena < best) state.SkipWithError(("best is above " + name).c_str());
    }
  }
  Report(state, p, static_cast<Bytes>(state.counters["best"].value));
}
BENCHMARK(BM_RandomBestVsAll)->Arg(1000000)->Unit(benchmark::kSecond)->Iterations(1);

// The anytime exact solver on one trace: offsets/exact with a time budget of `seconds`
// (on 1 thread) started from best's plan, as `memplan plan X -s offsets/best -s
// offsets/exact --time-limit S --threads 1` runs it; its arena after the budget
// (large problems: after the large-neighbourhood search, docs/exact.md).
void BM_TraceExact(benchmark::State& state, std::filesystem::path path, double seconds) {
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("../shared/benchmarks/compiler_traces not found");
    return;
  }
  const Problem p = ParseRecordsCsv(ReadFileBytes(path), path.string());
  ExactOptions options;
  options.time_limit = std::chrono::duration<double>(seconds);
  options.threads = 1;
  options.start = PlanOffsets(p, "best");
  ExactResult result;
  for (auto _ : state) result = SolveExact(p, options);
  Report(state, p, result.plan->arena_bytes);
  state.counters["start"] = static_cast<double>(options.start->arena_bytes);
  state.counters["proven"] = result.proven_optimal ? 1 : 0;
}

// Registered at start-up: each trace x each strategy.
const bool kRegistered = [] {
  const auto folder = std::filesystem::path(MEMPLAN_SHARED_DIR) / "benchmarks" / "compiler_traces";
  std::vector<std::string> keys;
  for (const OffsetStrategy& s : OffsetStrategies())
    if (std::string(s.name) != "exact") keys.push_back("offsets/" + std::string(s.name));
  for (const char* name : {"naive", "equality", "greedy_in_order", "greedy_by_breadth",
                           "greedy_by_size", "greedy_best"})
    keys.push_back(std::string("objects/") + name);
  for (const char* trace : {"resnet50", "G_1", "pangu_2.6B", "Y_1"}) {
    for (const std::string& key : keys) {
      benchmark::RegisterBenchmark((std::string("BM_Trace/") + trace + "/" + key).c_str(), BM_Trace,
                                   folder / (std::string(trace) + ".csv"), key)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
    for (double seconds : {10.0, 60.0})
      benchmark::RegisterBenchmark((std::string("BM_TraceExact/") + trace + "/" +
                                    std::to_string(static_cast<int>(seconds)) + "s")
                                       .c_str(),
                                   BM_TraceExact, folder / (std::string(trace) + ".csv"), seconds)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Iterations(1);
  }
  return true;
}();

}  // namespace
}  // namespace memplan

BENCHMARK_MAIN();
