// The runtime on small graphs: lifetimes and scratch buffers as TFLM marks them, plans
// verified end to end against a naive layout, broken plans caught, state kept across
// invocations, shared arenas, preallocated tensors, offline plans, too-small arenas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/offsets.h"
#include "memplan/recording.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "tests/runtime_graphs.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::BranchGraph;
using testing::GraphFromJson;
using ::testing::HasSubstr;
using testing::MakeGraph;
using testing::SvdfGraph;

// The strategy the tests plan with (any verified strategy gives the same guarantees).
constexpr const char* kStrategy = "greedy_by_size";

InterpreterOptions With(std::string strategy = kStrategy) {
  InterpreterOptions o;
  o.strategy = std::move(strategy);
  return o;
}

// An arena on the heap, 16-byte aligned, of exactly `size` usable bytes.
struct HeapArena {
  explicit HeapArena(std::size_t size) : memory(size + 16) {
    const auto base = reinterpret_cast<std::uintptr_t>(memory.data());
    const std::size_t skip = (16 - base % 16) % 16;
    arena = std::make_unique<Arena>(std::span<std::byte>(memory.data() + skip, size));
  }
  std::vector<std::byte> memory;
  std::unique_ptr<Arena> arena;
};

// Records' [first, last] by the tensor they stand for.
std::map<std::int32_t, std::pair<Step, Step>> TensorLifetimes(const Interpreter& in) {
  std::map<std::int32_t, std::pair<Step, Step>> out;
  for (std::size_t r = 0; r < in.buffers().size(); ++r)
    if (in.buffers()[r].scratch_op < 0)
      out[in.buffers()[r].tensor.tensor] = {in.problem().records[r].first,
                                            in.problem().records[r].last};
  return out;
}

TEST(Runtime, MarksLifetimesAsTflmWithControlFlow) {
  // TestMultiSubgraphWithIf (micro_allocation_info_test.cc).
  const auto model = nlohmann::json::parse(R"({"subgraphs": [
    {"tensors": [{"bytes": 1}, {"bytes": 8}, {"bytes": 8}, {"bytes": 8}], "inputs": [0, 1, 2],
     "outputs": [3], "ops": [{"op": "IF", "inputs": [0, 1, 2], "outputs": [3], "subgraphs": [1, 2]}]},
    {"tensors": [{"bytes": 8}, {"bytes": 8}, {"bytes": 8}], "inputs": [0, 1], "outputs": [2],
     "ops": [{"op": "ADD", "inputs": [0, 1], "outputs": [2]}]},
    {"tensors": [{"bytes": 8}, {"bytes": 8}, {"bytes": 8}], "inputs": [0, 1], "outputs": [2],
     "ops": [{"op": "MUL", "inputs": [0, 1], "outputs": [2]}]}]})");
  const Graph graph = GraphFromJson(model);
  HeapArena heap(4096);
  Interpreter in(graph, *heap.arena, VerificationKernels(), With());
  in.AllocateTensors();
  const std::vector<std::pair<Step, Step>> expected_scopes = {
      {0, 5}, {0, 5}, {0, 5}, {1, 5}, {2, 3}, {2, 3}, {3, 3}, {4, 5}, {4, 5}, {5, 5}};
  ASSERT_EQ(in.problem().size(), expected_scopes.size());
  for (std::size_t r = 0; r < expected_scopes.size(); ++r) {
    EXPECT_EQ(in.problem().records[r].first, expected_scopes[r].first) << r;
    EXPECT_EQ(in.problem().records[r].last, expected_scopes[r].second) << r;
    EXPECT_EQ(in.problem().records[r].size, 16u);  // rounded up to 16 as TFLM
  }
  // The IF kernel runs both subgraphs; the result matches the naive layout.
  const auto planned = RunInvocations(in, 2);
  EXPECT_EQ(FirstDifference(graph, RunNaive(graph, VerificationKernels(), 2), planned), "");
}

