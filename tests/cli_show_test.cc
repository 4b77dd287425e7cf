// `memplan show` and `memplan verify` as a user runs them.
#include <gtest/gtest.h>

#include <fstream>

#include "memplan/records_io.h"
#include "tests/test_support.h"
#include "tests/xml_check.h"

namespace memplan {
namespace {

using testing::Quote;
using testing::RunMemplan;

std::filesystem::path Write(const std::filesystem::path& dir, const std::string& name,
                            const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

std::size_t CountTensorRects(const testing::XmlElement& root) {
  std::size_t n = 0;
  for (const auto* rect : root.FindAll("rect"))
    if (rect->attributes.count("class") && rect->attributes.at("class").starts_with("tensor")) ++n;
  return n;
}

// TestGreedyMedium of TFLM's greedy planner; the expected text is the reference "TFLM
// PrintMemoryPlan" (docs/testing.md).
constexpr const char* kMedium = R"({"records": [[10,0,1],[20,1,2],[30,2,3],[40,3,4],[50,0,1]]})";
constexpr const char* kMediumAscii =
    "0 (id=0): size=10, offset=50, first_used=0 last_used=1\n"
    "1 (id=1): size=20, offset=70, first_used=1 last_used=2\n"
    "2 (id=2): size=30, offset=40, first_used=2 last_used=3\n"
    "3 (id=3): size=40, offset=0, first_used=3 last_used=4\n"
    "4 (id=4): size=50, offset=0, first_used=0 last_used=1\n"
    "   0: 44444444444444444444444444444444444444444444000000000........................... (1k)\n"
    "   1: 44444444444444444444444444444444444444444444000000000.........111111111111111111 (1k)\n"
    "   2: ...................................222222222222222222222222222111111111111111111 (1k)\n"
    "   3: 33333333333333333333333333333333333222222222222222222222222222.................. (1k)\n"
    "   4: 33333333333333333333333333333333333............................................. (1k)\n";

TEST(CliShow, AsciiIsTflmPrintMemoryPlan) {
  const auto dir = testing::TempDir();
  const auto in = Write(dir, "medium.json", kMedium);
  // greedy_by_size places TestGreedyMedium exactly as TFLM's greedy planner does.
  const auto r = RunMemplan("show " + Quote(in) + " --ascii --strategy offsets/greedy_by_size");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kMediumAscii);
}

TEST(CliShow, DefaultPrintsSummaryAndMap) {
  const auto r = RunMemplan("show zoo:paper_example");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("zoo:paper_example: 8 tensors, 9 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("arena 124 B, lower bound 124 B (× 1.000, optimal), naive 234 B"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("5 (id=5): size=64, offset=0, first_used=5 last_used=7\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("   8: "), std::string::npos) << r.out;
}

TEST(CliShow, SvgIsWellFormedWithOneRectPerNonEmptyTensor) {
  const auto dir = testing::TempDir();
  const auto in = Write(dir, "in.json",
                        R"({"records": [[32,0,1],[0,1,1],[16,1,2],[8,2,3]],
                            "names": ["a&b", "<empty>", "t\"2", "t3"]})");
  const auto svg = dir / "map.svg";
  const auto r = RunMemplan("show " + Quote(in) + " --svg " + Quote(svg));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFileBytes(svg);
  const auto parsed = testing::ParseXml(text);
  ASSERT_TRUE(parsed.root) << parsed.error;
  EXPECT_EQ(CountTensorRects(*parsed.root), 3u);
  EXPECT_NE(text.find("a&amp;b"), std::string::npos);
  // No temporary file is left beside the output.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);
  // xmllint (scripts/setup installs libxml2-utils) agrees when it is there.
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0)
    EXPECT_EQ(std::system(("xmllint --noout " + Quote(svg) + " 2>/dev/null").c_str()), 0);
}

TEST(CliShow, SvgOfLargeRandomProblems) {
  const auto dir = testing::TempDir();
  for (const std::size_t n : {300u, 5000u}) {
    testing::RandomProblemOptions o;
    o.records = n;
    o.steps = static_cast<Step>(n / 3);
    o.max_size = 1 << 20;
    const Problem p = testing::RandomProblem(n, o);
    std::string records;
    std::size_t non_empty = 0;
    for (const UsageRecord& rec : p.records) {
      records += (records.empty() ? "" : ",") + std::string("[") + std::to_string(rec.size) + "," +
                 std::to_string(rec.first) + "," + std::to_string(rec.last) + "]";
      non_empty += rec.size > 0;
    }
    const auto in =
        Write(dir, "r" + std::to_string(n) + ".json", "{\"records\": [" + records + "]}");
    const auto svg = dir / ("r" + std::to_string(n) + ".svg");
    const auto r = RunMemplan("show " + Quote(in) + " --svg " + Quote(svg));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto parsed = testing::ParseXml(ReadFileBytes(svg));
    ASSERT_TRUE(parsed.root) << parsed.error;
    EXPECT_EQ(CountTensorRects(*parsed.root), non_empty) << n;
  }
}

