#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/plan.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

Problem Three() {
  Problem p;
  p.records = {{100, 0, 1}, {50, 2, 3}, {20, 1, 2}};
  p.names = {"a", "b", "c"};
  return p;
}

TEST(Verify, AcceptsValidPlan) {
  const Problem p = Three();
  const OffsetPlan plan = MakeOffsetPlan(p, "hand", {0, 0, 100});
  EXPECT_TRUE(FindViolations(p, plan).empty());
  EXPECT_EQ(plan.arena_bytes, 120u);
}

TEST(Verify, NamesBothRecordsOfAnOverlap) {
  const Problem p = Three();
  const OffsetPlan plan = MakeOffsetPlan(p, "hand", {0, 0, 90});
  const auto v = FindViolations(p, plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("'a'"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find("'c'"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find("[90, 110)"), std::string::npos) << v[0].message;
  EXPECT_THROW(VerifyOrThrow(p, plan), InternalError);
}

TEST(Verify, TouchingAtOneStepIsAConflict) {
  Problem p;
  p.records = {{10, 0, 2}, {10, 2, 4}};
  EXPECT_FALSE(FindViolations(p, MakeOffsetPlan(p, "x", {0, 0})).empty());
  p.records = {{10, 0, 1}, {10, 2, 4}};
  EXPECT_TRUE(FindViolations(p, MakeOffsetPlan(p, "x", {0, 0})).empty());
}

TEST(Verify, ZeroSizeRecordsTakeNoSpace) {
  Problem p;
  p.records = {{10, 0, 2}, {0, 0, 4}};
  EXPECT_TRUE(FindViolations(p, MakeOffsetPlan(p, "x", {0, 5})).empty());
}

TEST(Verify, UnalignedMovedFixedAndWrongArena) {
  Problem p;
  p.records = {{10, 0, 2}, {10, 3, 4}};
  p.alignment = 8;
  p.fixed_offsets = {std::nullopt, Bytes{16}};
  auto v = FindViolations(p, MakeOffsetPlan(p, "x", {4, 0}));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].message.find("unaligned"), std::string::npos);
  EXPECT_NE(v[1].message.find("fixed offset 16"), std::string::npos);
  OffsetPlan wrong = MakeOffsetPlan(p, "x", {0, 16});
  wrong.arena_bytes = 5;
  v = FindViolations(p, wrong);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].message.find("claims an arena"), std::string::npos);
}

TEST(Verify, FixedRecordsMayOverlapEachOtherButNotOthers) {
  Problem p;
  p.records = {{10, 0, 2}, {10, 0, 2}, {10, 1, 1}};
  p.fixed_offsets = {Bytes{0}, Bytes{5}, std::nullopt};
  EXPECT_TRUE(FindViolations(p, MakeOffsetPlan(p, "x", {0, 5, 15})).empty());
  EXPECT_FALSE(FindViolations(p, MakeOffsetPlan(p, "x", {0, 5, 12})).empty());
}

TEST(Verify, CatchesEveryBrokenRandomPlan) {
  // Start from a valid naive layout, then move one record onto another live record:
  // verification must notice every time.
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    Problem p = testing::RandomProblem(seed, {.records = 40, .steps = 20, .zero_fraction = 0});
    std::vector<Bytes> offsets(p.size());
    Bytes next = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
      offsets[i] = next;
      next += p.records[i].size;
    }
    EXPECT_TRUE(FindViolations(p, MakeOffsetPlan(p, "naive", offsets)).empty());
    std::mt19937_64 rng(seed);
    std::size_t a = rng() % p.size(), b = rng() % p.size();
    if (a == b || !Conflicts(p.records[a], p.records[b])) continue;
    offsets[a] = offsets[b] + rng() % p.records[b].size;
    EXPECT_FALSE(FindViolations(p, MakeOffsetPlan(p, "broken", offsets)).empty())
        << "seed " << seed;
  }
}

}  // namespace
}  // namespace memplan