TEST(Runtime, MatchesTheConformanceLifetimes) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto json = testing::ReadJsonFile(shared / "conformance" / "tflm_allocation_info.json");
  int checked = 0;
  for (const auto& c : json.at("cases")) {
    if (c.value("derived", false)) continue;
    const Graph graph = GraphFromJson(c.at("model"));
    HeapArena heap(1 << 16);
    Interpreter in(graph, *heap.arena, VerificationKernels(), With());
    in.AllocateTensors();
    const auto lifetimes = TensorLifetimes(in);
    // Entry g of the conformance list is global tensor g; planned entries are records.
    std::size_t g = 0;
    std::size_t record = 0;
    for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
      for (std::size_t t = 0; t < graph.subgraphs[s].tensors.size(); ++t, ++g) {
        const auto& expect = c.at("expect").at("lifetimes").at(g);
        const Tensor& tensor = graph.subgraphs[s].tensors[t];
        const bool planned = !tensor.is_constant && tensor.bytes.value_or(0) != 0;
        if (!planned) continue;
        ASSERT_LT(record, in.problem().size());
        const UsageRecord& r = in.problem().records[record];
        const PlannedBuffer& b = in.buffers()[record++];
        EXPECT_EQ(b.tensor.subgraph, static_cast<std::int32_t>(s));
        EXPECT_EQ(b.tensor.tensor, static_cast<std::int32_t>(t));
        // Unset (-1) lifetimes move every step up by one in the records.
        const Step shift = r.first - expect[0].get<Step>();
        EXPECT_TRUE(shift == 0 || shift == 1) << c.at("name");
        EXPECT_EQ(r.last - shift, expect[1].get<Step>()) << c.at("name") << " tensor " << g;
      }
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(Runtime, OutputsMatchTheNaiveLayout) {
  const Graph graph = BranchGraph();
  const auto naive = RunNaive(graph, VerificationKernels(), 3);
  for (const OffsetStrategy& s : OffsetStrategies()) {
    HeapArena heap(1 << 14);
    Interpreter in(graph, *heap.arena, VerificationKernels(), With(std::string(s.name)));
    const auto planned = RunInvocations(in, 3);
    EXPECT_EQ(FirstDifference(graph, naive, planned), "") << s.name;
    EXPECT_LE(in.stats().head_bytes, NaiveBytes(in.problem()));
  }
  // Outputs depend on the inputs of each invocation.
  EXPECT_NE(naive[0].outputs, naive[1].outputs);
}

TEST(Runtime, PlansReuseMemory) {
  const Graph graph = BranchGraph();
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), With());
  in.AllocateTensors();
  // t0 (100) dies at op 2; t5 (120) and t3 (50) can take its place, so the head is below
  // the sum of all sizes.
  EXPECT_LT(in.stats().head_bytes, NaiveBytes(in.problem()));
  EXPECT_EQ(heap.arena->head_bytes(), in.stats().head_bytes);
  for (std::size_t r = 0; r < in.problem().size(); ++r) {
    const TensorRef t = in.buffers()[r].tensor;
    EXPECT_EQ(in.TensorData(t).data(), heap.arena->head_start() + in.plan().offsets[r]);
  }
}

// Moves record `victim` onto `target`'s bytes: both are alive together.
OffsetPlan Overlap(const Interpreter& in, std::size_t target, std::size_t victim) {
  OffsetPlan broken = in.plan();
  broken.offsets[victim] = broken.offsets[target];
  broken.arena_bytes = ArenaBytes(in.problem(), broken.offsets);
  return broken;
}

