// Properties every shared-objects plan must have, on seeded random problems, and the
// verifier's and the strategies' answers to broken plans and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/objects.h"
#include "memplan/textures.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using ::testing::HasSubstr;

Problem Records(std::vector<UsageRecord> records, Bytes alignment = 1) {
  Problem p;
  p.records = std::move(records);
  p.alignment = alignment;
  return p;
}

std::vector<testing::RandomProblemOptions> Shapes() {
  std::vector<testing::RandomProblemOptions> shapes;
  shapes.push_back({});                                          // 50 records, 40 steps
  shapes.push_back({.records = 12, .steps = 6, .max_size = 8});  // many equal sizes
  shapes.push_back({.records = 120, .steps = 30, .max_size = 64, .alignment = 16});
  shapes.push_back({.records = 200, .steps = 150, .max_size = 1 << 20, .zero_fraction = 0.2});
  return shapes;
}

TEST(ObjectsProperties, EveryPlanVerifiesAndSitsBetweenBoundAndNaive) {
  int plans = 0;
  for (const auto& shape : Shapes()) {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      const Problem problem = testing::RandomProblem(seed, shape);
      SCOPED_TRACE(::testing::Message() << "seed " << seed << ", " << problem.size()
                                        << " records, alignment " << problem.alignment);
      const Bytes lower = ObjectsLowerBound(problem);
      const Bytes naive = NaiveBytes(problem);
      EXPECT_LE(OffsetsLowerBound(problem), lower);
      EXPECT_LE(lower, naive);
      Bytes smallest_tflite = naive;
      for (const ObjectStrategy& s : ObjectStrategies()) {
        SCOPED_TRACE(std::string(s.name));
        const ObjectPlan plan = PlanObjects(problem, s.name);  // verifies
        EXPECT_TRUE(FindObjectViolations(problem, plan).empty());
        EXPECT_LE(lower, plan.total_bytes);
        EXPECT_LE(plan.total_bytes, naive);
        if (s.name != "best") smallest_tflite = std::min(smallest_tflite, plan.total_bytes);
        if (s.name == "best") EXPECT_LE(plan.total_bytes, smallest_tflite);
        // Every objects plan is an offsets plan with the same or a smaller arena.
        const OffsetPlan offsets = ObjectsToOffsetPlan(problem, plan);
        EXPECT_LE(offsets.arena_bytes, plan.total_bytes);
        EXPECT_GE(offsets.arena_bytes, OffsetsLowerBound(problem));
        ++plans;
      }
    }
  }
  EXPECT_EQ(plans, 4 * 12 * static_cast<int>(ObjectStrategies().size()));
}

TEST(ObjectsProperties, StrategiesAreDeterministic) {
  const Problem problem = testing::RandomProblem(7, {.records = 150, .steps = 60});
  for (const ObjectStrategy& s : ObjectStrategies()) {
    const ObjectPlan a = PlanObjects(problem, s.name);
    const ObjectPlan b = PlanObjects(problem, s.name);
    EXPECT_EQ(a.object_ids, b.object_ids) << s.name;
    EXPECT_EQ(a.object_sizes, b.object_sizes) << s.name;
  }
}

TEST(ObjectsProperties, GreedyBestIsTheBetterGreedy) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Problem problem = testing::RandomProblem(seed, {.records = 60, .steps = 25});
    const Bytes best = PlanObjects(problem, "greedy_best").total_bytes;
    EXPECT_EQ(best, std::min(PlanObjects(problem, "greedy_by_size").total_bytes,
                             PlanObjects(problem, "greedy_by_breadth").total_bytes));
  }
}

TEST(ObjectsProperties, SweepStrategiesDoNotDependOnInputOrder) {
  // Sweeping strategies sort records by first step before sweeping, so shuffling records
  // that all start at distinct steps changes nothing but the numbering.
  Problem problem;
  for (Step t = 0; t < 40; ++t)
    problem.records.push_back({static_cast<Bytes>(1 + (t * 37) % 23), t, t + (t * 7) % 5});
  Problem reversed = problem;
  std::reverse(reversed.records.begin(), reversed.records.end());
  for (const char* name : {"equality", "greedy_in_order", "min_cost_flow"}) {
    const ObjectPlan a = PlanObjects(problem, name);
    const ObjectPlan b = PlanObjects(reversed, name);
    EXPECT_EQ(a.object_sizes, b.object_sizes) << name;
    for (std::size_t i = 0; i < problem.size(); ++i)
      EXPECT_EQ(a.object_ids[i], b.object_ids[problem.size() - 1 - i]) << name;
  }
}

