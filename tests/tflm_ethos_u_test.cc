// TFLM's ethos_u kernel on a Cortex-M system with an Ethos-U NPU: a model as Vela writes it
// (one ethos-u custom op whose offline plan puts its input, output and fast scratch inside its
// scratch area) sized as the real TFLM allocates it (tests/data/tflm_arena_cortexm55_ethos_u.json).
// And CMSIS-NN's BATCH_MATMUL on a model built here (tflm_arena_cortexm55_batch_matmul.json).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memplan/tflite.h"
#include "memplan/tflm_target.h"
#include "memplan/workload.h"
#include "tests/graph_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

// Vela's output for a network the NPU runs whole (testing::VelaLikeModel) with Vela's custom
// options, the flexbuffer int 1 (an Ethos-U command stream); `options` empty writes none.
std::string VelaModel(std::vector<std::uint8_t> options = {1, 4, 1}) {
  return testing::VelaLikeModel("ethos-u", 0, 0, std::move(options));
}

// Two feature maps in, two out, the second dequantized on the CPU after the NPU op: the
// offline plan places the NPU's maps at their own offsets inside the scratch area, the
// DEQUANTIZE output is planned online around it.
std::string VelaModelWithCpuTail() {
  testing::GraphBuilder b;
  const auto in0 = b.Typed("input_0", DataType::kInt8, {1, 16, 16, 3});  // 768 B
  const auto in1 = b.Typed("input_1", DataType::kInt8, {1, 40});
  const auto cms = b.Typed("sg_command_stream", DataType::kUInt8, {96});
  b.Last().is_constant = true;
  const auto flash = b.Typed("sg_flash", DataType::kUInt8, {1200});
  b.Last().is_constant = true;
  const auto scratch = b.Typed("sg_scratch", DataType::kUInt8, {2400});
  const auto fast = b.Typed("sg_scratch_fast", DataType::kUInt8, {1600});
  const auto out0 = b.Typed("output_0", DataType::kInt8, {1, 12});
  const auto out1 = b.Typed("output_1", DataType::kInt8, {1, 100});
  const auto deq = b.Typed("output_1_float", DataType::kFloat32, {1, 100});
  b.Inputs({in0, in1}).Outputs({out0, deq});
  b.Op("ethos-u", {cms, flash, scratch, fast, in0, in1}, {out0, out1});
  b.Op("DEQUANTIZE", {out1}, {deq});
  TfliteWriteOptions w;
  w.offline_offsets = std::vector<std::int32_t>{0, 800, -1, -1, 0, 0, 848, 880, -1};
  w.custom_options.push_back({0, 0, {1, 4, 1}});
  return WriteTflite(b.Build(), w);
}

TflmArenaFigures Figures(const std::string& bytes, const TargetAbi& target) {
  const auto dir = testing::TempDir();
  const Workload w = LoadWorkload(testing::WriteFile(dir, "vela.tflite", bytes).string());
  return ModelTflmArena(*w.graph, target, TflmHeadPlanFromRuntime(*w.graph, target));
}

std::string Hex(const std::string& bytes) {
  std::string s;
  for (const char c : bytes) s += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return s;
}

const TargetAbi& CortexM55CmsisNn() {
  static const TargetAbi t = WithTflmKernels(TflmTargetNamed("cortex-m55"), TflmKernels::kCmsisNn);
  return t;
}

// Every figure the real TFLM printed, for the very bytes it was measured on.
void ExpectFiguresOfRealTflm(const std::string& bytes, const nlohmann::json& real) {
  SCOPED_TRACE(real["model"].get<std::string>());
  ASSERT_EQ(Hex(bytes), real["model_hex"].get<std::string>()) << "not the model measured";
  const TflmArenaFigures f = Figures(bytes, CortexM55CmsisNn());
  ASSERT_TRUE(f.unsupported.empty()) << f.unsupported[0].why;
  EXPECT_FALSE(f.lower_bound());
  EXPECT_EQ(f.head, real["head"].get<Bytes>());
  EXPECT_EQ(f.tail, real["tail"].get<Bytes>());
  EXPECT_EQ(f.arena_used, real["arena_used_bytes"].get<Bytes>());
  EXPECT_EQ(f.minimal_arena, real["minimal_arena_bytes"].get<Bytes>());
  EXPECT_EQ(f.minimal_arena_plain, real["minimal_arena_bytes_micro_interpreter"].get<Bytes>());
  EXPECT_EQ(f.two_buffer_persistent, real["two_buffers"]["persistent"].get<Bytes>());
  EXPECT_EQ(f.two_buffer_non_persistent, real["two_buffers"]["non_persistent"].get<Bytes>());
  std::string expected;
  for (const auto& line : real["print_allocations"]) expected += line.get<std::string>() + "\n";
  EXPECT_EQ(TflmPrintAllocations(f), expected);
}

