// objects/greedy_by_size (indexed: docs/scale.md) against the plain version it replaced,
// on seeded random problems: the same object for every record and the same object sizes.
// Short spans and few sizes make ties in distance and size common, so the tie rules
// (nearest first, then larger, then lower index; a recomputed best object is the lowest
// id among the nearest, a nearer object replaces the best only when strictly nearer)
// are exercised.
#include <gtest/gtest.h>

#include <random>

#include "memplan/objects.h"
#include "tests/objects_greedy_by_size_reference.h"

namespace memplan {
namespace {

struct Shape {
  std::size_t records;
  Step steps;         // first steps are drawn from [0, steps)
  Step max_length;    // lengths (last - first) from [0, max_length]
  Bytes sizes;        // sizes from {1, ..., sizes} x unit
  Bytes unit;         // size granularity
  Bytes alignment;    // problem alignment
  double long_share;  // share of records alive over most of the span
};

Problem RandomProblem(std::mt19937_64& rng, const Shape& s) {
  Problem p;
  p.alignment = s.alignment;
  auto below = [&](std::uint64_t bound) { return rng() % bound; };
  for (std::size_t i = 0; i < s.records; ++i) {
    UsageRecord r;
    r.size = (1 + below(s.sizes)) * s.unit;
    if (below(20) == 0) r.size = 0;
    const bool long_lived = static_cast<double>(below(1000)) < s.long_share * 1000;
    r.first = static_cast<Step>(below(static_cast<std::uint64_t>(s.steps)));
    const Step length =
        long_lived
            ? static_cast<Step>(s.steps / 2 + static_cast<Step>(below(
                                                  static_cast<std::uint64_t>(s.steps / 2 + 1))))
            : static_cast<Step>(below(static_cast<std::uint64_t>(s.max_length + 1)));
    r.last = r.first + length;
    p.records.push_back(r);
  }
  return p;
}

std::vector<Shape> Shapes() {
  return {
      {8, 6, 2, 2, 1, 1, 0.0},           // tiny, everything ties
      {40, 10, 3, 1, 16, 1, 0.0},        // one size: order by distance and index only
      {60, 20, 4, 3, 1, 4, 0.1},         // three sizes, alignment merges some
      {120, 30, 6, 4, 8, 1, 0.05},       // short spans: many equal distances
      {200, 200, 20, 50, 1, 1, 0.02},    // fewer ties
      {300, 60, 10, 2, 64, 64, 0.15},    // long-lived records over many short ones
      {400, 1000, 40, 1000, 1, 1, 0.0},  // mostly distinct
      {300, 900, 0, 1, 1, 1, 0.0},       // one-step records, one size: long chains of one
                                         // object, each choice nearer to most records
  };
}

TEST(ObjectsGreedyBySize, SamePlansAsThePlainVersion) {
  std::mt19937_64 rng(20261126);
  int problems = 0;
  for (const Shape& shape : Shapes()) {
    for (int round = 0; round < 60; ++round) {
      const Problem problem = RandomProblem(rng, shape);
      const ObjectPlan expected = reference::ObjectsGreedyBySize(problem);
      const ObjectPlan plan = PlanObjectsGreedyBySize(problem);
      ASSERT_EQ(plan.object_ids, expected.object_ids)
          << shape.records << " records over " << shape.steps << " steps, round " << round;
      ASSERT_EQ(plan.object_sizes, expected.object_sizes);
      EXPECT_EQ(plan.total_bytes, expected.total_bytes);
      ++problems;
    }
  }
  EXPECT_EQ(problems, 8 * 60);
}

TEST(ObjectsGreedyBySize, SamePlanOnALargerProblem) {
  // Enough records for several objects per position and long chains of updates.
  std::mt19937_64 rng(5);
  for (const Shape& shape :
       {Shape{2000, 400, 30, 6, 16, 1, 0.05}, Shape{1500, 3000, 200, 200, 1, 1, 0.1}}) {
    const Problem problem = RandomProblem(rng, shape);
    EXPECT_EQ(PlanObjectsGreedyBySize(problem).object_ids,
              reference::ObjectsGreedyBySize(problem).object_ids);
  }
}

}  // namespace
}  // namespace memplan