TEST(ObjectsBounds, PositionalMaximumsOnKnownRecords) {
  // Two steps: {10, 7} and {9, 8, 1}; pm = [10, 8, 1].
  const std::vector<UsageRecord> records = {{10, 0, 0}, {7, 0, 0}, {9, 1, 1}, {8, 1, 1}, {1, 1, 1}};
  EXPECT_EQ(PositionalMaximums(records), (std::vector<Bytes>{10, 8, 1}));
  Problem problem = Records(records);
  EXPECT_EQ(ObjectsLowerBound(problem), 19u);
  problem.alignment = 4;
  EXPECT_EQ(ObjectsLowerBound(problem), 12u + 8u + 4u);
  EXPECT_EQ(PositionalMaximums({}), std::vector<Bytes>{});
}

// The positional maximums straight from their definition: the k-th largest size live at
// a step, the largest over all steps (TaskProfiles lists each step's sizes).
TEST(ObjectsBounds, PositionalMaximumsMatchTheStepByStepDefinition) {
  for (const auto& shape :
       {testing::RandomProblemOptions{.records = 300, .steps = 60},
        testing::RandomProblemOptions{.records = 400, .steps = 500, .max_size = 6},
        testing::RandomProblemOptions{
            .records = 200, .steps = 20, .max_size = 1 << 20, .zero_fraction = 0.3}}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const Problem p = testing::RandomProblem(seed, shape);
      std::vector<Bytes> expected;
      for (const auto& profile : TaskProfiles(p.records)) {
        if (profile.size() > expected.size()) expected.resize(profile.size(), 0);
        for (std::size_t k = 0; k < profile.size(); ++k)
          expected[k] = std::max(expected[k], p.records[profile[k]].size);
      }
      ASSERT_EQ(PositionalMaximums(p.records), expected) << "seed " << seed;
    }
  }
}

TEST(ObjectsBounds, ObjectSizesAreMultiplesOfTheAlignment) {
  const Problem problem = Records({{5, 0, 1}, {3, 2, 3}, {9, 1, 2}}, 8);
  for (const ObjectStrategy& s : ObjectStrategies()) {
    const ObjectPlan plan = PlanObjects(problem, s.name);
    for (Bytes size : plan.object_sizes) EXPECT_EQ(size % 8, 0u) << s.name;
  }
}

// --- verifier --------------------------------------------------------------------------

Problem ThreeRecords() {
  Problem p = Records({{16, 0, 2}, {8, 2, 3}, {32, 4, 5}});
  p.names = {"a", "b", "c"};
  return p;
}

std::string AllMessages(const std::vector<Violation>& v) {
  std::string out;
  for (const Violation& x : v) out += x.message + "\n";
  return out;
}

TEST(ObjectsVerify, AcceptsAValidPlan) {
  const Problem p = ThreeRecords();
  EXPECT_TRUE(FindObjectViolations(p, MakeObjectPlan("x", {0, 1, 0}, {32, 8})).empty());
}

