// In-place outputs in the runtime: outputs that share an input's buffer get its address,
// the verification kernels honour the shares (reshape-like ops copy, element-wise ops
// stream), the outputs match the naive layout, and a share a kernel cannot honour is
// caught.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "memplan/inplace.h"
#include "memplan/offsets.h"
#include "memplan/recording.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "tests/runtime_graphs.h"

namespace memplan {
namespace {

using ::testing::HasSubstr;
using testing::MakeGraph;

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

InterpreterOptions InPlace(const InPlaceRuleSet& rules, std::string strategy = "greedy_by_size") {
  InterpreterOptions o;
  o.strategy = std::move(strategy);
  o.inplace = rules;
  return o;
}

// A rule set of the caller's own (rules sorted by op, as Find needs).
InPlaceRuleSet Rules(std::string name, std::vector<InPlaceRule> rules) {
  std::sort(rules.begin(), rules.end(),
            [](const InPlaceRule& a, const InPlaceRule& b) { return a.op < b.op; });
  return {std::move(name), "test rules", false, std::move(rules)};
}

// conv -> RELU (overwrites) -> RESHAPE (aliases) -> ADD with a broadcast operand
// (overwrites) -> conv: every in-between tensor can live in t1's buffer.
Graph Chain() {
  Graph g = MakeGraph({64, 64, 64, 64, 16, 64, 64}, {{"CONV_2D", {0}, {1}},
                                                     {"RELU", {1}, {2}},
                                                     {"RESHAPE", {2}, {3}},
                                                     {"CONV_2D", {0}, {4}},
                                                     {"ADD", {3, 4}, {5}},
                                                     {"CONV_2D", {5}, {6}}});
  return g;
}

TEST(RuntimeInPlace, SharedOutputsLiveInTheirInputsBufferAndMatchTheNaiveLayout) {
  const Graph graph = Chain();
  const auto naive = RunNaive(graph, VerificationKernels(), 2);
  for (const char* set : {"tflm", "all", "tflite"}) {
    HeapArena heap(1 << 14);
    Interpreter in(graph, *heap.arena, VerificationKernels(), InPlace(InPlaceRuleSetNamed(set)));
    const auto planned = RunInvocations(in, 2);
    EXPECT_EQ(FirstDifference(graph, naive, planned), "") << set;
    ASSERT_FALSE(in.shares().empty()) << set;
    for (const BufferShare& s : in.shares())
      EXPECT_EQ(in.TensorData({0, s.output}).data(), in.TensorData({0, s.input}).data())
          << set << " op " << s.op;
    EXPECT_EQ(in.stats().inplace_shares, in.shares().size());
    // TFLite's rules share less here (no RELU): the head may stay.
    if (std::string(set) == "tflite")
      EXPECT_LE(in.stats().head_bytes, in.stats().head_without_inplace);
    else
      EXPECT_LT(in.stats().head_bytes, in.stats().head_without_inplace) << set;
    EXPECT_THAT(PrintRuntimeSummary(*heap.arena, in), HasSubstr("[memplan] In place: "));
  }
  // tflm: RELU, RESHAPE and ADD all share t1's buffer.
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), InPlace(InPlaceRuleSetNamed("tflm")));
  in.AllocateTensors();
  EXPECT_EQ(in.shares().size(), 3u);
  EXPECT_EQ(in.TensorData({0, 5}).data(), in.TensorData({0, 1}).data());
}

TEST(RuntimeInPlace, NoRulesPlanAsBefore) {
  const Graph graph = Chain();
  HeapArena a(1 << 14), b(1 << 14);
  InterpreterOptions plain;
  plain.strategy = "greedy_by_size";
  Interpreter without(graph, *a.arena, VerificationKernels(), plain);
  Interpreter none(graph, *b.arena, VerificationKernels(), InPlace(InPlaceRuleSetNamed("none")));
  without.AllocateTensors();
  none.AllocateTensors();
  EXPECT_TRUE(none.shares().empty());
  EXPECT_EQ(none.plan().offsets, without.plan().offsets);
  EXPECT_EQ(without.stats().head_without_inplace, 0u);
}

TEST(RuntimeInPlace, TheArenaIsMeasuredWithTheShares) {
  const Graph graph = Chain();
  const InterpreterOptions options = InPlace(InPlaceRuleSetNamed("tflm"));
  InterpreterOptions plain;
  plain.strategy = "greedy_by_size";
  const ArenaRequirement with = MeasureArena(graph, VerificationKernels(), options);
  const ArenaRequirement without = MeasureArena(graph, VerificationKernels(), plain);
  EXPECT_LT(with.head, without.head);
  HeapArena heap(with.total);
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  EXPECT_EQ(
      FirstDifference(graph, RunNaive(graph, VerificationKernels(), 1), RunInvocations(in, 1)), "");
}

