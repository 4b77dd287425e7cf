// A program that links memplan_offsets alone (and what it depends on: memplan_core), not
// `memplan`: the offsets strategies plan without the readers, ONNX, protobuf, LEMON or
// the exact solver. The build of this test is half the proof; the link would fail if
// offsets needed another area.
#include <gtest/gtest.h>

#include "memplan/offsets.h"

namespace memplan {
namespace {

Problem SmallProblem() {
  Problem p;
  p.records = {{100, 0, 1}, {60, 1, 2}, {100, 2, 3}, {20, 0, 3}};
  p.alignment = 4;
  return p;
}

TEST(OffsetsOnly, EveryStrategyPlansAndVerifies) {
  const Problem p = SmallProblem();
  ASSERT_FALSE(OffsetStrategies().empty());
  for (const OffsetStrategy& s : OffsetStrategies()) {
    SCOPED_TRACE(std::string(s.name));
    const OffsetPlan plan = PlanOffsets(p, s.name);  // verified inside
    EXPECT_EQ(plan.strategy, s.name);
    EXPECT_GE(plan.arena_bytes, 120u);
  }
}

TEST(OffsetsOnly, ExactIsRegisteredOnlyFromAbove) {
  // src/pipeline/exact_strategy.cc adds "exact"; this program does not link it.
  EXPECT_EQ(FindOffsetStrategy("exact"), nullptr);
  EXPECT_NE(FindOffsetStrategy("best"), nullptr);
}

}  // namespace
}  // namespace memplan
