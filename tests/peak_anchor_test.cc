// Anchoring at the heaviest step (src/offsets/peak_anchor.h): the step found, the
// records live there, their packing, and `best` taking an anchored plan where it is
// smaller — on random problems with a few long-lived records, and on pangu_2.6B, where
// it closes the 0.76 % every greedy order leaves.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "memplan/records_io.h"
#include "src/offsets/peak_anchor.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using namespace offsets;

Problem Records(std::vector<UsageRecord> records, Bytes alignment = 1) {
  Problem p;
  p.records = std::move(records);
  p.alignment = alignment;
  return p;
}

TEST(PeakAnchor, HeaviestStepCountsAlignedSizesAndTakesTheEarliestTie) {
  // Raw live bytes: step 0: 10, step 1: 12 (10 + 2), step 2: 12 (12 alone).
  Problem p = Records({{10, 0, 1}, {2, 1, 1}, {12, 2, 2}});
  CompactSteps steps = Compact(p);
  EXPECT_EQ(steps.first[1], HeaviestStep(p, steps));  // step 1, the earlier of the tie
  // Aligned to 8: step 1 holds 16 + 8 = 24, step 2 only 16.
  p.alignment = 8;
  steps = Compact(p);
  EXPECT_EQ(steps.first[1], HeaviestStep(p, steps));
  // Make step 2 strictly heavier.
  p.records[2].size = 30;
  steps = Compact(p);
  EXPECT_EQ(steps.first[2], HeaviestStep(p, steps));
  EXPECT_EQ(-1, HeaviestStep(Records({}), Compact(Records({}))));
}

TEST(PeakAnchor, OnlineLiveAtLeavesFixedRecordsOutAndFollowsTheRank) {
  Problem p = Records({{4, 0, 3}, {4, 1, 2}, {4, 2, 5}, {4, 3, 4}, {4, 0, 2}});
  p.fixed_offsets.assign(p.size(), std::nullopt);
  p.fixed_offsets[4] = 100;
  const CompactSteps steps = Compact(p);
  const std::int32_t at = steps.first[2];  // step 2: records 0, 1, 2 and the fixed 4
  const std::vector<Bytes> rank = {7, 3, 3, 0, 0};
  EXPECT_EQ((std::vector<std::size_t>{1, 2, 0}), OnlineLiveAt(p, steps, at, rank));
  EXPECT_EQ(2, OriginalStep(p, OnlineLiveAt(p, steps, at, rank)));
}

TEST(PeakAnchor, TheAnchorIsPackedFromTheBottomAroundFixedRecords) {
  // Three records live at step 1 and a fixed one at [10, 20) there too.
  Problem p = Records({{6, 0, 1}, {4, 1, 2}, {8, 1, 1}, {10, 1, 3}, {5, 2, 3}});
  p.fixed_offsets.assign(p.size(), std::nullopt);
  p.fixed_offsets[3] = 10;
  const CompactSteps steps = Compact(p);
  const ConflictIndex index(steps);
  Placer placer(p, steps, index);
  const std::vector<std::size_t> anchor = {2, 0, 1};  // 8 bytes, 6, 4
  const std::vector<std::size_t> rest = {4};
  const std::atomic<Bytes> no_limit{~Bytes{0}};
  ASSERT_TRUE(PlaceAnchored(placer, anchor, rest, Fit::kSmallestGap, no_limit));
  EXPECT_EQ(0u, placer.OffsetOf(2));   // [0, 8)
  EXPECT_EQ(20u, placer.OffsetOf(0));  // 6 bytes do not fit in [8, 10): above the fixed one
  EXPECT_EQ(26u, placer.OffsetOf(1));  // first fit: the next free place, [26, 30)
  EXPECT_TRUE(placer.IsPlaced(4));
  // A limit below what the anchor needs gives up.
  Placer again(p, steps, index);
  const std::atomic<Bytes> low{25};
  EXPECT_FALSE(PlaceAnchored(again, anchor, rest, Fit::kSmallestGap, low));
}