// A rule that lets a convolution write over its input: the checksum kernel reads its
// input back after writing, so the in-place run differs from the naive one.
TEST(RuntimeInPlace, AShareWithANonElementwiseOpIsCaught) {
  const Graph graph = MakeGraph(
      {64, 64, 64, 64}, {{"CONV_2D", {0}, {1}}, {"CONV_2D", {1}, {2}}, {"CONV_2D", {2}, {3}}});
  const InPlaceRuleSet broken = Rules("broken", {{"CONV_2D", 1u, ShareKind::kOverwrite, "wrong"}});
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), InPlace(broken));
  const auto planned = RunInvocations(in, 1);
  ASSERT_EQ(in.shares().size(), 1u);  // op 1 writes t2 over t1 (t0 and t3 are graph I/O)
  EXPECT_EQ(in.TensorData({0, 2}).data(), in.TensorData({0, 1}).data());
  EXPECT_THAT(FirstDifference(graph, RunNaive(graph, VerificationKernels(), 1), planned),
              HasSubstr("output 0 't3'"));
}

// An element-wise op declared an alias: its output takes the input's buffer although
// another op still reads the input, and overwrites it.
TEST(RuntimeInPlace, AnOverwriteOfAnInputStillReadIsCaught) {
  const Graph graph = MakeGraph({64, 64, 64, 128, 64}, {{"CONV_2D", {0}, {1}},
                                                        {"ADD", {1, 0}, {2}},
                                                        {"CONCATENATION", {2, 1}, {3}},
                                                        {"CONV_2D", {3}, {4}}});
  const auto naive = RunNaive(graph, VerificationKernels(), 1);
  // The true rules refuse: t1 is read again by the concatenation.
  {
    HeapArena heap(1 << 14);
    Interpreter in(graph, *heap.arena, VerificationKernels(), InPlace(InPlaceRuleSetNamed("all")));
    EXPECT_EQ(FirstDifference(graph, naive, RunInvocations(in, 1)), "");
    EXPECT_TRUE(in.shares().empty());
  }
  const InPlaceRuleSet broken = Rules("broken", {{"ADD", 1u, ShareKind::kAlias, "wrong"}});
  HeapArena heap(1 << 14);
  Interpreter in(graph, *heap.arena, VerificationKernels(), InPlace(broken));
  const auto planned = RunInvocations(in, 1);
  ASSERT_EQ(in.shares().size(), 1u);
  EXPECT_NE(FirstDifference(graph, naive, planned), "");
}

// Reshape-like ops copy their input unchanged in every layout; element-wise ops keep
// every input byte in the output (a changed byte of the broadcast operand changes it).
TEST(RuntimeInPlace, KernelsOfShareableOps) {
  EXPECT_EQ(std::string(VerificationKernels().Find("ADD")->name), "verify/elementwise");
  EXPECT_EQ(std::string(VerificationKernels().Find("Relu")->name), "verify/elementwise");
  EXPECT_EQ(std::string(VerificationKernels().Find("RESHAPE")->name), "verify/alias");
  EXPECT_EQ(std::string(VerificationKernels().Find("CONV_2D")->name), "verify/generic");
  // t4, the broadcast operand, is a graph input: it keeps a changed byte.
  const Graph graph = MakeGraph(
      {64, 64, 64, 64, 16, 64},
      {{"CONV_2D", {0}, {1}}, {"RESHAPE", {1}, {2}}, {"ADD", {2, 4}, {3}}, {"CONV_2D", {3}, {5}}},
      {0, 4}, {2, 3, 5});
  HeapArena heap(1 << 14);
  InterpreterOptions options;
  options.strategy = "naive";
  Interpreter in(graph, *heap.arena, VerificationKernels(), options);
  in.AllocateTensors();
  FillExternalTensors(in, 0);
  in.Invoke();
  const auto bytes = [&](std::int32_t t) {
    const auto d = in.TensorData({0, t});
    return std::vector<std::byte>(d.begin(), d.end());
  };
  EXPECT_EQ(bytes(2), bytes(1));  // RESHAPE: the same bytes
  const auto sum = bytes(3);
  in.TensorData({0, 4})[15] ^= std::byte{1};
  in.Invoke();
  EXPECT_EQ(bytes(2), bytes(1));
  EXPECT_NE(bytes(3), sum);
}

}  // namespace
}  // namespace memplan