TEST(CliShow, HtmlEmbedsEveryStrategyByDefault) {
  const auto dir = testing::TempDir();
  const auto html = dir / "map.html";
  const auto r = RunMemplan("show zoo:paper_example --html " + Quote(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFileBytes(html);
  EXPECT_TRUE(text.starts_with("<!DOCTYPE html>"));
  for (const char* s : {"offsets/naive", "offsets/greedy_by_size", "objects/greedy_by_size",
                        "\"t5\"", "id=\"search\"", "<script>"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  // Every embedded plan is in the data for the tooltips (offsets of greedy_by_size).
  EXPECT_NE(text.find("[0,32,64,100,116,0,104,64]"), std::string::npos);
}

TEST(CliShow, HtmlWithOneStrategy) {
  const auto dir = testing::TempDir();
  const auto html = dir / "one.html";
  const auto r =
      RunMemplan("show zoo:paper_example --strategy offsets/naive --html " + Quote(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFileBytes(html);
  EXPECT_EQ(text.find("offsets/greedy_by_size"), std::string::npos);
  EXPECT_NE(text.find("offsets/naive"), std::string::npos);
}

TEST(CliShow, ObjectsPlanAsLanes) {
  const auto dir = testing::TempDir();
  const auto svg = dir / "objects.svg";
  const auto r =
      RunMemplan("show zoo:paper_example --strategy objects/greedy_by_size --svg " + Quote(svg));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("objects/greedy_by_size, 128 B"), std::string::npos) << r.out;
  const std::string text = ReadFileBytes(svg);
  const auto parsed = testing::ParseXml(text);
  ASSERT_TRUE(parsed.root) << parsed.error;
  EXPECT_EQ(CountTensorRects(*parsed.root), 8u);
  // greedy_by_size needs 4 objects on the paper's example (128 B).
  EXPECT_NE(text.find("shared objects (4, one lane each)"), std::string::npos);
  // Without a picture: the summary and the objects laid out back to back as TFLM's map.
  const auto summary = RunMemplan("show zoo:paper_example --strategy objects/greedy_by_size");
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("objects/greedy_by_size: 4 shared objects, 128 B in all"),
            std::string::npos)
      << summary.out;
  EXPECT_EQ(RunMemplan("show zoo:paper_example --strategy objects/nope").exit_code, 2);
}

TEST(CliShow, HtmlOfAModelNamesItsOps) {
  const auto dir = testing::TempDir();
  const auto html = dir / "model.html";
  const auto r = RunMemplan("show zoo:mobilenet_v2 --html " + Quote(html));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFileBytes(html);
  for (const char* s :
       {"\"steps\":[[\"inputs\",", "[\"CONV_2D\",\"#0 CONV_2D 'MobilenetV2/Conv'\"]",
        "class=\"op\"", ">DEPTHWISE_CONV_2D<", "href=\"#plan=objects/greedy_by_size\"",
        "shared objects ("})
    EXPECT_NE(text.find(s), std::string::npos) << s;
}

TEST(CliShow, BadCallsAndPaths) {
  const auto dir = testing::TempDir();
  EXPECT_EQ(RunMemplan("show zoo:paper_example --strategy offsets/nope").exit_code, 2);
  EXPECT_EQ(RunMemplan("show").exit_code, 2);
  EXPECT_EQ(RunMemplan("show zoo:nope").exit_code, 1);
  const auto r = RunMemplan("show zoo:paper_example --svg " + Quote(dir / "missing" / "m.svg"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("m.svg"), std::string::npos) << r.err;
  EXPECT_EQ(RunMemplan("show zoo:paper_example --html " + Quote(dir)).exit_code, 1);
}

TEST(CliShow, RewritesAnExistingFileWhole) {
  const auto dir = testing::TempDir();
  const auto svg = Write(dir, "map.svg", std::string(1 << 20, 'x'));
  ASSERT_EQ(RunMemplan("show zoo:paper_example --svg " + Quote(svg)).exit_code, 0);
  const std::string text = ReadFileBytes(svg);
  EXPECT_TRUE(testing::ParseXml(text).root);
  EXPECT_EQ(text.find('x' + std::string(20, 'x')), std::string::npos);
}

TEST(CliVerify, AcceptsWhatPlanWrites) {
  const auto dir = testing::TempDir();
  const auto plan = dir / "plan.json";
  ASSERT_EQ(RunMemplan("plan zoo:paper_example --out " + Quote(plan)).exit_code, 0);
  const auto r = RunMemplan("verify zoo:paper_example --plan " + Quote(plan));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("OK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("arena 124 B"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;

  // Aligned plans verify against the alignment they were made with.
  const auto aligned = dir / "aligned.json";
  ASSERT_EQ(RunMemplan("plan zoo:paper_example --align 16 --out " + Quote(aligned)).exit_code, 0);
  EXPECT_EQ(RunMemplan("verify zoo:paper_example --plan " + Quote(aligned)).exit_code, 0);
  EXPECT_EQ(RunMemplan("verify zoo:paper_example --align 64 --plan " + Quote(aligned)).exit_code,
            1);
}

TEST(CliVerify, RejectsAnOverlapNamingBothTensors) {
  const auto dir = testing::TempDir();
  const auto plan = dir / "plan.json";
  ASSERT_EQ(
      RunMemplan("plan zoo:paper_example --strategy offsets/greedy_by_size --out " + Quote(plan))
          .exit_code,
      0);
  std::string text = ReadFileBytes(plan);
  // t2 (steps 2..5) moves from 64 down onto t1 (32..60, steps 1..4).
  const std::string from = "\"offset\": 64";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"offset\": 40");
  const auto broken = Write(dir, "broken.json", text);
  const auto r = RunMemplan("verify zoo:paper_example --plan " + Quote(broken));
  EXPECT_EQ(r.exit_code, 1);
  const std::string first_line = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(first_line.find("'t1'"), std::string::npos) << r.out;
  EXPECT_NE(first_line.find("'t2'"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("violation"), std::string::npos) << r.err;
}

TEST(CliVerify, MalformedAndMismatchedPlans) {
  const auto dir = testing::TempDir();
  const auto bad = Write(dir, "bad.json", "{\"mode\": \"offsets\",\n  \"tensors\": [1,]}");
  auto r = RunMemplan("verify zoo:paper_example --plan " + Quote(bad));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.json:2:"), std::string::npos) << r.err;

  const auto plan = dir / "plan.json";
  ASSERT_EQ(RunMemplan("plan zoo:paper_example --out " + Quote(plan)).exit_code, 0);
  r = RunMemplan("verify zoo:tflite_gpu_complex --plan " + Quote(plan));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("lists 8 tensors but zoo:tflite_gpu_complex has 9 records"),
            std::string::npos)
      << r.out;

  EXPECT_EQ(RunMemplan("verify zoo:paper_example --plan " + Quote(dir / "none.json")).exit_code, 1);
  EXPECT_EQ(RunMemplan("verify zoo:paper_example").exit_code, 2);
}

TEST(CliVerify, ObjectsPlans) {
  const auto dir = testing::TempDir();
  // The reference "worked example" (docs/testing.md): greedy_by_size objects for the paper example.
  const std::vector<int> ids = {1, 0, 1, 2, 3, 0, 2, 1};
  std::string tensors;
  for (std::size_t i = 0; i < ids.size(); ++i)
    tensors += (i ? "," : "") + std::string("{\"index\": ") + std::to_string(i) +
               ", \"object\": " + std::to_string(ids[i]) + "}";
  const auto good = Write(dir, "objects.json",
                          "{\"mode\": \"objects\", \"strategy\": \"greedy_by_size\", "
                          "\"objects\": [64, 40, 16, 8], \"tensors\": [" +
                              tensors + "]}");
  auto r = RunMemplan("verify zoo:paper_example --plan " + Quote(good));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4 objects, 128 B"), std::string::npos) << r.out;

  const auto small = Write(
      dir, "small.json",
      "{\"mode\": \"objects\", \"objects\": [64, 39, 16, 8], \"tensors\": [" + tensors + "]}");
  r = RunMemplan("verify zoo:paper_example --plan " + Quote(small));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("too small: record 7 't7'"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace memplan
