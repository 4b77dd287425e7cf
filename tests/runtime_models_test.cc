// The runtime on every shared .tflite model: TFLM's figures (memory_arena_threshold_test
// and the greedy heads of the reference "TFLM lifetimes", docs/testing.md), outputs identical to a
// naive layout for every offsets strategy, records identical to RecordsFromGraph, offline plans
// from metadata.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/lifetimes.h"
#include "memplan/offsets.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/tflite.h"
#include "memplan/workload.h"
#include "tests/model_bindings.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

Graph LoadModel(const std::filesystem::path& path) {
  Workload w = LoadWorkload(path.string(), testing::SharedModelOptions(path.filename().string()));
  return std::move(*w.graph);
}

// An aligned arena of exactly what the model needs with these options.
struct ModelArena {
  ModelArena(const Graph& graph, const InterpreterOptions& options,
             const KernelRegistry& kernels = VerificationKernels()) {
    const Bytes need = RequiredArenaBytes(graph, kernels, options);
    memory.resize(need + 16);
    const auto base = reinterpret_cast<std::uintptr_t>(memory.data());
    arena =
        std::make_unique<Arena>(std::span<std::byte>(memory.data() + (16 - base % 16) % 16, need));
  }
  std::vector<std::byte> memory;
  std::unique_ptr<Arena> arena;
};

InterpreterOptions Strategy(std::string name) {
  InterpreterOptions o;
  o.strategy = std::move(name);
  return o;
}

TEST(RuntimeModels, KeywordModelMatchesTflmsArenaThresholds) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const Graph graph = LoadModel(shared / "models" / "keyword_scrambled_svdf_int8.tflite");
  ModelArena heap(graph, Strategy("tflm_greedy"));
  Interpreter in(graph, *heap.arena, VerificationKernels(), Strategy("tflm_greedy"));
  in.AllocateTensors();
  // memory_arena_threshold_test.cc: head 672, variable buffers 10240 (7 SVDF states).
  EXPECT_EQ(in.stats().head_bytes, 672u);
  EXPECT_EQ(in.stats().variable_bytes, 10240u);
  EXPECT_EQ(heap.arena->Tally(ArenaAllocation::kVariableBufferData).requested, 10240u);
  // 16 tensors and 14 SVDF scratch buffers, two per SVDF op.
  EXPECT_EQ(in.stats().planned_buffers, 30u);
  EXPECT_EQ(in.stats().scratch_buffers, 14u);
  const auto naive = RunNaive(graph, VerificationKernels(), 3);
  EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, 3)), "");
}

