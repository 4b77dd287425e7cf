// `memplan run` as a user runs it on the shared models.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace memplan {
namespace {

using ::testing::HasSubstr;
using testing::RunMemplan;

std::string Model(const std::filesystem::path& shared, const std::string& file) {
  return "'" + (shared / "models" / file).string() + "'";
}

TEST(CliRun, NeedsAModel) {
  const auto r = RunMemplan("run zoo:paper_example");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("run needs a model"));
  EXPECT_EQ(RunMemplan("run zoo:paper_example --format xml").exit_code, 2);
  EXPECT_EQ(RunMemplan("run zoo:paper_example --invokes 0").exit_code, 2);
}

TEST(CliRunModels, KeywordModelJson) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto r = RunMemplan("run " + Model(shared, "keyword_scrambled_svdf_int8.tflite") +
                            " --invokes 3 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["strategy"], "tflm_greedy");
  EXPECT_EQ(j["head_bytes"], 672);
  EXPECT_EQ(j["variable_bytes"], 10240);
  EXPECT_EQ(j["scratch_buffers"], 14);
  EXPECT_EQ(j["invokes"], 3);
  EXPECT_EQ(j["outputs_match_naive"], true);
  // Without --arena-size the arena is exactly what the model needs, temp included.
  EXPECT_EQ(j["arena_bytes"], j["required_arena_bytes"]);
  EXPECT_EQ(j["arena_bytes"],
            j["peak_bytes"].get<int>() + (16 - j["peak_bytes"].get<int>() % 16) % 16);
  EXPECT_GT(j["temp_peak_bytes"], 0);
  EXPECT_EQ(j["tail_bytes"].get<int>() + j["head_bytes"].get<int>(), j["arena_used_bytes"]);
}

TEST(CliRunModels, TextReportHasTflmsLines) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto r = RunMemplan("run " + Model(shared, "person_detect_96_int8.tflite"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[RecordingMicroAllocator] Arena allocation head 55296 bytes\n"));
  EXPECT_THAT(r.out, HasSubstr("[RecordingMicroAllocator] 'TfLiteEvalTensor data' used "));
  EXPECT_THAT(r.out, HasSubstr("outputs match the naive layout"));
}

TEST(CliRunModels, TooSmallAnArenaExitsOneWithTheSizeNeeded) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string keyword = Model(shared, "keyword_scrambled_svdf_int8.tflite");
  const auto ok = RunMemplan("run " + keyword + " --format json");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const std::string need = nlohmann::json::parse(ok.out)["required_arena_bytes"].dump();
  const auto r = RunMemplan("run " + keyword + " --arena-size 2000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Failed to allocate tail memory. Requested: "));
  EXPECT_THAT(r.err, HasSubstr("The model needs an arena of at least " + need +
                               " bytes; this one has 2000"));
  EXPECT_EQ(RunMemplan("run " + keyword + " --arena-size " + need).exit_code, 0);
  EXPECT_EQ(RunMemplan("run " + keyword + " --arena-size " + std::to_string(std::stoi(need) - 16))
                .exit_code,
            1);
}

TEST(CliRunModels, PreallocationAndTwoBuffersAndStrategies) {
  MEMPLAN_REQUIRE_SHARED(shared);
  auto r = RunMemplan("run " + Model(shared, "person_detect_96_int8.tflite") +
                      " --preallocate input --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["preallocated_tensors"], 1);
  EXPECT_EQ(j["preallocated_bytes"], 9216);
  EXPECT_EQ(j["head_without_preallocation"], 55296);
  EXPECT_EQ(j["outputs_match_naive"], true);

  r = RunMemplan("run " + Model(shared, "keyword_scrambled_svdf_int8.tflite") +
                 " --persistent-size 20000 --invokes 2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["two_buffers"], true);
  EXPECT_EQ(j["outputs_match_naive"], true);

  r = RunMemplan("run " + Model(shared, "mobilenet_v1_0.25_128_quant.tflite") +
                 " --strategy offsets/greedy_by_size --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["strategy"], "greedy_by_size");

  EXPECT_EQ(
      RunMemplan("run " + Model(shared, "hello_world_float.tflite") + " --strategy nope").exit_code,
      2);
  EXPECT_EQ(RunMemplan("run " + Model(shared, "hello_world_float.tflite") + " --preallocate nope")
                .exit_code,
            2);
}

// The detector's post-processing outputs are sized from the op's options without a flag,
// exactly as the four --shape bindings size them.
TEST(CliRunModels, CustomOpOutputsAreSizedFromTheirOptions) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string ssd = Model(shared, "ssd_mobilenet_v1_coco_300_quant_postprocess.tflite");
  const auto plain = RunMemplan("run " + ssd + " --format json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto r = RunMemplan("run " + ssd +
                            " --shape TFLite_Detection_PostProcess=1x10x4"
                            " --shape TFLite_Detection_PostProcess:1=1x10"
                            " --shape TFLite_Detection_PostProcess:2=1x10"
                            " --shape TFLite_Detection_PostProcess:3=1 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(r.out);
  EXPECT_EQ(a["outputs_match_naive"], true);
  EXPECT_EQ(b["outputs_match_naive"], true);
  EXPECT_EQ(a["arena_bytes"], b["arena_bytes"]);
}

TEST(CliRunModels, InPlaceSharesMemoryAndStillMatchesTheNaiveLayout) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string blazeface = Model(shared, "blazeface_front_128_float.tflite");
  auto r = RunMemplan("run " + blazeface + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto plain = nlohmann::json::parse(r.out);
  EXPECT_FALSE(plain.contains("variant"));
  EXPECT_FALSE(plain.contains("head_without_inplace_bytes"));

  r = RunMemplan("run " + blazeface + " --inplace=tflm --format json --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["variant"], "inplace=tflm");
  EXPECT_EQ(j["head_without_inplace_bytes"], plain["head_bytes"]);
  EXPECT_LT(j["head_bytes"], plain["head_bytes"]);
  EXPECT_GT(j["inplace_shares"], 0);
  EXPECT_EQ(j["outputs_match_naive"], true);

  r = RunMemplan("run " + blazeface + " --inplace tflite --reorder --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["variant"], "reorder+inplace=tflite");
  EXPECT_TRUE(j.contains("order_changed"));
  EXPECT_EQ(j["outputs_match_naive"], true);

  r = RunMemplan("run " + blazeface + " --inplace=tflm");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("[memplan] In place: "));
  EXPECT_THAT(r.out, HasSubstr("outputs match the naive layout"));
  EXPECT_EQ(RunMemplan("run " + blazeface + " --inplace=nope").exit_code, 2);
}

TEST(CliRunModels, InPlaceOnAnOnnxModel) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto r =
      RunMemplan("run " + Model(shared, "light_squeezenet.onnx") + " --inplace=all --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_LT(j["head_bytes"], j["head_without_inplace_bytes"]);
  EXPECT_EQ(j["outputs_match_naive"], true);
}

}  // namespace
}  // namespace memplan
