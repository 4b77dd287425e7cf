// What every subcommand owes a user: batches (several inputs or a folder), a bad input
// that does not stop the others, --quiet, --help, --version, one-line errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

#include "memplan/objects.h"
#include "memplan/offsets.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using ::testing::HasSubstr;
using testing::Quote;
using testing::RunMemplan;

void Write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// a.json, b.csv and a file memplan does not read.
std::filesystem::path RecordsFolder() {
  const auto dir = testing::TempDir();
  Write(dir / "b.csv", "id,lower,upper,size\na,0,2,8\nb,1,3,8\nc,2,4,8\n");
  Write(dir / "a.json", "{\"records\": [[32, 0, 1], [16, 1, 2], [32, 2, 3]]}");
  Write(dir / "notes.txt", "not an input");
  return dir;
}

TEST(CliBatch, AFolderIsEveryInputInsideSortedByName) {
  const auto dir = RecordsFolder();
  const auto r = RunMemplan("plan " + Quote(dir) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // not a terminal: no progress
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["input"], (dir / "a.json").string());
  EXPECT_EQ(j[0]["lower_bound_bytes"], 48);
  EXPECT_EQ(j[1]["input"], (dir / "b.csv").string());
  EXPECT_EQ(j[1]["lower_bound_bytes"], 16);
}

TEST(CliBatch, AFolderOfOneIsStillAnArray) {
  const auto dir = testing::TempDir();
  Write(dir / "only.csv", "id,lower,upper,size\na,0,2,8\n");
  auto r = RunMemplan("plan " + Quote(dir) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  EXPECT_EQ(j.size(), 1u);
  // The file itself: one object, as before.
  r = RunMemplan("plan " + Quote(dir / "only.csv") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out).is_object());
}

TEST(CliBatch, ABadInputIsReportedAndTheOthersStillPlanned) {
  const auto dir = RecordsFolder();
  Write(dir / "c_bad.json", "{\"records\": [[1, 2,, 3]]}");
  auto r = RunMemplan("plan " + Quote(dir) + " --format json");
  EXPECT_EQ(r.exit_code, 1);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[1]["lower_bound_bytes"], 16);
  EXPECT_EQ(j[2]["input"], (dir / "c_bad.json").string());
  EXPECT_THAT(j[2]["error"].get<std::string>(), HasSubstr("c_bad.json:1:"));
  // stderr: the failure naming the file, then the count; one line each.
  EXPECT_THAT(r.err, HasSubstr("c_bad.json:1:"));
  EXPECT_THAT(r.err, HasSubstr("memplan: 1 of 3 inputs failed\n"));
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;

  // The table: one block per input, then a summary with a row per input.
  r = RunMemplan("plan " + Quote(dir) + " zoo:paper_example");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("batch: 4 inputs, 3 planned, 1 failed\n"));
  EXPECT_THAT(r.out, HasSubstr("failed (see stderr)"));
  EXPECT_THAT(r.out, HasSubstr("zoo:paper_example"));

  // One input alone fails the command as before.
  r = RunMemplan("plan " + Quote(dir / "c_bad.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(CliBatch, DecisionModeGivesAnArrayToo) {
  const auto r = RunMemplan(
      "plan zoo:paper_example zoo:tflite_gpu_complex --strategy offsets/exact --capacity 124 "
      "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["fits"], true);
  EXPECT_EQ(j[1]["input"], "zoo:tflite_gpu_complex");
}

// A flag that does not apply to one input (--inplace on records) fails that input only.
TEST(CliBatch, AFlagThatDoesNotFitOneInputFailsThatInputOnly) {
  const auto r = RunMemplan("plan zoo:mobilenet_v2 zoo:paper_example --inplace=tflm --format json");
  EXPECT_EQ(r.exit_code, 2);
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_TRUE(j[0].contains("inplace_lower_bound_bytes"));
  EXPECT_THAT(j[1]["error"].get<std::string>(), HasSubstr("need a model"));
  EXPECT_THAT(r.err, HasSubstr("memplan: 1 of 2 inputs failed"));
}

TEST(CliBatch, FolderErrors) {
  const auto empty = testing::TempDir();
  auto r = RunMemplan("plan " + Quote(empty));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no .tflite, .onnx, .json or .csv file in this folder"));
  // --out writes one plan.
  r = RunMemplan("plan " + Quote(RecordsFolder()) + " --out " + Quote(empty / "p.json"));
  EXPECT_EQ(r.exit_code, 2);
}

// Runs memplan ARGS with stderr on a pseudo-terminal (util-linux `script`), stdout to a
// file in `dir`; returns what the terminal showed, or nullopt without `script`.
std::optional<std::string> OnATerminal(const std::string& args, const std::filesystem::path& dir) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) return std::nullopt;
  const auto typescript = dir / "typescript";
  // Progress from the first item on, however fast the work has become.
  const std::string inner = "MEMPLAN_PROGRESS_AFTER_MS=0 " + std::string(MEMPLAN_BINARY) + " " +
                            args + " >" + (dir / "stdout").string();
  const std::string command =
      "script -qec \"" + inner + "\" '" + typescript.string() + "' >/dev/null 2>&1 </dev/null";
  if (std::system(command.c_str()) == -1) return std::nullopt;
  std::ifstream in(typescript);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A line per input of a batch on a terminal (shown from the start: see OnATerminal).
TEST(CliEverywhere, ABatchShowsALinePerInputOnATerminal) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = testing::TempDir() / "inputs";
  std::filesystem::create_directories(dir);
  for (const char* name : {"A.1048576.csv", "B.1048576.csv", "C.1048576.csv"})
    std::filesystem::copy_file(shared / "benchmarks" / "minimalloc" / "challenging" / name,
                               dir / name);
  const std::string args =
      "plan " + dir.string() + " --strategy offsets/exact --time-limit 0.6 --format csv";
  const auto shown = OnATerminal(args, dir.parent_path());
  if (!shown) GTEST_SKIP() << "no `script` to make a terminal";
  EXPECT_THAT(*shown, HasSubstr("[1/3] " + (dir / "A.1048576.csv").string()));
  EXPECT_THAT(*shown, HasSubstr("[3/3] " + (dir / "C.1048576.csv").string()));
  const auto quiet = OnATerminal(args + " --quiet", dir.parent_path());
  ASSERT_TRUE(quiet);
  EXPECT_EQ(quiet->find("[1/3]"), std::string::npos) << *quiet;
}