// micro_allocator_test.cc's graphs through the runtime: tensor addresses relative to the
// head start are the offsets TFLM asserts (offline offsets kept, the rest tflm_greedy).
TEST(RuntimeModels, PlacesTensorsAsTflmsAllocatorTests) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto json =
      testing::ReadJsonFile(shared / "conformance" / "tflm_greedy_memory_planner.json");
  int checked = 0;
  for (const auto& c : json.at("allocator_cases")) {
    if (c.value("derived", false)) continue;
    const auto& g = c.at("graph");
    Graph graph;
    graph.source = c.at("name").get<std::string>();
    Subgraph sg;
    for (Bytes bytes : g.at("tensor_bytes").get<std::vector<Bytes>>()) {
      Tensor t;
      t.name = "t" + std::to_string(sg.tensors.size());
      t.type = DataType::kInt8;
      t.shape = {static_cast<std::int64_t>(bytes)};
      t.bytes = bytes;
      sg.tensors.push_back(t);
    }
    for (const auto& o : g.at("ops")) {
      Operator op;
      op.type = "CUSTOM";
      op.inputs = o.at("inputs").get<std::vector<std::int32_t>>();
      op.outputs = o.at("outputs").get<std::vector<std::int32_t>>();
      sg.ops.push_back(op);
    }
    sg.inputs = g.at("subgraph_inputs").get<std::vector<std::int32_t>>();
    sg.outputs = g.at("subgraph_outputs").get<std::vector<std::int32_t>>();
    graph.subgraphs.push_back(sg);
    InterpreterOptions options = Strategy("tflm_greedy");
    if (c.contains("fixed_offsets"))
      options.offline_offsets = c.at("fixed_offsets").get<std::vector<std::int64_t>>();
    ModelArena heap(graph, options);
    Interpreter in(graph, *heap.arena, VerificationKernels(), options);
    in.AllocateTensors();
    const auto expected =
        c.at("expect").at("offsets/tflm_greedy").at("offsets").get<std::vector<Bytes>>();
    for (std::size_t t = 0; t < expected.size(); ++t)
      EXPECT_EQ(static_cast<Bytes>(in.TensorData({0, static_cast<std::int32_t>(t)}).data() -
                                   heap.arena->head_start()),
                expected[t])
          << graph.source << " tensor " << t;
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

TEST(RuntimeModels, TflmGreedyHeadsOfTheMicroModels) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::vector<std::pair<std::string, Bytes>> cases = {{"person_detect_96_int8.tflite", 55296},
                                                            {"micro_speech_int8.tflite", 5968},
                                                            {"hello_world_float.tflite", 128}};
  for (const auto& [file, head] : cases) {
    const Graph graph = LoadModel(shared / "models" / file);
    ModelArena heap(graph, Strategy("tflm_greedy"));
    Interpreter in(graph, *heap.arena, VerificationKernels(), Strategy("tflm_greedy"));
    in.AllocateTensors();
    EXPECT_EQ(in.stats().head_bytes, head) << file;
    EXPECT_EQ(heap.arena->head_bytes(), head) << file;
    EXPECT_EQ(in.stats().scratch_buffers, 0u) << file;
  }
}

// The shared .tflite files, or one placeholder when ../shared is missing (the test
// then skips), so each model is a test of its own and CTest runs them in parallel.
std::vector<std::string> SharedTfliteFiles() {
  std::vector<std::string> files;
  if (const auto shared = testing::SharedDir())
    for (const auto& entry : std::filesystem::directory_iterator(*shared / "models"))
      if (entry.path().extension() == ".tflite") files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) files.push_back("none");
  return files;
}

class EveryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryModel, MatchesTheNaiveLayoutWithEveryStrategy) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string file = GetParam();
  const Graph graph = LoadModel(shared / "models" / file);
  // Two invocations where there is state to carry over.
  bool has_state = false;
  for (const Subgraph& sg : graph.subgraphs)
    for (const Tensor& t : sg.tensors) has_state = has_state || t.is_variable;
  const std::size_t invokes = has_state ? 2 : 1;
  const auto naive = RunNaive(graph, VerificationKernels(), invokes);
  std::map<std::string, Bytes> heads;
  for (const OffsetStrategy& s : OffsetStrategies()) {
    const InterpreterOptions options = Strategy(std::string(s.name));
    ModelArena heap(graph, options);
    Interpreter in(graph, *heap.arena, VerificationKernels(), options);
    EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, invokes)), "") << s.name;
    heads[std::string(s.name)] = in.stats().head_bytes;
  }
  ASSERT_TRUE(heads.contains("tflm_greedy"));
  if (heads.contains("best")) EXPECT_LE(heads["best"], heads["tflm_greedy"]);
  for (const auto& [name, head] : heads) EXPECT_LE(head, heads["naive"]) << name;
}

