// The built-in models' records against published figures (the reference
// "float MobileNets", docs/testing.md, transcribed) and figures derived by hand from the
// architectures. No value here is computed by the code under test.
#include <gtest/gtest.h>

#include "memplan/bounds.h"
#include "memplan/lifetimes.h"
#include "memplan/offsets.h"
#include "memplan/zoo.h"
#if __has_include("memplan/objects.h")
#include "memplan/objects.h"
#define MEMPLAN_ZOO_TEST_OBJECTS 1
#endif

namespace memplan {
namespace {

GraphRecords Records(std::string_view name, Accounting accounting) {
  const auto graph = ZooGraph(name);
  if (!graph) throw std::runtime_error("no zoo model " + std::string(name));
  LifetimeOptions options;
  options.accounting = accounting;
  return RecordsFromGraph(*graph, options);
}

// Offset strategies that reach the lower bound on the MobileNets (the reference
// "float MobileNets": greedy_by_size = tflm_greedy = lower bound); those not built yet are left
// out.
void ExpectOffsetsReachBound(const Problem& p, Bytes bound) {
  for (const char* name : {"greedy_by_size", "tflm_greedy"}) {
    if (!FindOffsetStrategy(name)) continue;
    SCOPED_TRACE(name);
    EXPECT_EQ(PlanOffsets(p, name).arena_bytes, bound);
  }
}

// The reference "float MobileNets" (`inter`): 65
// intermediates over 66 ops, naive 27,591,112 B (the TensorFlow Lite blog's "~26 MB"), offsets
// bound 6,021,120 B.
TEST(ZooFigures, MobileNetV2IntermediatesOnly) {
  const GraphRecords r = Records("mobilenet_v2", Accounting::kIntermediatesOnly);
  EXPECT_EQ(r.problem.size(), 65u);
  EXPECT_EQ(r.ops, 66u);
  EXPECT_EQ(NaiveBytes(r.problem), 27'591'112u);
  EXPECT_EQ(OffsetsLowerBound(r.problem), 6'021'120u);
  ExpectOffsetsReachBound(r.problem, 6'021'120u);
#ifdef MEMPLAN_ZOO_TEST_OBJECTS
  // The blog's "~7 MB" in 4 colours: greedy by size shared objects, 7,024,640 B.
  const ObjectPlan objects = PlanObjects(r.problem, "greedy_by_size");
  EXPECT_EQ(objects.total_bytes, 7'024'640u);
  EXPECT_EQ(objects.object_sizes.size(), 4u);
#endif
}

// The reference "float MobileNets" (`inter`): 30
// intermediates over 31 ops, naive 20,182,856 B, offsets bound 4,816,896 B.
TEST(ZooFigures, MobileNetV1IntermediatesOnly) {
  const GraphRecords r = Records("mobilenet_v1", Accounting::kIntermediatesOnly);
  EXPECT_EQ(r.problem.size(), 30u);
  EXPECT_EQ(r.ops, 31u);
  EXPECT_EQ(NaiveBytes(r.problem), 20'182'856u);
  EXPECT_EQ(OffsetsLowerBound(r.problem), 4'816'896u);
  ExpectOffsetsReachBound(r.problem, 4'816'896u);
#ifdef MEMPLAN_ZOO_TEST_OBJECTS
  const ObjectPlan objects = PlanObjects(r.problem, "greedy_by_size");
  EXPECT_EQ(objects.total_bytes, 4'816'896u);
  EXPECT_EQ(objects.object_sizes.size(), 2u);
#endif
}

// The reference "float MobileNets" (`tflm`, memplan's default): the graph input and output join,
// sizes round up to 16; the bound does not move.
TEST(ZooFigures, MobileNetsTflm) {
  const GraphRecords v1 = Records("mobilenet_v1", Accounting::kTflm);
  EXPECT_EQ(v1.problem.size(), 32u);
  EXPECT_EQ(v1.ops, 31u);
  EXPECT_EQ(NaiveBytes(v1.problem), 20'789'008u);
  EXPECT_EQ(OffsetsLowerBound(v1.problem), 4'816'896u);
  const GraphRecords v2 = Records("mobilenet_v2", Accounting::kTflm);
  EXPECT_EQ(v2.problem.size(), 67u);
  EXPECT_EQ(v2.ops, 66u);
  EXPECT_EQ(NaiveBytes(v2.problem), 28'197'264u);
  EXPECT_EQ(OffsetsLowerBound(v2.problem), 6'021'120u);
  ExpectOffsetsReachBound(v2.problem, 6'021'120u);
}

// By hand: the residual ADD of conv2_block1 holds the shortcut, the main path and its
// output, each 56×56×256 floats = 3,211,264 B, and nothing else is live; no later step
// holds more (stage 3 tensors are half as large).
TEST(ZooFigures, ResNet50BoundByHand) {
  const GraphRecords r = Records("resnet50", Accounting::kIntermediatesOnly);
  EXPECT_EQ(r.ops, 73u);
  EXPECT_EQ(OffsetsLowerBound(r.problem), 3u * 56 * 56 * 256 * 4);
}

// By hand: conv_2b_3x3 reads 147×147×32 floats and writes 147×147×64 floats:
// 2,765,952 + 5,531,904 B, the largest pair in the stem and in the network.
TEST(ZooFigures, InceptionV3BoundByHand) {
  const GraphRecords r = Records("inception_v3", Accounting::kIntermediatesOnly);
  EXPECT_EQ(r.ops, 125u);
  EXPECT_EQ(OffsetsLowerBound(r.problem), 147u * 147 * (32 + 64) * 4);
}

// By hand: at an MLP's GELU the residual stream (128×768 floats), the 128×3072 input and
// the 128×3072 output are live: 393,216 + 2 × 1,572,864 B.
TEST(ZooFigures, Gpt2BoundByHand) {
  const GraphRecords r = Records("gpt2", Accounting::kIntermediatesOnly);
  EXPECT_EQ(r.ops, 480u);
  // Every activation but the token ids and the logits: 505 - 2.
  EXPECT_EQ(r.problem.size(), 503u);
  EXPECT_EQ(OffsetsLowerBound(r.problem), 128u * (768 + 2 * 3072) * 4);
}

}  // namespace
}  // namespace memplan