TEST(Runtime, ABrokenPlanIsCaught) {
  const Graph graph = BranchGraph();
  const auto naive = RunNaive(graph, VerificationKernels(), 1);
  HeapArena reference_heap(1 << 14);
  Interpreter reference(graph, *reference_heap.arena, VerificationKernels(), With());
  reference.AllocateTensors();
  // t1 lives from op 1 to op 5 (it is read again by the last op); t2 is written at op 2.
  const OffsetPlan broken = Overlap(reference, 1, 2);
  ASSERT_TRUE(Conflicts(reference.problem().records[1], reference.problem().records[2]));
  // Verification rejects it...
  EXPECT_FALSE(FindViolations(reference.problem(), broken).empty());
  // ... and committed anyway, the outputs differ from the naive layout.
  InterpreterOptions options = With();
  options.unchecked_plan = broken;
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  const auto planned = RunInvocations(in, 1);
  EXPECT_THAT(FirstDifference(graph, naive, planned), HasSubstr("output 0 't5'"));
}

TEST(Runtime, AnOutputOverlappingItsOwnInputIsCaught) {
  // t1 is read only by op 1, which writes t2: alive together at that op, so sharing
  // their bytes is wrong for a kernel that reads while it writes.
  const Graph graph =
      MakeGraph({64, 64, 64, 64}, {{"A", {0}, {1}}, {"B", {1}, {2}}, {"C", {2}, {3}}});
  const auto naive = RunNaive(graph, VerificationKernels(), 1);
  HeapArena reference_heap(1 << 12);
  Interpreter reference(graph, *reference_heap.arena, VerificationKernels(), With());
  reference.AllocateTensors();
  InterpreterOptions options = With();
  options.unchecked_plan = Overlap(reference, 1, 2);
  HeapArena heap(1 << 12);
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  EXPECT_NE(FirstDifference(graph, naive, RunInvocations(in, 1)), "");
}

// Plans with in-place shares (memplan embed --inplace): a kernel allowed to write over
// a dying input, or a reshape that leaves the bytes as they are, gives the naive
// layout's outputs on shared memory; the same overlap where the input is read again is
// still caught.
TEST(Runtime, InPlaceOutputsOnSharedMemory) {
  auto run_shared = [](const Graph& graph) {
    const auto naive = RunNaive(graph, VerificationKernels(), 2);
    HeapArena reference_heap(1 << 12);
    Interpreter reference(graph, *reference_heap.arena, VerificationKernels(), With());
    reference.AllocateTensors();
    InterpreterOptions options = With();
    // t0, t1, t3 apart; t2 on t1's bytes.
    OffsetPlan shared = reference.plan();
    shared.offsets = {0, 64, 64, 128};
    shared.arena_bytes = ArenaBytes(reference.problem(), shared.offsets);
    options.unchecked_plan = shared;
    HeapArena heap(1 << 12);
    Interpreter in(graph, *heap.arena, VerificationKernels(), options);
    return FirstDifference(graph, naive, RunInvocations(in, 2));
  };
  // RELU overwrites t1, which nothing reads afterwards.
  EXPECT_EQ(run_shared(MakeGraph({64, 64, 64, 64},
                                 {{"A", {0}, {1}}, {"RELU", {1}, {2}}, {"C", {2}, {3}}})),
            "");
  // RESHAPE aliases t1, which C still reads.
  EXPECT_EQ(run_shared(MakeGraph({64, 64, 64, 64},
                                 {{"A", {0}, {1}}, {"RESHAPE", {1}, {2}}, {"C", {1, 2}, {3}}})),
            "");
  // RELU over t1 while C still reads it: caught.
  EXPECT_NE(run_shared(MakeGraph({64, 64, 64, 64},
                                 {{"A", {0}, {1}}, {"RELU", {1}, {2}}, {"C", {1, 2}, {3}}})),
            "");
  // An op without an in-place rule (CONV_2D) writing over its input: caught.
  EXPECT_NE(run_shared(MakeGraph({64, 64, 64, 64},
                                 {{"A", {0}, {1}}, {"CONV_2D", {1}, {2}}, {"C", {2}, {3}}})),
            "");
}