INSTANTIATE_TEST_SUITE_P(SharedTflite, EveryModel, ::testing::ValuesIn(SharedTfliteFiles()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param.substr(0, param.param.rfind(".tflite"));
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The shared .tflite and .onnx files (or the placeholder), for the in-place runs.
std::vector<std::string> SharedModelFiles() {
  std::vector<std::string> files;
  if (const auto shared = testing::SharedDir())
    for (const auto& entry : std::filesystem::directory_iterator(*shared / "models"))
      if (entry.path().extension() == ".tflite" || entry.path().extension() == ".onnx")
        files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) files.push_back("none");
  return files;
}

class EveryModelInPlace : public ::testing::TestWithParam<std::string> {};

// With TFLite's and TFLM's in-place rules (and memplan's `all`), every shared output
// lives at its input's address and the verification kernels, honouring the shares, give
// the naive layout's outputs.
TEST_P(EveryModelInPlace, MatchesTheNaiveLayout) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string file = GetParam();
  const Graph graph = LoadModel(shared / "models" / file);
  const auto naive = RunNaive(graph, VerificationKernels(), 1);
  for (const char* set : {"tflite", "tflm", "all"}) {
    InterpreterOptions options = Strategy("tflm_greedy");
    options.inplace = InPlaceRuleSetNamed(set);
    ModelArena heap(graph, options);
    Interpreter in(graph, *heap.arena, VerificationKernels(), options);
    EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, 1)), "") << set;
    for (const BufferShare& s : in.shares())
      EXPECT_EQ(in.TensorData({s.subgraph, s.output}).data(),
                in.TensorData({s.subgraph, s.input}).data())
          << set << " op " << s.op;
    // No check of head against head_without_inplace: a greedy planner can do worse on
    // merged records (light_resnet50, tflm_greedy: 12,845,056 against 9,633,792 B).
    EXPECT_GT(in.stats().head_without_inplace, 0u) << set;
  }
}

INSTANTIATE_TEST_SUITE_P(SharedModels, EveryModelInPlace, ::testing::ValuesIn(SharedModelFiles()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The heads TFLM's in-place rules give on the models where they matter (tflm_greedy,
// rounded to 16 bytes per tensor as TFLM).
TEST(RuntimeModels, InPlaceHeadsOfSharedModels) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const char* file :
       {"blazeface_front_128_float.tflite", "torchaudio_conformer_float.tflite"}) {
    const Graph graph = LoadModel(shared / "models" / file);
    InterpreterOptions options = Strategy("tflm_greedy");
    options.inplace = InPlaceRuleSetNamed("tflm");
    ModelArena heap(graph, options);
    Interpreter in(graph, *heap.arena, VerificationKernels(), options);
    in.AllocateTensors();
    EXPECT_GT(in.stats().inplace_shares, 0u) << file;
    EXPECT_LT(in.stats().head_bytes, in.stats().head_without_inplace) << file;
    std::cout << file << ": head " << in.stats().head_bytes << " without in place "
              << in.stats().head_without_inplace << ", " << in.stats().inplace_shares
              << " shares\n";
  }
}

// The built-in models (no ../shared needed): the runtime plans them with TFLM's planner
// and memplan's best, and both arenas give the naive layout's outputs.
TEST(RuntimeModels, ZooModelsMatchTheNaiveLayout) {
  int models = 0;
  for (const ZooEntry& entry : ZooEntries()) {
    Workload w = LoadWorkload("zoo:" + entry.name);
    if (!w.graph) continue;  // a records example
    const Graph& graph = *w.graph;
    ++models;
    const auto naive = RunNaive(graph, VerificationKernels(), 1);
    Bytes tflm_head = 0;
    for (const char* strategy : {"tflm_greedy", "best"}) {
      const InterpreterOptions options = Strategy(strategy);
      ModelArena heap(graph, options);
      Interpreter in(graph, *heap.arena, VerificationKernels(), options);
      EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, 1)), "")
          << entry.name << " " << strategy;
      if (tflm_head == 0) tflm_head = in.stats().head_bytes;
      EXPECT_LE(in.stats().head_bytes, tflm_head) << entry.name;
    }
  }
  EXPECT_GE(models, 5);
}

