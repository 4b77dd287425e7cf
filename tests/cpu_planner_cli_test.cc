// memplan run --resize: the LFM2 decoder (../shared, ONNX symbolic dims) through a sequence
// of shapes with the CPU arena planner; usage errors without any model file.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::RunMemplan;

TEST(CliRunResize, UsageErrors) {
  EXPECT_EQ(RunMemplan("run zoo:paper_example --resize batch=1,x").exit_code, 2);
  EXPECT_EQ(RunMemplan("run zoo:paper_example --resize batch=").exit_code, 2);
  EXPECT_EQ(RunMemplan("run zoo:paper_example --resize batch=1,2 --reorder").exit_code, 2);
  const auto r = RunMemplan("run zoo:paper_example --resize a=1,2 --resize b=1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("one value per step"), std::string::npos) << r.err;
}

TEST(CliRunResize, Lfm2SequenceGrowsAndComesBack) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model = (shared / "models" / "tiny_random_lfm2_decoder.onnx").string();
  const auto r = RunMemplan("run " + testing::Quote(model) +
                            " --dim batch_size=1 --dim past_sequence_length=16"
                            " --resize sequence_length=16,32,64,32"
                            " --resize total_sequence_length=32,48,80,48 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["steps"].size(), 4u);
  for (const auto& s : j["steps"]) {
    for (const char* key :
         {"shapes", "arena_bytes", "tflite_cpu_arena_bytes", "lower_bound_bytes",
          "replanned_tensors", "buffer_bytes_copied", "tflite_cpu_buffer_bytes_copied", "replan_us",
          "full_plan_us", "outputs_match_naive"})
      EXPECT_TRUE(s.contains(key)) << key;
    // Each step is a whole re-plan after ResetAllocations: no tensor has data to keep.
    EXPECT_EQ(s["buffer_bytes_copied"].get<std::uint64_t>(), 0u);
    EXPECT_TRUE(s["outputs_match_naive"].get<bool>());
    EXPECT_LE(s["arena_bytes"].get<std::uint64_t>(),
              s["tflite_cpu_arena_bytes"].get<std::uint64_t>());
    EXPECT_GE(s["arena_bytes"].get<std::uint64_t>(), s["lower_bound_bytes"].get<std::uint64_t>());
  }
  // The input's shape follows the dimension.
  EXPECT_EQ(j["steps"][1]["shapes"]["input_ids"], nlohmann::json::array({1, 32}));
  EXPECT_GT(j["steps"][2]["arena_bytes"].get<std::uint64_t>(),
            j["steps"][1]["arena_bytes"].get<std::uint64_t>());
  // tflite_cpu's buffer, grown by step 2, was as large as its largest plan before: all copied.
  const auto tflite_arena = [&](int k) {
    return j["steps"][k]["tflite_cpu_arena_bytes"].get<std::uint64_t>();
  };
  const std::uint64_t held = std::max(tflite_arena(0), tflite_arena(1));
  ASSERT_GT(tflite_arena(2), held);
  EXPECT_EQ(j["steps"][2]["tflite_cpu_buffer_bytes_copied"].get<std::uint64_t>(), held);
  // Back to a shape seen before: the cached layout, nothing re-planned.
  EXPECT_TRUE(j["steps"][3]["cache_hit"].get<bool>());
  EXPECT_EQ(j["steps"][3]["replanned_tensors"], 0);
  EXPECT_EQ(j["steps"][3]["arena_bytes"], j["steps"][1]["arena_bytes"]);
}

TEST(CliRunResize, Lfm2BatchTextReport) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model = (shared / "models" / "tiny_random_lfm2_decoder.onnx").string();
  const auto r = RunMemplan("run " + testing::Quote(model) +
                            " --dim sequence_length=16 --dim past_sequence_length=16"
                            " --dim total_sequence_length=32 --resize batch_size=1,4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[memplan] batch_size=4: input_ids[4,16]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outputs match the naive layout"), std::string::npos);
  // A dimension the model does not have is a usage error naming it.
  const auto bad = RunMemplan("run " + testing::Quote(model) +
                              " --dim sequence_length=16 --dim past_sequence_length=16"
                              " --dim total_sequence_length=32 --dim batch_size=1 --resize "
                              "frames=1,2");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("frames"), std::string::npos) << bad.err;
}

