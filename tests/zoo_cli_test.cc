// The built-in models through the command, as a user runs them.
#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::RunMemplan;

TEST(ZooCli, ListsModelsAndExamples) {
  const auto r = RunMemplan("zoo");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"zoo:mobilenet_v1", "zoo:mobilenet_v2", "zoo:resnet50",
                           "zoo:inception_v3", "zoo:gpt2", "zoo:paper_example"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
}

// The reference "float MobileNets" (docs/testing.md), `tflm` column: 67 tensors over 66 ops, naive
// 28,197,264 B, bound 6,021,120 B, which the best strategy reaches.
TEST(ZooCli, PlansMobileNetV2WithoutAFile) {
  const auto r = RunMemplan("plan zoo:mobilenet_v2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["input"], "zoo:mobilenet_v2");
  EXPECT_EQ(j["tensors"], 67);
  EXPECT_EQ(j["ops"], 66);
  EXPECT_EQ(j["naive_bytes"], 28'197'264);
  EXPECT_EQ(j["lower_bound_bytes"], 6'021'120);
  EXPECT_EQ(j["best"]["bytes"], 6'021'120);
}

// The reference "float MobileNets" (docs/testing.md): the TensorFlow Lite blog's 65 tensors and
// 27,591,112 B.
TEST(ZooCli, IntermediatesOnlyGivesThePaperFigures) {
  const auto r = RunMemplan("plan zoo:mobilenet_v2 --intermediates-only --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"], 65);
  EXPECT_EQ(j["naive_bytes"], 27'591'112);
  EXPECT_EQ(j["lower_bound_bytes"], 6'021'120);
}

TEST(ZooCli, PlanFileNamesTheModelsTensors) {
  const auto out = testing::TempDir() / "plan.json";
  const auto r = RunMemplan("plan zoo:resnet50 --strategy offsets/greedy_by_size --out '" +
                            out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = testing::ReadJsonFile(out);
  bool saw_conv1 = false;
  for (const auto& t : j["tensors"]) {
    if (t["name"] != "conv1_conv") continue;
    saw_conv1 = true;
    EXPECT_EQ(t["size"], 112 * 112 * 64 * 4);
  }
  EXPECT_TRUE(saw_conv1);
}

TEST(ZooCli, UnknownNameIsAnInputError) {
  const auto r = RunMemplan("plan zoo:mobilenet_v9");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("zoo:mobilenet_v9"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mobilenet_v2"), std::string::npos) << r.err;  // lists the known
}

TEST(ZooCli, ShapeBindingsAreRefusedForBuiltInModels) {
  const auto r = RunMemplan("plan zoo:mobilenet_v2 --shape input=1x160x160x3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("zoo:mobilenet_v2: built-in models have fixed shapes"), std::string::npos)
      << r.err;
}

TEST(ZooCli, InspectShowsABuiltInModel) {
  const auto r = RunMemplan("inspect zoo:inception_v3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("zoo:inception_v3: built-in model, 1 subgraph, 125 ops"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("CONV_2D 94"), std::string::npos) << r.out;
  EXPECT_EQ(RunMemplan("inspect zoo:nope").exit_code, 1);
}

}  // namespace
}  // namespace memplan