TEST(RuntimeModels, TensorRecordsAreRecordsFromGraph) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const auto& entry : std::filesystem::directory_iterator(shared / "models")) {
    if (entry.path().extension() != ".tflite") continue;
    const std::string file = entry.path().filename().string();
    const Graph graph = LoadModel(entry.path());
    const GraphRecords expected = RecordsFromGraph(graph);
    ModelArena heap(graph, Strategy("naive"), NullKernels());
    Interpreter in(graph, *heap.arena, NullKernels(), Strategy("naive"));
    in.AllocateTensors();
    std::size_t r = 0;
    for (std::size_t b = 0; b < in.buffers().size(); ++b) {
      if (in.buffers()[b].scratch_op >= 0) continue;
      ASSERT_LT(r, expected.problem.size()) << file;
      EXPECT_EQ(in.buffers()[b].tensor, expected.origins[r]) << file;
      EXPECT_EQ(in.problem().records[b], expected.problem.records[r]) << file << " record " << r;
      ++r;
    }
    EXPECT_EQ(r, expected.problem.size()) << file;
  }
}

TEST(RuntimeModels, OfflinePlanFromTheModelsMetadata) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const Graph original = LoadModel(shared / "models" / "person_detect_96_int8.tflite");
  // Plan online once, then write those offsets into the model as its offline plan.
  ModelArena heap(original, Strategy("tflm_greedy"));
  Interpreter online(original, *heap.arena, VerificationKernels(), Strategy("tflm_greedy"));
  online.AllocateTensors();
  std::vector<std::int32_t> offsets(original.TensorCount(), -1);
  for (std::size_t b = 0; b < online.buffers().size(); ++b)
    offsets[online.buffers()[b].tensor.tensor] =
        static_cast<std::int32_t>(online.plan().offsets[b]);
  TfliteWriteOptions write;
  write.offline_offsets = offsets;
  const Graph graph = ParseTflite(WriteTflite(original, write), "person_detect+offline").graph;
  ASSERT_EQ(graph.fixed_offsets.size(), original.TensorCount());

  InterpreterOptions options = Strategy("greedy_by_size");  // only for what is left online
  ModelArena heap2(graph, options);
  Interpreter in(graph, *heap2.arena, VerificationKernels(), options);
  in.AllocateTensors();
  EXPECT_EQ(in.stats().offline_buffers, online.stats().planned_buffers);
  EXPECT_EQ(in.stats().head_bytes, 55296u);
  for (std::size_t b = 0; b < in.buffers().size(); ++b) {
    const TensorRef t = in.buffers()[b].tensor;
    EXPECT_EQ(in.TensorData(t).data(), heap2.arena->head_start() + offsets[t.tensor]);
  }
  EXPECT_EQ(
      FirstDifference(graph, RunNaive(graph, VerificationKernels(), 1), RunInvocations(in, 1)), "");
  // An offline-placed tensor cannot be preallocated (RFC 001).
  Interpreter again(graph, *heap2.arena, VerificationKernels(), options);
  std::vector<std::byte> buffer(9216);
  EXPECT_THROW(again.RegisterPreallocatedTensor({0, graph.subgraphs[0].inputs[0]}, buffer),
               UsageError);
}

TEST(RuntimeModels, PreallocatingPersonDetectionsInputSavesArena) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const Graph graph = LoadModel(shared / "models" / "person_detect_96_int8.tflite");
  const TensorRef input{0, graph.subgraphs[0].inputs[0]};
  std::vector<std::byte> camera(*graph.subgraphs[0].tensors[input.tensor].bytes);
  ASSERT_EQ(camera.size(), 9216u);  // 96x96 int8, the RFC's memcpy
  const InterpreterOptions options = Strategy("tflm_greedy");
  ModelArena heap(graph, options);
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  in.RegisterPreallocatedTensor(input, camera);
  EXPECT_EQ(
      FirstDifference(graph, RunNaive(graph, VerificationKernels(), 1), RunInvocations(in, 1)), "");
  EXPECT_EQ(in.input(0).data(), camera.data());
  EXPECT_EQ(in.stats().head_without_preallocation, 55296u);
  EXPECT_LE(in.stats().head_bytes, 55296u);
}

}  // namespace
}  // namespace memplan