TEST(CliEverywhere, QuietIsAcceptedWhereWorkCanTakeLong) {
  const auto dir = testing::TempDir();
  const auto plan = dir / "plan.json";
  auto r =
      RunMemplan("plan zoo:paper_example --quiet --strategy greedy_by_size --out " + Quote(plan));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RunMemplan("show zoo:paper_example --quiet").exit_code, 0);
  EXPECT_EQ(RunMemplan("verify zoo:paper_example --quiet --plan " + Quote(plan)).exit_code, 0);
  EXPECT_EQ(RunMemplan("inspect zoo:mobilenet_v2 -q").exit_code, 0);
  r = RunMemplan("run zoo:mobilenet_v2 --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(CliEverywhere, HelpVersionAndOneLineErrors) {
  auto r = RunMemplan("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* cmd : {"plan", "show", "verify", "run", "inspect", "rules", "zoo"}) {
    EXPECT_THAT(r.out, HasSubstr(cmd));
    const auto help = RunMemplan(std::string(cmd) + " --help");
    EXPECT_EQ(help.exit_code, 0) << cmd;
    EXPECT_THAT(help.out, HasSubstr("Usage")) << cmd;
  }
  r = RunMemplan("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("memplan "));
  for (const char* args : {"", "frobnicate", "plan", "plan zoo:paper_example --format xml",
                           "run zoo:mobilenet_v2 --inplace=most", "show a b"}) {
    r = RunMemplan(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("memplan: ")) << args;
  }
  r = RunMemplan("plan");
  EXPECT_THAT(r.err, HasSubstr("see memplan plan --help"));
}

// show's default picture is `best`, and --html without strategies leaves out the exact
// offsets solver, which may take its whole time budget; every objects strategy is drawn
// (objects/exact has a fixed node budget, not a time limit).
TEST(CliEverywhere, ShowDoesNotWaitOnTheExactSolverUnlessAsked) {
  const auto dir = testing::TempDir();
  const auto html = dir / "all.html";
  const auto r = RunMemplan("show zoo:paper_example --html " + Quote(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t offsets = 0;
  for (const OffsetStrategy& s : OffsetStrategies()) offsets += s.name != "exact" ? 1 : 0;
  const std::size_t plans = offsets + ObjectStrategies().size();
  EXPECT_THAT(r.out, HasSubstr("(" + std::to_string(plans) + " plans)"));
  EXPECT_THAT(RunMemplan("show zoo:paper_example").out, HasSubstr("offsets/best"));
}

}  // namespace
}  // namespace memplan