// Records that mostly live a few steps, one in five up to half of all steps: the mix
// (short activations under long-lived ones) where a greedy order leaves a hole at the
// peak.
Problem MixedLifetimes(std::uint32_t seed, std::size_t count) {
  std::mt19937_64 rng(seed);
  const Step steps = static_cast<Step>(count);
  std::vector<UsageRecord> records;
  for (std::size_t i = 0; i < count; ++i) {
    const Step first = static_cast<Step>(rng() % static_cast<std::uint64_t>(steps));
    const bool long_lived = rng() % 5 == 0;
    const Step length = long_lived ? 1 + static_cast<Step>(rng() % (count / 2)) : 1 + rng() % 3;
    const Bytes unit = std::array<Bytes, 5>{1, 2, 3, 4, 8}[rng() % 5];
    records.push_back({unit * (1 + rng() % 63), first, std::min(first + length, steps)});
  }
  return Records(std::move(records));
}

TEST(PeakAnchor, BestTakesAnAnchoredPlanWhereItIsSmaller) {
  const std::vector<std::string> named = {"greedy_by_size",    "tflm_greedy", "greedy_in_order",
                                          "greedy_by_breadth", "xla_spatial", "xla_temporal",
                                          "tflite_cpu",        "tvm_greedy",  "strip_packing"};
  int anchored = 0;
  // Under the sanitizers fewer seeds (still two anchored ones): each plan takes ~2 s there.
  const std::uint32_t seeds = testing::kSanitizedBuild ? 12 : 40;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    const Problem p = MixedLifetimes(seed, 300);
    const OffsetPlan best = PlanOffsets(p, "best");
    EXPECT_NO_THROW(VerifyOrThrow(p, best));
    EXPECT_GE(best.arena_bytes, OffsetsLowerBound(p));
    if (!best.detail.starts_with("anchored at step ")) continue;
    ++anchored;
    // An anchored plan is only taken when it is below every greedy variant.
    for (const std::string& name : named)
      EXPECT_LT(best.arena_bytes, PlanOffsets(p, name).arena_bytes) << name << ", seed " << seed;
  }
  // Without the anchoring stage no plan is anchored (7 of these 40 seeds are today).
  EXPECT_GT(anchored, 0);
}

// Anchored plans keep fixed records where they are and respect the alignment: every
// plan best returns verifies, and some of these are anchored.
TEST(PeakAnchor, AnchoredPlansWithFixedRecordsAndAlignmentVerify) {
  int anchored = 0;
  const std::uint64_t seeds = testing::kSanitizedBuild ? 12 : 60;  // 6 and 7 are anchored
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    testing::RandomProblemOptions o;
    o.records = 200;
    o.steps = 120;
    o.alignment = seed % 3 == 0 ? 16 : 1;
    o.fixed_fraction = seed % 2 == 0 ? 0.05 : 0.0;
    const Problem p = testing::RandomProblem(seed, o);
    const OffsetPlan best = PlanOffsets(p, "best");
    EXPECT_NO_THROW(VerifyOrThrow(p, best)) << "seed " << seed;
    for (std::size_t i = 0; i < p.size(); ++i)
      if (p.IsFixed(i)) EXPECT_EQ(*p.fixed_offsets[i], best.offsets[i]) << "seed " << seed;
    if (best.detail.starts_with("anchored at step ")) ++anchored;
  }
  EXPECT_GT(anchored, 0);
}

TEST(PeakAnchor, BestReachesLoadOnPangu) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::filesystem::path path = shared / "benchmarks/compiler_traces/pangu_2.6B.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not found";
  const Problem p = ParseRecordsCsv(ReadFileBytes(path), path.string());
  const OffsetPlan best = PlanOffsets(p, "best");
  EXPECT_NO_THROW(VerifyOrThrow(p, best));
  // LOAD as the trace's README gives it; every greedy order alone ends 0.76 % above.
  EXPECT_EQ(5'530'099'775u, OffsetsLowerBound(p));
  EXPECT_EQ(5'530'099'775u, best.arena_bytes) << best.detail;
  EXPECT_TRUE(best.detail.starts_with("anchored at step 4933 ")) << best.detail;
}

}  // namespace
}  // namespace memplan