TEST(Runtime, VariablesKeepTheirStateAcrossInvocations) {
  const Graph graph = SvdfGraph();
  const auto naive = RunNaive(graph, VerificationKernels(), 3);
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), With());
  const auto planned = RunInvocations(in, 3);
  EXPECT_EQ(FirstDifference(graph, naive, planned), "");
  // The state evolves, and it starts from zero.
  ASSERT_EQ(planned[0].variables.size(), 2u);
  EXPECT_NE(planned[0].variables[0], planned[1].variables[0]);
  // The state lives in the tail, outside the planned head.
  EXPECT_EQ(in.stats().tail_variables, 2u);
  EXPECT_EQ(in.stats().variable_bytes, 640u * 2 + 256u * 2);
  EXPECT_EQ(heap.arena->Tally(ArenaAllocation::kVariableBufferData).requested, 1792u);
  // Same inputs, different state: the second invocation's output depends on the first.
  HeapArena heap2(1 << 14);
  Interpreter fresh(graph, *heap2.arena, VerificationKernels(), With());
  fresh.AllocateTensors();
  FillExternalTensors(fresh, 1);  // the inputs of invocation 2, but from zero state
  fresh.Invoke();
  std::vector<std::byte> out(fresh.output(0).begin(), fresh.output(0).end());
  EXPECT_NE(out, planned[1].outputs[0]);
}

TEST(Runtime, SvdfAsksForTflmsScratchBuffers) {
  const Graph graph = SvdfGraph();
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), With());
  in.AllocateTensors();
  std::vector<std::pair<Bytes, std::int32_t>> scratch;  // (size, op)
  for (std::size_t r = 0; r < in.buffers().size(); ++r)
    if (in.buffers()[r].scratch_op >= 0) {
      scratch.emplace_back(in.problem().records[r].size, in.buffers()[r].scratch_op);
      // Alive for its op only: op i runs at scope i + 1.
      EXPECT_EQ(in.problem().records[r].first, in.buffers()[r].scratch_op + 1);
      EXPECT_EQ(in.problem().records[r].last, in.buffers()[r].scratch_op + 1);
    }
  // batch 1: 64 filters * 4 and 32 units * 4, then 32 * 4 twice (sizes rounded to 16).
  const std::vector<std::pair<Bytes, std::int32_t>> expected = {
      {256, 0}, {128, 0}, {128, 1}, {128, 1}};
  EXPECT_EQ(scratch, expected);
  EXPECT_EQ(in.stats().scratch_buffers, 4u);
}

TEST(Runtime, TooSmallAnArenaSaysHowBigItMustBe) {
  const Graph graph = BranchGraph();
  const Bytes need = RequiredArenaBytes(graph, VerificationKernels(), With());
  HeapArena small(256);
  Interpreter in(graph, *small.arena, VerificationKernels(), With());
  const std::string message = testing::ErrorMessage<std::exception>([&] { in.AllocateTensors(); });
  EXPECT_THAT(message, ::testing::MatchesRegex(
                           "Failed to (allocate tail memory|resize buffer|allocate temp memory)\\. "
                           "Requested: [0-9]+, available [0-9]+, missing: [0-9]+\\. .*"));
  EXPECT_THAT(message, HasSubstr("needs an arena of at least " + std::to_string(need) + " bytes"));
  EXPECT_THROW(in.AllocateTensors(), UsageError);  // a failed load is not retried
  // Exactly that size works (it is the peak rounded up to 16); 16 bytes less do not.
  EXPECT_EQ(need % 16, 0u);
  HeapArena exact(need);
  Interpreter fits(graph, *exact.arena, VerificationKernels(), With());
  EXPECT_NO_THROW(fits.AllocateTensors());
  EXPECT_LE(exact.arena->PeakUsedBytes(), need);
  EXPECT_GT(exact.arena->PeakUsedBytes(), need - 16);
  HeapArena short_by_16(need - 16);
  Interpreter fails(graph, *short_by_16.arena, VerificationKernels(), With());
  EXPECT_THROW(fails.AllocateTensors(), ArenaTooSmall);
}

