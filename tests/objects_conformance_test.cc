// Runs every shared-objects expectation in shared/conformance against memplan: objects
// strategies (byte sizes and multidimensional sizes), task profiles, positional
// maximums, the objects lower bound and objects_to_offsets.
#include <gtest/gtest.h>

#include "memplan/bounds.h"
#include "memplan/objects.h"
#include "memplan/textures.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

bool HasScalarSizes(const nlohmann::json& c) {
  for (const auto& r : c["records"])
    if (!r[0].is_number()) return false;
  return true;
}

// Checks every objects/..., lower_bound_objects, positional_maximums and task_profiles
// key of one case with byte sizes; returns how many were checked.
int CheckScalarCase(const nlohmann::json& c) {
  const Problem problem = testing::ProblemFromJson(c["records"]);
  const auto& expect = c["expect"];
  int checked = 0;
  if (expect.contains("lower_bound_objects")) {
    EXPECT_EQ(ObjectsLowerBound(problem), expect["lower_bound_objects"].get<Bytes>());
    ++checked;
  }
  if (expect.contains("positional_maximums")) {
    EXPECT_EQ(PositionalMaximums(problem.records),
              expect["positional_maximums"].get<std::vector<Bytes>>());
    ++checked;
  }
  if (expect.contains("task_profiles")) {
    EXPECT_EQ(TaskProfiles(problem.records),
              expect["task_profiles"].get<std::vector<std::vector<std::size_t>>>());
    ++checked;
  }
  for (const auto& [key, value] : expect.items()) {
    if (!key.starts_with("objects/")) continue;
    const std::string name = key.substr(8);
    SCOPED_TRACE(key);
    EXPECT_NE(FindObjectStrategy(name), nullptr) << "conformance names unknown strategy " << key;
    if (!FindObjectStrategy(name)) continue;
    const ObjectPlan plan = PlanObjects(problem, name);
    EXPECT_EQ(plan.object_ids, value["object_ids"].get<std::vector<ObjectId>>());
    EXPECT_EQ(plan.object_sizes, value["object_sizes"].get<std::vector<Bytes>>());
    ++checked;
  }
  return checked;
}

TextureProblem TextureProblemFromJson(const nlohmann::json& c) {
  TextureProblem p;
  const std::string type = c["size_type"].get<std::string>();
  p.kind = type.starts_with("BHWC") ? TextureKind::kShape : TextureKind::kTexture;
  for (const auto& r : c["records"])
    p.records.push_back(
        {r[0].get<std::vector<std::uint64_t>>(), r[1].get<Step>(), r[2].get<Step>()});
  return p;
}

void CheckFile(const std::string& file, int min_checked) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc = testing::ReadJsonFile(shared / "conformance" / file);
  int checked = 0;
  for (const auto& c : doc["cases"]) {
    SCOPED_TRACE(file + ": " + c["name"].get<std::string>());
    if (c.contains("records") && HasScalarSizes(c)) checked += CheckScalarCase(c);
  }
  EXPECT_GE(checked, min_checked) << "too few objects expectations checked in " << file;
}

TEST(ObjectsConformance, TfliteGpuMemoryManagement) {
  CheckFile("tflite_gpu_memory_management.json", 30);
}

TEST(ObjectsConformance, PaperExample) {
  CheckFile("paper_example.json", 10);
}

TEST(ObjectsConformance, TaskProfileCases) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc = testing::ReadJsonFile(shared / "conformance/tflite_gpu_memory_management.json");
  int checked = 0;
  for (const auto& c : doc["task_profile_cases"]["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    checked += CheckScalarCase(c);
  }
  EXPECT_EQ(checked, 8);
}

TEST(ObjectsConformance, ObjectsToOffsetsCases) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc = testing::ReadJsonFile(shared / "conformance/tflite_gpu_memory_management.json");
  int checked = 0;
  for (const auto& c : doc["objects_to_offsets_cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const ObjectsLayout layout = LayOutObjects(c["object_ids"].get<std::vector<ObjectId>>(),
                                               c["object_sizes"].get<std::vector<Bytes>>());
    EXPECT_EQ(layout.offsets, c["expect"]["offsets"].get<std::vector<Bytes>>());
    if (c["expect"].contains("arena_bytes"))
      EXPECT_EQ(layout.total_bytes, c["expect"]["arena_bytes"].get<Bytes>());
    ++checked;
  }
  EXPECT_EQ(checked, 5);
}

TEST(ObjectsConformance, MultidimensionalCases) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc = testing::ReadJsonFile(shared / "conformance/tflite_gpu_memory_management.json");
  int checked = 0;
  for (const auto& c : doc["multidimensional_cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const TextureProblem problem = TextureProblemFromJson(c);
    for (const auto& [key, value] : c["expect"].items()) {
      SCOPED_TRACE(key);
      ASSERT_TRUE(key.starts_with("objects/"));
      const TexturePlan plan = PlanTextureObjects(problem, key.substr(8));
      EXPECT_EQ(plan.object_ids, value["object_ids"].get<std::vector<std::size_t>>());
      EXPECT_EQ(plan.object_dims,
                value["object_sizes"].get<std::vector<std::vector<std::uint64_t>>>());
      ++checked;
    }
  }
  EXPECT_EQ(checked, 8);
}

}  // namespace
}  // namespace memplan
