// The exact minimum-total search (src/objects/min_total_search.h), and with it the proof
// that objects/best is optimal on the shared models where it stays above the objects
// lower bound: the search, bounded by best's total, finds no smaller plan.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>

#include "memplan/bounds.h"
#include "memplan/objects.h"
#include "memplan/workload.h"
#include "src/objects/min_total_search.h"
#include "src/objects/sweep.h"
#include "tests/model_bindings.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using objects::AlignedRecords;
using objects::SearchMinimumTotal;

bool Conflict(const UsageRecord& a, const UsageRecord& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Every partition of the records into conflict-free objects, by brute force.
Bytes BruteForceMinimum(const std::vector<UsageRecord>& records) {
  Bytes best = ~Bytes{0};
  std::vector<std::vector<std::size_t>> groups;
  std::function<void(std::size_t)> go = [&](std::size_t i) {
    if (i == records.size()) {
      Bytes total = 0;
      for (const auto& g : groups) {
        Bytes size = 0;
        for (std::size_t j : g) size = std::max(size, records[j].size);
        total += size;
      }
      best = std::min(best, total);
      return;
    }
    for (std::size_t k = 0; k < groups.size(); ++k) {  // by index: go() grows groups
      bool ok = true;
      for (std::size_t j : groups[k]) ok &= !Conflict(records[i], records[j]);
      if (!ok) continue;
      groups[k].push_back(i);
      go(i + 1);
      groups[k].pop_back();
    }
    groups.push_back({i});
    go(i + 1);
    groups.pop_back();
  };
  go(0);
  return best;
}

TEST(ObjectsMinimumTotal, MatchesBruteForceOnSmallRandomProblems) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const Problem problem = testing::RandomProblem(
        seed, {.records = 2 + seed % 8, .steps = 8, .max_size = 10, .zero_fraction = 0.0});
    const auto result = SearchMinimumTotal(problem.records, ~Bytes{0}, 1'000'000);
    ASSERT_TRUE(result.complete) << "seed " << seed;
    EXPECT_EQ(result.total, BruteForceMinimum(problem.records)) << "seed " << seed;
    // The plan it returns is a real one of that total.
    const ObjectPlan plan = ObjectPlanFromIds(problem, "search", result.object_ids);
    EXPECT_TRUE(FindObjectViolations(problem, plan).empty()) << "seed " << seed;
    EXPECT_EQ(plan.total_bytes, result.total) << "seed " << seed;
  }
}

// objects/exact: the brute-force minimum on small problems, proven, and a verified plan.
TEST(ObjectsExact, FindsAndProvesTheBruteForceMinimum) {
  int below_best = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const Problem problem = testing::RandomProblem(
        seed, {.records = 3 + seed % 7, .steps = 6, .max_size = 10, .alignment = 1 + seed % 2});
    const ObjectsExactResult r = SolveObjectsExact(problem);
    std::vector<UsageRecord> aligned = problem.records;
    for (UsageRecord& u : aligned) u.size = ObjectBytes(problem, &u - aligned.data());
    EXPECT_EQ(r.plan.total_bytes, BruteForceMinimum(aligned)) << "seed " << seed;
    EXPECT_TRUE(r.proven_optimal) << "seed " << seed;
    EXPECT_EQ(r.bound_bytes, r.plan.total_bytes) << "seed " << seed;
    EXPECT_TRUE(FindObjectViolations(problem, r.plan).empty()) << "seed " << seed;
    EXPECT_EQ(PlanObjects(problem, "exact").total_bytes, r.plan.total_bytes);
    below_best += r.plan.total_bytes < PlanObjects(problem, "best").total_bytes;
  }
  std::cout << "objects/exact below best on " << below_best << " of 120\n";
}

// Where the search runs out of nodes, the result says so instead of a proof.
TEST(ObjectsExact, SaysWhyOptimalityStaysOpen) {
  const Problem problem = testing::RandomProblem(11, {.records = 8, .steps = 6, .max_size = 10});
  const ObjectPlan naive = PlanObjects(problem, "naive");
  ASSERT_GT(naive.total_bytes, ObjectsLowerBound(problem));
  const ObjectsExactResult open = SolveObjectsExact(problem, 1, &naive);
  EXPECT_FALSE(open.proven_optimal);
  EXPECT_NE(open.open_reason.find("budget of 1 nodes"), std::string::npos) << open.open_reason;
  const ObjectsExactResult proven = SolveObjectsExact(problem, kObjectsExactNodeLimit, &naive);
  EXPECT_TRUE(proven.proven_optimal);
  EXPECT_TRUE(proven.open_reason.empty());
}

