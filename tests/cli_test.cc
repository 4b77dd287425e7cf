// Runs the built command as a user would and checks its output and exit codes.
#include <gtest/gtest.h>

#include <fstream>

#include "memplan/records_io.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::RunMemplan;

std::filesystem::path Write(const std::filesystem::path& dir, const std::string& name,
                            const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

TEST(Cli, VersionAndHelp) {
  auto r = RunMemplan("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("memplan "), std::string::npos);
  r = RunMemplan("plan --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--strategy"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(RunMemplan("").exit_code, 2);
  EXPECT_EQ(RunMemplan("frobnicate").exit_code, 2);
  EXPECT_EQ(RunMemplan("plan zoo:paper_example --strategy offsets/nope").exit_code, 2);
  EXPECT_EQ(RunMemplan("plan zoo:paper_example --format xml").exit_code, 2);
}

TEST(Cli, PlanJsonOnBuiltInExample) {
  const auto r = RunMemplan("plan zoo:paper_example --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"], 8);
  EXPECT_EQ(j["naive_bytes"], 234);
  EXPECT_EQ(j["lower_bound_bytes"], 124);
  EXPECT_EQ(j["best"]["bytes"], 124);
  bool saw_gbs = false;
  for (const auto& row : j["results"]) {
    EXPECT_EQ(row["mode"], "offsets");
    if (row["strategy"] == "greedy_by_size") {
      saw_gbs = true;
      EXPECT_EQ(row["bytes"], 124);
      EXPECT_EQ(row["optimal"], true);
      EXPECT_EQ(row["ratio"], 1.0);
    }
  }
  EXPECT_TRUE(saw_gbs);
}

TEST(Cli, PlanTableMarksBestAndOptimal) {
  const auto r = RunMemplan("plan zoo:paper_example");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lower bound 124 B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("optimal"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("* "), std::string::npos) << r.out;
}

TEST(Cli, OutWritesTheVerifiedPlan) {
  const auto dir = testing::TempDir();
  const auto out = dir / "plan.json";
  const auto r = RunMemplan("plan zoo:paper_example --strategy offsets/greedy_by_size --out '" +
                            out.string() + "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = testing::ReadJsonFile(out);
  EXPECT_EQ(j["mode"], "offsets");
  EXPECT_EQ(j["strategy"], "greedy_by_size");
  EXPECT_EQ(j["arena_bytes"], 124);
  ASSERT_EQ(j["tensors"].size(), 8u);
  EXPECT_EQ(j["tensors"][5]["offset"], 0);
  EXPECT_EQ(j["tensors"][1]["offset"], 32);
  EXPECT_EQ(j["tensors"][1]["first"], 1);
}

TEST(Cli, RecordsFilesAndBadInputExitOne) {
  const auto dir = testing::TempDir();
  auto good = Write(dir, "good.csv", "id,lower,upper,size\na,0,2,8\nb,1,3,8\nc,2,4,8\n");
  auto r = RunMemplan("plan '" + good.string() + "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["lower_bound_bytes"], 16);

  auto bad = Write(dir, "bad.json", "{\"records\": [[1, 2,, 3]]}");
  r = RunMemplan("plan '" + bad.string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.json:1:"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  r = RunMemplan("plan '" + (dir / "missing.json").string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos);

  r = RunMemplan("plan zoo:nope");
  EXPECT_EQ(r.exit_code, 1);
}

TEST(Cli, BatchOfInputsGivesJsonArray) {
  const auto r = RunMemplan("plan zoo:paper_example zoo:tflite_gpu_complex --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["lower_bound_bytes"], 96);
}

TEST(Cli, ZooListsBuiltIns) {
  const auto r = RunMemplan("zoo");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("zoo:paper_example"), std::string::npos);
}

}  // namespace
}  // namespace memplan