// A .tflite model stored at batch 1 with no open dimension resizes its input's axis 0, as
// TensorFlow Lite's ResizeInputTensor does.
TEST(CliRunResize, StaticTfliteBatch) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model = (shared / "models" / "mobilenet_v1_0.25_224_float.tflite").string();
  const auto r = RunMemplan("run " + testing::Quote(model) + " --resize batch=1,2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["steps"].size(), 2u);
  for (const auto& s : j["steps"]) {
    EXPECT_TRUE(s["outputs_match_naive"].get<bool>());
    EXPECT_LE(s["arena_bytes"].get<std::uint64_t>(),
              s["tflite_cpu_arena_bytes"].get<std::uint64_t>());
  }
  ASSERT_EQ(j["steps"][1]["shapes"].size(), 1u);
  EXPECT_EQ(j["steps"][1]["shapes"].begin().value(), nlohmann::json::array({2, 224, 224, 3}));
  EXPECT_GT(j["steps"][1]["arena_bytes"].get<std::uint64_t>(),
            j["steps"][0]["arena_bytes"].get<std::uint64_t>());
  // An axis no input has is a usage error naming it.
  const auto bad = RunMemplan("run " + testing::Quote(model) + " --resize input:9=1,2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("input:9"), std::string::npos) << bad.err;
}

// A batch that doubles and comes down to three: every tensor scales alike, so the layout
// before is scaled (ResNet-8's plans are at the lower bound), and the arena follows.
TEST(CliRunResize, ABatchResizeScalesTheLayoutBefore) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model =
      (shared / "models" / "tinymlperf_resnet8_cifar10_float.tflite").string();
  const auto r = RunMemplan("run " + testing::Quote(model) + " --resize batch=1,2,3 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["steps"].size(), 3u);
  EXPECT_FALSE(j["steps"][0]["scaled"].get<bool>());
  const auto arena1 = j["steps"][0]["arena_bytes"].get<std::uint64_t>();
  for (std::size_t k = 1; k < 3; ++k) {
    const auto& s = j["steps"][k];
    EXPECT_TRUE(s["scaled"].get<bool>()) << "step " << k;
    EXPECT_TRUE(s["outputs_match_naive"].get<bool>());
    EXPECT_EQ(s["arena_bytes"].get<std::uint64_t>(), (k + 1) * arena1);
    EXPECT_EQ(s["arena_bytes"].get<std::uint64_t>(), s["lower_bound_bytes"].get<std::uint64_t>());
  }
}

// plan --resize: the one model at each size, as a batch (one entry per step).
TEST(CliPlanResize, StaticTfliteBatchPlansEachSize) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model = (shared / "models" / "mobilenet_v1_0.25_224_float.tflite").string();
  const auto r = RunMemplan("plan " + testing::Quote(model) +
                            " --resize batch=1,2,4 --strategy offsets/best --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 3u);
  // Every activation grows with the batch; so do the best plan and the lower bound.
  const std::uint64_t one = j[0]["best"]["bytes"];
  EXPECT_EQ(j[1]["best"]["bytes"].get<std::uint64_t>(), 2 * one);
  EXPECT_EQ(j[2]["best"]["bytes"].get<std::uint64_t>(), 4 * one);
  EXPECT_NE(j[1]["input"].get<std::string>().find("batch=2"), std::string::npos) << j[1]["input"];
  // One model only, and no --out for several plans.
  EXPECT_EQ(RunMemplan("plan " + testing::Quote(model) + " " + testing::Quote(model) +
                       " --resize batch=1,2")
                .exit_code,
            2);
  EXPECT_EQ(
      RunMemplan("plan " + testing::Quote(model) + " --resize batch=1,2 --out x.json").exit_code,
      2);
  const auto bad = RunMemplan("plan " + testing::Quote(model) + " --resize seq=1,2");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("dimension seq: "), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("(--resize)"), std::string::npos) << bad.err;
}

// GPT-2 from the zoo (480 ops, no model file) leaves its token count open.
TEST(CliRunResize, ZooGpt2Tokens) {
  const auto r = RunMemplan("run zoo:gpt2 --resize tokens=8,24,8 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["steps"].size(), 3u);
  for (const auto& s : j["steps"]) {
    EXPECT_TRUE(s["outputs_match_naive"].get<bool>());
    EXPECT_LE(s["arena_bytes"].get<std::uint64_t>(),
              s["tflite_cpu_arena_bytes"].get<std::uint64_t>());
  }
  EXPECT_EQ(j["steps"][1]["shapes"]["input_ids"], nlohmann::json::array({1, 24}));
  EXPECT_TRUE(j["steps"][2]["cache_hit"].get<bool>());
  EXPECT_EQ(j["steps"][2]["arena_bytes"], j["steps"][0]["arena_bytes"]);
  // Other zoo models, and other dimensions of GPT-2, stay fixed.
  EXPECT_EQ(RunMemplan("run zoo:mobilenet_v2 --resize tokens=8,16").exit_code, 2);
  EXPECT_EQ(RunMemplan("run zoo:gpt2 --resize batch=1,2").exit_code, 2);
}

// A speech encoder's frame count: zoo:conformer_s (1,348 ops) over 100 to 400 frames.
TEST(CliRunResize, ZooConformerFrames) {
  const auto r = RunMemplan("run zoo:conformer_s --resize frames=100,400,200,100 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["steps"].size(), 4u);
  for (const auto& s : j["steps"]) {
    EXPECT_TRUE(s["outputs_match_naive"].get<bool>());
    EXPECT_LE(s["arena_bytes"].get<std::uint64_t>(),
              s["tflite_cpu_arena_bytes"].get<std::uint64_t>());
    EXPECT_GE(s["arena_bytes"].get<std::uint64_t>(), s["lower_bound_bytes"].get<std::uint64_t>());
  }
  EXPECT_EQ(j["steps"][1]["shapes"]["log_mel"], nlohmann::json::array({1, 400, 80, 1}));
  EXPECT_TRUE(j["steps"][3]["cache_hit"].get<bool>());
  EXPECT_EQ(RunMemplan("run zoo:conformer_s --resize frames=100,3").exit_code, 2);
}

}  // namespace
}  // namespace memplan