// Given a plan to start from (the command passes best's), exact searches below it.
TEST(ObjectsExact, StartsFromTheCallersPlan) {
  const Problem problem = testing::RandomProblem(11, {.records = 8, .steps = 6, .max_size = 10});
  const ObjectPlan naive = PlanObjects(problem, "naive");
  const ObjectsExactResult r = SolveObjectsExact(problem, kObjectsExactNodeLimit, &naive);
  EXPECT_TRUE(r.proven_optimal);
  EXPECT_EQ(r.plan.total_bytes, SolveObjectsExact(problem).plan.total_bytes);
  EXPECT_LT(r.plan.total_bytes, naive.total_bytes);
}

// Out of budget, exact keeps best's plan and the objects lower bound as its bound.
TEST(ObjectsExact, OutOfBudgetReportsTheGap) {
  const Problem problem =
      testing::RandomProblem(7, {.records = 120, .steps = 60, .max_size = 1000});
  const ObjectsExactResult r = SolveObjectsExact(problem, 1);
  EXPECT_LE(r.plan.total_bytes, PlanObjects(problem, "best").total_bytes);
  EXPECT_GE(r.bound_bytes, ObjectsLowerBound(problem));
  EXPECT_LE(r.bound_bytes, r.plan.total_bytes);
  EXPECT_EQ(r.proven_optimal, r.bound_bytes == r.plan.total_bytes);
}

TEST(ObjectsMinimumTotal, ReportsNothingBelowAnOptimalUpperBound) {
  const std::vector<UsageRecord> records = {{4, 0, 1}, {2, 1, 2}, {4, 2, 3}};
  const auto result = SearchMinimumTotal(records, 6, 1000);  // 4 + 2 is the optimum
  EXPECT_TRUE(result.complete);
  EXPECT_TRUE(result.object_ids.empty());
  EXPECT_EQ(result.total, 6u);
}

// Proves best optimal: no plan totals less than best's (the search runs to the end).
void ExpectBestProvenOptimal(const std::filesystem::path& path, const LoadOptions& options,
                             std::uint64_t max_nodes = 2'000'000) {
  const Problem problem = LoadWorkload(path.string(), options).problem;
  const ObjectPlan best = PlanObjects(problem, "best");
  const auto result = SearchMinimumTotal(AlignedRecords(problem), best.total_bytes, max_nodes);
  EXPECT_TRUE(result.complete) << path << ": search unfinished after " << result.nodes;
  EXPECT_TRUE(result.object_ids.empty())
      << path << ": a plan of " << result.total << " < " << best.total_bytes;
  std::cout << path.filename().string() << (options.intermediates_only ? " (paper)" : " (tflm)")
            << ": lower bound " << ObjectsLowerBound(problem) << ", best " << best.total_bytes
            << ", optimal (proven, " << result.nodes << " nodes)\n";
}

// Where best stays above the objects lower bound (deeplabv3_mnv2_513_pascal_quant,
// mobilenet_v1_0.25_128_quant, mobilenet_v2_1.0_224_quant, ...) nothing simpler shows it
// cannot do better; elsewhere the search stops at its first node.
TEST(ObjectsOptimality, BestIsProvenOptimalOnEverySharedModel) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const auto& entry : std::filesystem::directory_iterator(shared / "models")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".tflite" && ext != ".onnx") continue;
    // Open: best (already below every TensorFlow Lite strategy) stays above the bound,
    // and the search does not finish in 20 million nodes on its 300-odd records.
    if (entry.path().filename() == "blazepose_landmark_lite_256_fp16w.tflite") continue;
    LoadOptions options = testing::SharedModelOptions(entry.path().filename().string());
    for (bool intermediates_only : {false, true}) {
      options.intermediates_only = intermediates_only;
      ExpectBestProvenOptimal(entry.path(), options);
      // objects/exact proves the same within its own budget.
      const Problem problem = LoadWorkload(entry.path().string(), options).problem;
      const ObjectsExactResult exact = SolveObjectsExact(problem);
      EXPECT_TRUE(exact.proven_optimal) << entry.path();
      EXPECT_EQ(exact.plan.total_bytes, PlanObjects(problem, "best").total_bytes) << entry.path();
    }
  }
}

}  // namespace
}  // namespace memplan