nlohmann::json RealFigures() {
  return testing::ReadJsonFile(std::filesystem::path(MEMPLAN_SOURCE_DIR) /
                               "tests/data/tflm_arena_cortexm55_ethos_u.json");
}

TEST(TflmEthosU, EveryFigureEqualsRealTflmOnCortexM55) {
  const nlohmann::json real = RealFigures();
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  ASSERT_EQ(real["models"].size(), 2u);
  ExpectFiguresOfRealTflm(VelaModel(), real["models"][0]);
  ExpectFiguresOfRealTflm(VelaModelWithCpuTail(), real["models"][1]);
}

// The scratch area holds what lives inside it: the arena's head is the scratch tensor and
// the two scratch buffers the kernel requests (6 base addresses of 8 B and their 4 B sizes).
TEST(TflmEthosU, HeadIsTheScratchAreaAndTheBaseAddressArrays) {
  const TflmArenaFigures f = Figures(VelaModel(), CortexM55CmsisNn());
  EXPECT_EQ(f.head, 1024u + 48u + 32u);  // 6 x 4 B rounded up to 16
}

TEST(TflmEthosU, RefusedWithoutCustomOptionsAsRealTflm) {
  const nlohmann::json real = RealFigures();
  ASSERT_NE(real["refused"][0]["message"].dump().find("custom_initial_data_size > 0"),
            std::string::npos);
  const TflmArenaFigures f = Figures(VelaModel({}), CortexM55CmsisNn());
  ASSERT_EQ(f.unsupported.size(), 1u);
  EXPECT_EQ(f.unsupported[0].why, "ethos-u op without custom options (TFLM's kernel needs Vela's)");
}

// Only firmware for a Cortex-M with an Ethos-U NPU registers the kernel.
TEST(TflmEthosU, RefusedOffCortexM) {
  for (const char* name : {"host64", "arm32"}) {
    const TflmArenaFigures f = Figures(VelaModel(), TflmTargetNamed(name));
    ASSERT_EQ(f.unsupported.size(), 1u) << name;
    EXPECT_NE(f.unsupported[0].why.find("built for a Cortex-M with an Ethos-U NPU"),
              std::string::npos)
        << f.unsupported[0].why;
  }
}

// CMSIS-NN's BATCH_MATMUL (op data with the output's cmsis_nn_dims, the transposed rhs, the
// output's dims) on the model the real TFLM ran.
TEST(TflmCmsisNn, FloatBatchMatmulEqualsRealTflm) {
  testing::GraphBuilder b;
  const auto x = b.Typed("x", DataType::kFloat32, {1, 4, 8});
  const auto y = b.Typed("y", DataType::kFloat32, {1, 8, 6});
  const auto z = b.Typed("z", DataType::kFloat32, {1, 4, 6});
  b.Inputs({x, y}).Outputs({z});
  b.Op("BATCH_MATMUL", {x, y}, {z});
  const nlohmann::json real =
      testing::ReadJsonFile(std::filesystem::path(MEMPLAN_SOURCE_DIR) /
                            "tests/data/tflm_arena_cortexm55_batch_matmul.json");
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  ExpectFiguresOfRealTflm(WriteTflite(b.Build()), real["models"][0]);
}

// The command: the figures, and no refusal.
TEST(TflmEthosU, ArenaCommandSizesAVelaModel) {
  const auto dir = testing::TempDir();
  const auto model = testing::WriteFile(dir, "vela.tflite", VelaModel());
  const testing::CommandResult r = testing::RunMemplan(
      "arena " + testing::Quote(model) + " --target cortex-m55 --kernels cmsis-nn --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["minimal_arena_bytes"], RealFigures()["models"][0]["minimal_arena_bytes"]);
  EXPECT_FALSE(j["lower_bound"].get<bool>());
}

}  // namespace
}  // namespace memplan
