// Runs the built command as a user would and checks its output and exit codes.
#include <gtest/gtest.h>

#include <algorithm>

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

// --dim and --shape are parsed by the command (tools/model_options.cc): a malformed one is
// a usage error naming the flag and what is wrong.
TEST(Cli, MalformedBindingsAreUsageErrors) {
  auto r = RunMemplan("plan zoo:gpt2 --dim tokens");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--dim tokens: expected NAME=VALUE"), std::string::npos) << r.err;
  r = RunMemplan("plan zoo:gpt2 --dim tokens=-4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'-4' is not a size"), std::string::npos) << r.err;
  r = RunMemplan("plan zoo:gpt2 --shape x=1x2x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--shape x=1x2x: a dimension is missing"), std::string::npos) << r.err;
  r = RunMemplan("plan zoo:gpt2 --shape x=1xtwo");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'two' is not a size"), std::string::npos) << r.err;
  r = RunMemplan("plan zoo:gpt2 --shape =4");
  EXPECT_EQ(r.exit_code, 2);
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
    EXPECT_TRUE(row["mode"] == "offsets" || row["mode"] == "objects") << row;
    if (row["mode"] == "offsets" && row["strategy"] == "greedy_by_size") {
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

// What fuzz/records_readers_fuzz.cc found (tests/records_fuzz_regressions_test.cc), as the
// user meets it: an overflowing number terminated memplan; now exit 1 naming the place.
TEST(Cli, OverflowingNumbersExitOne) {
  const auto dir = testing::TempDir();
  auto big = Write(dir, "big.json", "{\"records\": [[16, 0, 1],\n [1e999, 0, 1]]}");
  auto r = RunMemplan("plan '" + big.string() + "' -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("big.json:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("number overflow"), std::string::npos) << r.err;

  auto plan = Write(dir, "plan.json",
                    "{\"mode\": \"offsets\", \"arena_bytes\": 60e21120, \"tensors\": []}");
  r = RunMemplan("verify zoo:paper_example --plan '" + plan.string() + "' -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("plan.json:1:"), std::string::npos) << r.err;

  auto csv = Write(dir, "min.csv", "id,lower,upper,size\na,0,-9223372036854775808,1\n");
  r = RunMemplan("plan '" + csv.string() + "' -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("min.csv:2:3:"), std::string::npos) << r.err;
}

TEST(Cli, BatchOfInputsGivesJsonArray) {
  const auto r = RunMemplan("plan zoo:paper_example zoo:tflite_gpu_complex --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["lower_bound_bytes"], 96);
}

TEST(Cli, ObjectsRowsAndPlanFile) {
  const auto dir = testing::TempDir();
  const auto out = dir / "objects.json";
  auto r = RunMemplan("plan zoo:paper_example --strategy objects --format json --out '" +
                      out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["objects_lower_bound_bytes"], 128);
  EXPECT_EQ(j["best"]["mode"], "objects");
  EXPECT_EQ(j["best"]["bytes"], 128);
  bool saw_gio = false;
  for (const auto& row : j["results"]) {
    EXPECT_EQ(row["mode"], "objects");
    if (row["strategy"] == "greedy_in_order") {
      saw_gio = true;
      EXPECT_EQ(row["bytes"], 130);
      EXPECT_EQ(row["objects"], 4);
      EXPECT_EQ(row["optimal"], false);
      EXPECT_EQ(row["ratio"], 1.0484);  // 130 / 124, the offsets lower bound
    }
  }
  EXPECT_TRUE(saw_gio);
  // The best objects plan (greedy_by_breadth: first of the 128-byte plans).
  const auto plan = testing::ReadJsonFile(out);
  EXPECT_EQ(plan["mode"], "objects");
  EXPECT_EQ(plan["strategy"], "greedy_by_breadth");
  EXPECT_EQ(plan["total_bytes"], 128);
  EXPECT_EQ(plan["objects"], nlohmann::json::parse("[64, 40, 16, 8]"));
  ASSERT_EQ(plan["tensors"].size(), 8u);
  EXPECT_EQ(plan["tensors"][5]["object"], 0);
  EXPECT_EQ(plan["tensors"][5]["size"], 64);

  r = RunMemplan("plan zoo:paper_example --strategy objects/min_cost_flow");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("objects lower bound 128 B"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("min_cost_flow"), std::string::npos) << r.out;
  EXPECT_EQ(RunMemplan("plan zoo:paper_example --strategy objects/nope").exit_code, 2);
}

TEST(Cli, FixedOffsetsLeaveObjectsOut) {
  const auto dir = testing::TempDir();
  const auto in =
      Write(dir, "fixed.json", "{\"records\": [[8, 0, 1], [8, 1, 2]], \"fixed_offsets\": [0, -1]}");
  const auto r = RunMemplan("plan '" + in.string() + "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["objects_skipped"].get<std::string>().find("fixed offsets"), std::string::npos);
  for (const auto& row : j["results"]) EXPECT_EQ(row["mode"], "offsets");
}

TEST(Cli, ZooListsBuiltIns) {
  const auto r = RunMemplan("zoo");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("zoo:paper_example"), std::string::npos);
}

TEST(Cli, ExactDecisionModeOnMiniMallocExample) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string input = (shared / "benchmarks/minimalloc/examples/input.12.csv").string();
  auto r = RunMemplan("plan '" + input + "' --strategy offsets/exact --capacity 12 -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fits"], true);
  EXPECT_EQ(j["arena_bytes"], 12);
  EXPECT_EQ(j["proven_optimal"], true);
  r = RunMemplan("plan '" + input + "' --strategy offsets/exact --capacity 11 -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["fits"], false);
  EXPECT_EQ(j["proven"], true);
  r = RunMemplan("plan '" + input + "' --capacity 12");
  EXPECT_EQ(r.exit_code, 2);
  r = RunMemplan("plan '" + input + "' --strategy offsets/exact --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("optimal (proven)"), std::string::npos) << r.out;
}

// Above 10,000 records a group (all, objects) leaves min_cost_flow out and says so; named,
// it runs. (All records live together, so every strategy is quick here; on a chain of
// 10,001 records min_cost_flow takes minutes.)
TEST(Cli, LargeInputsLeaveTheSlowPeerOutUnlessNamed) {
  const auto dir = testing::TempDir();
  std::string csv = "id,lower,upper,size\n";
  for (int i = 0; i < 10001; ++i) csv += std::to_string(i) + ",0,1,64\n";
  const auto input = testing::Quote(testing::WriteFile(dir, "big.csv", csv));
  auto r = RunMemplan("plan " + input + " -s objects -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const auto& row : j["results"]) EXPECT_NE(row["strategy"], "min_cost_flow");
  ASSERT_EQ(j["left_out"].size(), 1u);
  EXPECT_NE(j["left_out"][0].get<std::string>().find("objects/min_cost_flow left out: 10,001"),
            std::string::npos);
  r = RunMemplan("plan " + input + " -s min_cost_flow -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["results"][0]["strategy"], "min_cost_flow");
  EXPECT_FALSE(j.contains("left_out"));
}

// Above 20,000 records a group still runs every objects strategy but min_cost_flow (left
// out above 10,000): greedy_by_size no longer has quadratic passes on real traces, and
// best's capacity search stays within its memory (docs/scale.md). A chain of records is
// TensorFlow Lite's worst case for greedy_by_size (every choice brings every later record
// nearer, 5 s here), so this runs in the normal build only.
TEST(Cli, LargeInputsRunEveryObjectsStrategyButMinCostFlow) {
  if (testing::kSanitizedBuild)
    GTEST_SKIP() << "a 20,001-record chain takes minutes under the sanitizers";
  const auto dir = testing::TempDir();
  std::string csv = "id,lower,upper,size\n";
  for (int i = 0; i < 20001; ++i)
    csv += std::to_string(i) + "," + std::to_string(i) + "," + std::to_string(i + 1) + ",64\n";
  const auto input = testing::Quote(testing::WriteFile(dir, "chain.csv", csv));
  const auto r = RunMemplan("plan " + input + " -s objects -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> ran, left_out;
  for (const auto& row : j["results"]) ran.push_back(row["strategy"]);
  for (const auto& line : j["left_out"]) left_out.push_back(line);
  EXPECT_EQ(ran,
            (std::vector<std::string>{"naive", "equality", "greedy_in_order", "greedy_by_breadth",
                                      "greedy_by_size", "greedy_best", "best", "exact"}));
  ASSERT_EQ(left_out.size(), 1u);
  EXPECT_TRUE(left_out[0].starts_with("objects/min_cost_flow left out: 20,001 records"))
      << left_out[0];
}

// objects/exact says whether its plan is proven optimal, as offsets/exact does.
TEST(Cli, ObjectsExactReportsItsProof) {
  const auto dir = testing::TempDir();
  const auto input = testing::WriteFile(
      dir, "r.csv", "id,lower,upper,size\n0,0,2,32\n1,1,3,16\n2,2,4,48\n3,3,5,16\n4,0,5,8\n");
  const auto r = RunMemplan("plan " + testing::Quote(input) + " -s objects/exact -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out)["results"][0];
  EXPECT_EQ(j["strategy"], "exact");
  EXPECT_EQ(j["proven_optimal"], true);
  EXPECT_EQ(j["bound_bytes"], j["bytes"]);
  const auto table = RunMemplan("plan " + testing::Quote(input) + " -s objects/exact");
  EXPECT_NE(table.out.find("optimal (proven)"), std::string::npos) << table.out;
}

// --probe-limit fixes each question's budget and --threads the portfolio's threads; the
// answer (a node-limited search stops at the same node on any thread count) is the same.
TEST(Cli, ExactTakesAProbeLimitAndAThreadCount) {
  const auto dir = testing::TempDir();
  std::string csv = "id,lower,upper,size\n";
  for (int i = 0; i < 12; ++i)
    csv += std::to_string(i) + "," + std::to_string(i % 5) + "," +
           std::to_string(i % 5 + 3 + i % 3) + "," + std::to_string(16 * (1 + (i * 7) % 9)) + "\n";
  const auto input = testing::WriteFile(dir, "r.csv", csv);
  const std::string base = "plan " + testing::Quote(input) + " -s offsets/exact -f json";
  auto one = RunMemplan(base + " --threads 1 --probe-limit 0.5");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  auto all = RunMemplan(base);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto j1 = nlohmann::json::parse(one.out), j2 = nlohmann::json::parse(all.out);
  EXPECT_EQ(j1["results"][0]["bytes"], j2["results"][0]["bytes"]);
  EXPECT_EQ(j1["results"][0]["proven_optimal"], true);
  for (const char* bad : {" --threads 0", " --probe-limit -1", " --threads many"}) {
    const auto r = RunMemplan(base + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find(std::string(bad).substr(1, std::string(bad).find(' ', 1) - 1)),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
}  // namespace memplan