TEST(Runtime, ThePeakIncludesWhatArenaUsedBytesMisses) {
  const Graph graph = SvdfGraph();
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), With());
  in.AllocateTensors();
  const Arena& arena = *heap.arena;
  EXPECT_EQ(arena.UsedBytes(), arena.NonPersistentUsedBytes() + arena.PersistentUsedBytes());
  EXPECT_EQ(arena.NonPersistentUsedBytes(), in.stats().head_bytes);
  // Planning needed 32 B of allocation info per tensor and scratch entry plus 40 B of
  // planner memory per planned buffer on top of the head of that moment.
  EXPECT_GT(arena.PeakUsedBytes(), arena.UsedBytes());
  EXPECT_GE(arena.PeakTempBytes(), 40 * in.problem().size());
}

TEST(Runtime, ModelsShareAnArena) {
  const Graph a = BranchGraph();
  const Graph b = SvdfGraph();
  const auto naive_a = RunNaive(a, VerificationKernels(), 2);
  const auto naive_b = RunNaive(b, VerificationKernels(), 2);
  HeapArena heap(1 << 15);
  Interpreter ia(a, *heap.arena, VerificationKernels(), With());
  ia.AllocateTensors();
  const Bytes tail_a = heap.arena->PersistentUsedBytes();
  Interpreter ib(b, *heap.arena, VerificationKernels(), With());
  ib.AllocateTensors();
  EXPECT_EQ(heap.arena->head_bytes(), std::max(ia.stats().head_bytes, ib.stats().head_bytes));
  EXPECT_GT(heap.arena->PersistentUsedBytes(), tail_a);
  // The models take turns with the shared head.
  std::vector<InvocationResult> ra, rb;
  for (int k = 0; k < 2; ++k) {
    auto x = RunInvocations(ia, 1);
    auto y = RunInvocations(ib, 1);
    ra.push_back(std::move(x[0]));
    rb.push_back(std::move(y[0]));
  }
  EXPECT_EQ(FirstDifference(a, naive_a, ra), "");
  EXPECT_EQ(FirstDifference(b, naive_b, rb), "");
}

TEST(Runtime, TwoBuffersHoldPersistentAndNonPersistentMemoryApart) {
  const Graph graph = SvdfGraph();
  const auto naive = RunNaive(graph, VerificationKernels(), 2);
  std::vector<std::byte> fast(4096), slow(8192);
  Arena arena{std::span<std::byte>(slow), std::span<std::byte>(fast)};
  Interpreter in(graph, arena, VerificationKernels(), With());
  EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, 2)), "");
  // Variables (persistent) are in the slow buffer, planned tensors in the fast one.
  const auto state = in.TensorData(in.VariableTensors()[0]);
  EXPECT_GE(state.data(), slow.data());
  EXPECT_LE(state.data() + state.size(), slow.data() + slow.size());
  const auto out = in.output(0);
  EXPECT_GE(out.data(), fast.data());
  EXPECT_LE(out.data() + out.size(), fast.data() + fast.size());
  // Too little fast memory: the message names both sizes.
  std::vector<std::byte> tiny(64), big(8192);
  Arena cramped{std::span<std::byte>(big), std::span<std::byte>(tiny)};
  Interpreter fails(graph, cramped, VerificationKernels(), With());
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { fails.AllocateTensors(); }),
              HasSubstr("bytes of persistent memory and"));
}

