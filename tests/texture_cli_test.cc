// Texture and shape records through the command line: the multidimensional cases of
// TensorFlow Lite GPU's memory-management tests, written as records files and planned by
// build/memplan, object ids and extents compared exactly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "memplan/records_io.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

// The result of `strategy` in `plan --format json` output.
const Json* Result(const Json& out, const std::string& strategy) {
  for (const Json& r : out["results"])
    if (r["strategy"] == strategy) return &r;
  return nullptr;
}

TEST(TextureCli, ReproducesTheMultidimensionalCasesOfTensorFlowLiteGpu) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const Json cases =
      Json::parse(ReadFileBytes(shared / "conformance/tflite_gpu_memory_management.json"));
  const auto dir = testing::TempDir();
  std::size_t compared = 0;
  for (const Json& c : cases["multidimensional_cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const bool shape = c["size_type"].get<std::string>().starts_with("BHWC");
    const auto file = dir / (c["name"].get<std::string>() + ".json");
    std::ofstream(file)
        << Json{{"size_type", shape ? "shape" : "texture"}, {"records", c["records"]}}.dump();
    const auto r = testing::RunMemplan("plan " + testing::Quote(file) + " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json out = Json::parse(r.out);
    EXPECT_EQ(out["size_type"], shape ? "shape" : "texture");
    for (const auto& [key, want] : c["expect"].items()) {
      const Json* got = Result(out, key.substr(key.find('/') + 1));
      ASSERT_NE(got, nullptr) << key;
      EXPECT_EQ((*got)["object_ids"], want["object_ids"]) << key;
      EXPECT_EQ((*got)["object_dims"], want["object_sizes"]) << key;
      ++compared;
    }
  }
  // BHWC: naive, equality; 2-D and 3-D: naive, equality, greedy_in_order each.
  EXPECT_EQ(compared, 8u);
}

// The same 2-D records as CSV columns width,height (half-open lifetimes, as MiniMalloc's),
// and a plan file written with --out.
TEST(TextureCli, CsvColumnsAndPlanFile) {
  const auto dir = testing::TempDir();
  const auto csv = dir / "textures.csv";
  std::ofstream(csv) << "id,lower,upper,width,height\n"
                        "a,0,2,2,8\nb,1,3,2,8\nc,2,5,1,12\nd,3,6,2,8\ne,4,6,8,2\n"
                        "f,5,8,2,8\ng,6,9,1,8\nh,7,9,2,8\ni,8,10,4,1\n";
  const auto plan = dir / "plan.json";
  const auto r = testing::RunMemplan("plan " + testing::Quote(csv) +
                                     " -s objects/greedy_in_order --out " + testing::Quote(plan));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("best: greedy_in_order, objects 2x8, 2x8, 1x12, 8x2"));
  const Json file = Json::parse(ReadFileBytes(plan));
  EXPECT_EQ(file["size_type"], "texture");
  EXPECT_EQ(file["total_elements"], 60);
  EXPECT_EQ(file["tensors"][2]["name"], "c");
  EXPECT_EQ(file["tensors"][2]["dims"], Json::array({1, 12}));
  EXPECT_EQ(file["tensors"][6]["object"], 2);
}

// verify checks a texture plan file against its records; show draws the plans as lanes.
TEST(TextureCli, VerifyAndShow) {
  const auto dir = testing::TempDir();
  const auto records = dir / "r.json";
  std::ofstream(records) << R"({"size_type": "texture", "records": [[[2, 8], 0, 1],
      [[2, 8], 1, 2], [[1, 12], 2, 4], [[2, 8], 3, 5], [[8, 2], 4, 5]]})";
  const auto plan = dir / "p.json";
  ASSERT_EQ(testing::RunMemplan("plan " + testing::Quote(records) +
                                " -s objects/greedy_in_order --out " + testing::Quote(plan))
                .exit_code,
            0);
  auto r =
      testing::RunMemplan("verify " + testing::Quote(records) + " --plan " + testing::Quote(plan));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("OK: objects/greedy_in_order fits"));
  // Record 4 (8x2, steps 4..5) moved into the object of record 3 (2x8, steps 3..5).
  Json file = Json::parse(ReadFileBytes(plan));
  file["tensors"][4]["object"] = file["tensors"][3]["object"];
  std::ofstream(plan) << file.dump();
  r = testing::RunMemplan("verify " + testing::Quote(records) + " --plan " + testing::Quote(plan));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("record 4 '4' (8x2, steps 4..5)"));

  const auto svg = dir / "map.svg";
  r = testing::RunMemplan("show " + testing::Quote(records) + " --svg " + testing::Quote(svg));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFileBytes(svg), HasSubstr("sizes are element counts"));
}

TEST(TextureCli, SaysWhatIsWrong) {
  const auto dir = testing::TempDir();
  const auto four = dir / "four.json";
  std::ofstream(four) << R"({"records": [[[1, 1, 2, 8], 0, 1]]})";
  auto r = testing::RunMemplan("plan " + testing::Quote(four));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("records[0]: a texture has 2 or 3 dimensions"));
  EXPECT_THAT(r.err, HasSubstr("\"size_type\": \"shape\""));

  const auto mixed = dir / "mixed.json";
  std::ofstream(mixed) << R"({"records": [[[2, 8], 0, 1], [16, 1, 2]]})";
  r = testing::RunMemplan("plan " + testing::Quote(mixed));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("records[1]: expected a size with dimensions"));

  const auto ok = dir / "ok.json";
  std::ofstream(ok) << R"({"records": [{"size": [2, 8], "first": 0, "last": 1, "name": "x"}]})";
  r = testing::RunMemplan("plan " + testing::Quote(ok) + " -s offsets/naive");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("texture records have no offsets plans"));
  r = testing::RunMemplan("plan " + testing::Quote(ok) + " -s objects");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("left out (they plan sizes in bytes only)"));
}

}  // namespace
}  // namespace memplan