TEST(ObjectsVerify, RejectsConflictingRecordsInOneObjectNamingBoth) {
  const Problem p = ThreeRecords();
  const auto v = FindObjectViolations(p, MakeObjectPlan("x", {0, 0, 1}, {16, 32}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_THAT(v[0].message, HasSubstr("conflict"));
  EXPECT_THAT(v[0].message, HasSubstr("record 0 'a'"));
  EXPECT_THAT(v[0].message, HasSubstr("record 1 'b'"));
}

TEST(ObjectsVerify, FindsAConflictHiddenBehindALongRecord) {
  // a long record covers two later ones; the second conflicts with it only.
  const Problem p = Records({{4, 0, 10}, {4, 0, 0}, {4, 12, 12}, {4, 5, 6}});
  const auto v = FindObjectViolations(p, MakeObjectPlan("x", {0, 1, 0, 0}, {4, 4}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_THAT(v[0].message, HasSubstr("record 0"));
  EXPECT_THAT(v[0].message, HasSubstr("record 3"));
}

TEST(ObjectsVerify, RejectsTooSmallUnknownMiscountedAndUnaligned) {
  const Problem p = ThreeRecords();
  EXPECT_THAT(
      AllMessages(FindObjectViolations(p, MakeObjectPlan("x", {0, 1, 0}, {16, 8}))),
      HasSubstr("too small: record 2 'c' (32 B, steps 4..5) needs 32 B but object 0 has 16 B"));
  EXPECT_THAT(AllMessages(FindObjectViolations(p, MakeObjectPlan("x", {0, 1, 2}, {32, 8}))),
              HasSubstr("unknown object"));
  EXPECT_THAT(AllMessages(FindObjectViolations(p, MakeObjectPlan("x", {0, 1}, {32, 8}))),
              HasSubstr("2 object ids for 3 records"));
  ObjectPlan wrong_total = MakeObjectPlan("x", {0, 1, 0}, {32, 8});
  wrong_total.total_bytes = 39;
  EXPECT_THAT(AllMessages(FindObjectViolations(p, wrong_total)), HasSubstr("claims 39 B"));
  Problem aligned = p;
  aligned.alignment = 16;
  EXPECT_THAT(AllMessages(FindObjectViolations(aligned, MakeObjectPlan("x", {0, 1, 0}, {32, 24}))),
              HasSubstr("unaligned: object 1"));
  EXPECT_THROW(VerifyObjectsOrThrow(p, MakeObjectPlan("x", {0, 0, 1}, {16, 32})), InternalError);
}

TEST(ObjectsVerify, PlanFromIdsSizesObjectsToTheirLargestRecord) {
  const Problem p = ThreeRecords();
  const ObjectPlan plan = ObjectPlanFromIds(p, "x", {5, 2, 5});
  EXPECT_EQ(plan.object_ids, (std::vector<ObjectId>{0, 1, 0}));
  EXPECT_EQ(plan.object_sizes, (std::vector<Bytes>{32, 8}));
  EXPECT_EQ(plan.total_bytes, 40u);
}

// --- bad input -------------------------------------------------------------------------

TEST(ObjectsInput, ClearErrors) {
  Problem p = ThreeRecords();
  EXPECT_THROW(PlanObjects(p, "nope"), UsageError);
  p.fixed_offsets = {std::nullopt, Bytes{0}, std::nullopt};
  try {
    PlanObjects(p, "naive");
    ADD_FAILURE() << "fixed offsets accepted";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("record 1 'b'"));
  }
  const Problem bad = Records({{4, 3, 1}});
  try {
    PlanObjects(bad, "greedy_by_size");
    ADD_FAILURE() << "first > last accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("first step 3 is after last step 1"));
  }
  EXPECT_THROW(PlanObjects(Records({{4, 0, Step{1} << 62}}), "naive"), InputError);
  EXPECT_THROW(LayOutObjects({0, 3}, {4, 4}), InputError);
}

// --- textures --------------------------------------------------------------------------

TextureProblem RandomTextures(std::uint64_t seed, std::size_t rank, TextureKind kind) {
  std::mt19937_64 rng(seed);
  TextureProblem p;
  p.kind = kind;
  for (int i = 0; i < 60; ++i) {
    TextureRecord r;
    for (std::size_t d = 0; d < rank; ++d) r.dims.push_back(1 + rng() % 4);
    r.first = static_cast<Step>(rng() % 30);
    r.last = r.first + static_cast<Step>(rng() % 4);
    p.records.push_back(r);
  }
  return p;
}

TEST(TextureObjects, EveryPlanVerifiesAndNeverBeatsNaiveUpward) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    for (std::size_t rank : {2u, 3u, 4u}) {
      for (TextureKind kind : {TextureKind::kTexture, TextureKind::kShape}) {
        const TextureProblem p = RandomTextures(seed, rank, kind);
        const std::uint64_t naive = PlanTextureObjects(p, "naive").total_elements;
        for (std::string_view name : TextureStrategies(kind)) {
          const TexturePlan plan = PlanTextureObjects(p, name);
          EXPECT_TRUE(FindTextureViolations(p, plan).empty());
          EXPECT_LE(plan.total_elements, naive) << name;
        }
      }
    }
  }
}

TEST(TextureObjects, VerifierAndInputErrors) {
  TextureProblem p;
  p.records = {{{2, 8}, 0, 1}, {{8, 2}, 1, 2}, {{1, 4}, 3, 4}};
  TexturePlan plan{"x", {0, 1, 0}, {{2, 8}, {8, 2}}, 32};
  EXPECT_TRUE(FindTextureViolations(p, plan).empty());
  plan.object_ids = {0, 0, 1};
  plan.object_dims = {{8, 8}, {1, 4}};
  plan.total_elements = 68;
  const std::string conflict = FindTextureViolations(p, plan).at(0).message;
  EXPECT_THAT(conflict, HasSubstr("record 0 '#0' (2x8, steps 0..1)"));
  EXPECT_THAT(conflict, HasSubstr("record 1 '#1' (8x2, steps 1..2)"));
  plan = {"x", {0, 1, 1}, {{2, 8}, {8, 2}}, 32};
  EXPECT_THAT(FindTextureViolations(p, plan).at(0).message, HasSubstr("does not fit object 1"));
  p.kind = TextureKind::kShape;
  plan = {"x", {0, 1, 0}, {{2, 8}, {8, 2}}, 32};
  EXPECT_THAT(FindTextureViolations(p, plan).at(0).message, HasSubstr("wrong shape"));
  EXPECT_THROW(PlanTextureObjects(p, "greedy_in_order"), UsageError);
  p.records.push_back({{1, 2, 3}, 0, 0});
  try {
    PlanTextureObjects(p, "naive");
    ADD_FAILURE() << "mixed ranks accepted";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has 3 dimensions"));
  }
}

}  // namespace
}  // namespace memplan
