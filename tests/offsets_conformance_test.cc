// Runs every offsets expectation in shared/conformance against memplan's strategies.
#include <gtest/gtest.h>

#include <set>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

Problem CaseProblem(const nlohmann::json& c) {
  Problem p = testing::ProblemFromJson(c["records"]);
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

// Strategy names in the conformance files that memplan does not implement yet.
const std::set<std::string> kPending = {"tflm_greedy", "tflite_cpu", "greedy_in_order",
                                        "greedy_by_breadth", "strip_packing"};

void CheckFile(const std::string& file) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc = testing::ReadJsonFile(shared / "conformance" / file);
  int checked = 0, pending = 0;
  for (const auto& c : doc["cases"]) {
    if (!c.contains("records") || !HasScalarSizes(c)) continue;
    SCOPED_TRACE(file + ": " + c["name"].get<std::string>());
    const Problem problem = CaseProblem(c);
    const auto& expect = c["expect"];
    if (expect.contains("naive")) EXPECT_EQ(NaiveBytes(problem), expect["naive"].get<Bytes>());
    if (expect.contains("lower_bound_offsets"))
      EXPECT_EQ(OffsetsLowerBound(problem), expect["lower_bound_offsets"].get<Bytes>());
    for (const auto& [key, value] : expect.items()) {
      if (!key.starts_with("offsets/")) continue;
      const std::string name = key.substr(8);
      if (!FindOffsetStrategy(name)) {
        EXPECT_TRUE(kPending.count(name)) << "conformance names unknown strategy " << key;
        ++pending;
        continue;
      }
      SCOPED_TRACE(key);
      const OffsetPlan plan = PlanOffsets(problem, name);
      if (value.contains("offsets"))
        EXPECT_EQ(plan.offsets, value["offsets"].get<std::vector<Bytes>>());
      if (value.contains("arena_bytes"))
        EXPECT_EQ(plan.arena_bytes, value["arena_bytes"].get<Bytes>());
      ++checked;
    }
  }
  ::testing::Test::RecordProperty("checked", checked);
  EXPECT_GT(checked + pending, 0) << "no offsets expectation was checked in " << file;
}

TEST(OffsetsConformance, TfliteGpuMemoryManagement) {
  CheckFile("tflite_gpu_memory_management.json");
}
TEST(OffsetsConformance, PaperExample) { CheckFile("paper_example.json"); }
TEST(OffsetsConformance, TflmGreedyMemoryPlanner) { CheckFile("tflm_greedy_memory_planner.json"); }
TEST(OffsetsConformance, TfliteCpuSimpleMemoryArena) {
  CheckFile("tflite_cpu_simple_memory_arena.json");
}

}  // namespace
}  // namespace memplan
