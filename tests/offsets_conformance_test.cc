// Runs every offsets expectation in shared/conformance against memplan's strategies.
#include <gtest/gtest.h>

#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

Problem CaseProblem(const nlohmann::json& c) {
  Problem p = testing::ProblemFromJson(c["records"]);
  // TensorFlow Lite Micro leaves unset lifetimes at -1 and plans them as a time value;
  // moving every step by the same amount keeps every conflict, so shift them to >= 0.
  Step lowest = 0;
  for (const UsageRecord& r : p.records) lowest = std::min(lowest, r.first);
  for (UsageRecord& r : p.records) {
    r.first -= lowest;
    r.last -= lowest;
  }
  if (c.contains("alignment")) p.alignment = c["alignment"].get<Bytes>();
  if (c.contains("fixed_offsets")) {
    for (const auto& f : c["fixed_offsets"]) {
      const auto v = f.get<std::int64_t>();
      p.fixed_offsets.push_back(v < 0 ? std::nullopt : std::optional<Bytes>(v));
    }
  }
  return p;
}

bool HasScalarSizes(const nlohmann::json& c) {
  for (const auto& r : c["records"])
    if (!r[0].is_number()) return false;
  return true;
}

// The plan of strategy `name` for a case: "call_order": "as_given" means the records are
// SimpleMemoryArena::Allocate calls made in record order, without ArenaPlanner's sort.
OffsetPlan CasePlan(const nlohmann::json& c, const Problem& problem, const std::string& name) {
  if (c.value("call_order", "") == "as_given") {
    EXPECT_EQ(name, "tflite_cpu") << "call_order as_given is defined for tflite_cpu only";
    OffsetPlan plan = PlanTfliteCpuInCallOrder(problem);
    VerifyOrThrow(problem, plan);
    // The files note that ArenaPlanner's own order gives the same offsets here.
    EXPECT_EQ(PlanOffsets(problem, name).offsets, plan.offsets);
    return plan;
  }
  return PlanOffsets(problem, name);
}

// Checks one case; `subject` is the strategy the file's property-only assertions
// ("constraints") are about. Returns the number of expectations checked.
int CheckCase(const nlohmann::json& c, const std::string& subject) {
  if (!c.contains("records") || !HasScalarSizes(c)) return 0;
  SCOPED_TRACE(c["name"].get<std::string>());
  const Problem problem = CaseProblem(c);
  const auto& expect = c["expect"];
  int checked = 0;
  if (expect.contains("naive")) EXPECT_EQ(NaiveBytes(problem), expect["naive"].get<Bytes>());
  if (expect.contains("lower_bound_offsets"))
    EXPECT_EQ(OffsetsLowerBound(problem), expect["lower_bound_offsets"].get<Bytes>());
  for (const auto& [key, value] : expect.items()) {
    if (!key.starts_with("offsets/")) continue;
    const std::string name = key.substr(8);
    EXPECT_TRUE(FindOffsetStrategy(name)) << "conformance names unknown strategy " << key;
    if (!FindOffsetStrategy(name)) continue;
    SCOPED_TRACE(key);
    const OffsetPlan plan = CasePlan(c, problem, name);
    if (value.contains("offsets"))
      EXPECT_EQ(plan.offsets, value["offsets"].get<std::vector<Bytes>>());
    if (value.contains("arena_bytes"))
      EXPECT_EQ(plan.arena_bytes, value["arena_bytes"].get<Bytes>());
    ++checked;
  }
  if (expect.contains("constraints")) {
    SCOPED_TRACE("constraints on " + subject);
    const auto& constraints = expect["constraints"];
    const OffsetPlan plan = CasePlan(c, problem, subject);  // verified: no overlap
    if (constraints.value("no_overlap", false)) EXPECT_TRUE(FindViolations(problem, plan).empty());
    if (constraints.contains("arena_bytes_less_than"))
      EXPECT_LT(plan.arena_bytes, constraints["arena_bytes_less_than"].get<Bytes>());
    ++checked;
  }
  return checked;
}

void CheckFile(const std::string& file, const std::string& subject) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc = testing::ReadJsonFile(shared / "conformance" / file);
  SCOPED_TRACE(file);
  int checked = 0;
  for (const char* list : {"cases", "allocator_cases"})
    if (doc.contains(list))
      for (const auto& c : doc[list]) checked += CheckCase(c, subject);
  ::testing::Test::RecordProperty("checked", checked);
  EXPECT_GT(checked, 0) << "no offsets expectation was checked in " << file;
}

TEST(OffsetsConformance, TfliteGpuMemoryManagement) {
  CheckFile("tflite_gpu_memory_management.json", "greedy_by_size");
}
TEST(OffsetsConformance, PaperExample) {
  CheckFile("paper_example.json", "greedy_by_size");
}
TEST(OffsetsConformance, TflmGreedyMemoryPlanner) {
  CheckFile("tflm_greedy_memory_planner.json", "tflm_greedy");
}
TEST(OffsetsConformance, TfliteCpuSimpleMemoryArena) {
  CheckFile("tflite_cpu_simple_memory_arena.json", "tflite_cpu");
}

// The reference "peers' results" (docs/testing.md): TestPersonDetectionModel asserts only < 241027;
// the exact plan is its breadth bound.
TEST(OffsetsConformance, TflmPersonDetectionReachesItsBound) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc =
      testing::ReadJsonFile(shared / "conformance" / "tflm_greedy_memory_planner.json");
  for (const auto& c : doc["cases"]) {
    if (c["name"] != "TestPersonDetectionModel") continue;
    const Problem problem = CaseProblem(c);
    EXPECT_EQ(PlanOffsets(problem, "tflm_greedy").arena_bytes, 64512u);
    EXPECT_EQ(OffsetsLowerBound(problem), 64512u);
    return;
  }
  FAIL() << "TestPersonDetectionModel not found";
}

}  // namespace
}  // namespace memplan