TEST(Runtime, PreallocatedTensorsStayOutOfTheArena) {
  const Graph graph = BranchGraph();
  HeapArena heap(1 << 14);
  Interpreter plain(graph, *heap.arena, VerificationKernels(), With());
  plain.AllocateTensors();

  std::vector<std::byte> user(400);
  HeapArena heap2(1 << 14);
  Interpreter in(graph, *heap2.arena, VerificationKernels(), With());
  in.RegisterPreallocatedTensor({0, 4}, user);  // t4, 400 bytes, the largest
  const auto naive = RunNaive(graph, VerificationKernels(), 2);
  EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, 2)), "");
  EXPECT_EQ(in.TensorData({0, 4}).data(), user.data());
  EXPECT_EQ(in.problem().size(), plain.problem().size() - 1);
  EXPECT_EQ(in.stats().preallocated, 1u);
  EXPECT_EQ(in.stats().preallocated_bytes, 400u);
  EXPECT_EQ(in.stats().head_without_preallocation, plain.stats().head_bytes);
  EXPECT_LT(in.stats().head_bytes, plain.stats().head_bytes);
  EXPECT_THAT(PrintRuntimeSummary(*heap2.arena, in), HasSubstr("Preallocated 1 tensor (400 bytes"));
  // Misuse.
  EXPECT_THROW(in.RegisterPreallocatedTensor({0, 1}, user), UsageError);  // too late
  Interpreter other(graph, *heap.arena, VerificationKernels(), With());
  std::vector<std::byte> small(10);
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] {
                other.RegisterPreallocatedTensor({0, 1}, small);
              }),
              HasSubstr("has 10 bytes; the tensor needs 300"));
  EXPECT_THROW(other.RegisterPreallocatedTensor({0, 9}, user), UsageError);
}

TEST(Runtime, OfflineOffsetsAreKeptAndTheRestPlannedAround) {
  const Graph graph = BranchGraph();  // sizes 100 300 200 50 400 120 -> 112 304 208 64 400 128
  InterpreterOptions options = With();
  options.offline_offsets = {-1, 0, -1, -1, 512, -1};  // t1 at 0, t4 at 512
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  const auto naive = RunNaive(graph, VerificationKernels(), 2);
  EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, 2)), "");
  EXPECT_EQ(in.TensorData({0, 1}).data(), heap.arena->head_start());
  EXPECT_EQ(in.TensorData({0, 4}).data(), heap.arena->head_start() + 512);
  EXPECT_EQ(in.stats().offline_buffers, 2u);
  EXPECT_GE(in.stats().head_bytes, 912u);
  // Preallocating an offline tensor is an error (RFC 001).
  Interpreter again(graph, *heap.arena, VerificationKernels(), options);
  std::vector<std::byte> user(400);
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] {
                again.RegisterPreallocatedTensor({0, 4}, user);
              }),
              HasSubstr("placed by the offline plan"));
  // Ignored on request.
  options.offline = OfflinePlanUse::kIgnore;
  HeapArena heap2(1 << 14);
  Interpreter ignoring(graph, *heap2.arena, VerificationKernels(), options);
  ignoring.AllocateTensors();
  EXPECT_EQ(ignoring.stats().offline_buffers, 0u);
}

TEST(Runtime, OfflineMetadataMustCoverEveryTensor) {
  const Graph graph = BranchGraph();
  InterpreterOptions options = With();
  options.offline_offsets = {0, 0};
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { in.AllocateTensors(); }),
              HasSubstr("Nbr of offline buffer offsets (2) in metadata not equal nbr tensors (6)"));
  InterpreterOptions require = With();
  require.offline = OfflinePlanUse::kRequire;
  HeapArena heap2(1 << 14);
  Interpreter in2(graph, *heap2.arena, VerificationKernels(), require);
  EXPECT_THROW(in2.AllocateTensors(), InputError);
}

TEST(Runtime, OfflineVariablesArePlannedInTheHead) {
  Graph graph = SvdfGraph();
  InterpreterOptions options = With();
  options.offline_offsets.assign(graph.subgraphs[0].tensors.size(), -1);
  options.offline_offsets[4] = 0;  // state1, 1280 bytes
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  in.AllocateTensors();
  EXPECT_EQ(in.TensorData({0, 4}).data(), heap.arena->head_start());
  EXPECT_EQ(in.stats().tail_variables, 1u);
}

TEST(Runtime, RecordsEveryAllocationInTflmsFormat) {
  const Graph graph = SvdfGraph();
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), With());
  in.AllocateTensors();
  const std::string report = PrintAllocations(*heap.arena);
  const Arena& a = *heap.arena;
  EXPECT_THAT(report, HasSubstr("[RecordingMicroAllocator] Arena allocation total " +
                                std::to_string(a.UsedBytes()) + " bytes\n"));
  EXPECT_THAT(report, HasSubstr("[RecordingMicroAllocator] Arena allocation head " +
                                std::to_string(in.stats().head_bytes) + " bytes\n"));
  EXPECT_THAT(report, HasSubstr("[RecordingMicroAllocator] Arena allocation tail " +
                                std::to_string(a.PersistentUsedBytes()) + " bytes\n"));
  // 12 tensors of 24 bytes, 3 ops.
  EXPECT_THAT(report,
              HasSubstr("[RecordingMicroAllocator] 'TfLiteEvalTensor data' used 288 bytes "
                        "with alignment overhead (requested 288 bytes for 12 allocations)"));
  EXPECT_THAT(report,
              HasSubstr("'NodeAndRegistration struct' used 144 bytes with alignment overhead "
                        "(requested 144 bytes for 3 NodeAndRegistration structs)"));
  EXPECT_THAT(report, HasSubstr("'TfLiteTensor variable buffer data' used 1792 bytes"));
  EXPECT_THAT(report, ::testing::Not(HasSubstr("quantization")));  // nothing recorded
  const std::regex line(
      R"(\[RecordingMicroAllocator\] '[^']+' used [0-9]+ bytes with alignment overhead \(requested [0-9]+ bytes for [0-9]+ [A-Za-z ]+\))");
  std::istringstream lines(report);
  std::string l;
  int kinds = 0;
  while (std::getline(lines, l))
    if (l.find('\'') != std::string::npos) {
      EXPECT_TRUE(std::regex_match(l, line)) << l;
      ++kinds;
    }
  EXPECT_EQ(kinds, 5);
  EXPECT_THAT(PrintRuntimeSummary(a, in), HasSubstr("[memplan] Arena peak "));
}

TEST(Runtime, ExplainsWhatItCannotRun) {
  Graph graph = BranchGraph();
  graph.subgraphs[0].tensors[2].bytes.reset();
  graph.subgraphs[0].tensors[2].why_unsized = "dimension 1 is -1";
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), With());
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { in.AllocateTensors(); }),
              HasSubstr("tensor 2 't2' (subgraph 0) has no static size (dimension 1 is -1)"));

  KernelRegistry only_add;
  only_add.Add("ADD", {"add", nullptr, nullptr, [](OpContext&) {}});
  HeapArena heap2(1 << 14);
  const Graph branches = BranchGraph();
  Interpreter no_kernel(branches, *heap2.arena, only_add, With());
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { no_kernel.AllocateTensors(); }),
              HasSubstr("no kernel for op 0 (CONV_2D) in subgraph 0"));

  Graph bad = BranchGraph();
  bad.subgraphs[0].ops[1].inputs = {17};
  HeapArena heap3(1 << 14);
  Interpreter bad_index(bad, *heap3.arena, VerificationKernels(), With());
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { bad_index.AllocateTensors(); }),
              HasSubstr("op 1 (CONV_2D) names input tensor 17, but the subgraph has 6 tensors"));
}

TEST(Runtime, LimitsScratchRequestsPerOpAsTflm) {
  KernelRegistry greedy;
  greedy.SetFallback({"greedy", nullptr,
                      [](OpContext& c) {
                        for (int i = 0; i < 13; ++i) c.RequestScratch(16);
                      },
                      [](OpContext&) {}});
  HeapArena heap(1 << 14);
  const Graph graph = BranchGraph();
  Interpreter in(graph, *heap.arena, greedy, With());
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { in.AllocateTensors(); }),
              HasSubstr("Scratch buffer request exceeds limit per operator (12)"));
}

}  // namespace
}  // namespace memplan
