// The target model of TensorFlow Lite Micro (include/memplan/tflm_target.h): struct
// layouts per target, and every figure the real TFLM printed for the shared models
// (shared/conformance/tflm_arena_host64.json) reproduced to the byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "memplan/error.h"
#include "memplan/tflite.h"
#include "memplan/tflm_target.h"
#include "memplan/workload.h"
#include "src/target/tflm_kernels.h"
#include "src/target/tflm_structs.h"
#include "tests/graph_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using target::Layout;

TEST(TflmStructs, Host64LayoutsAreTflmSizes) {
  const TargetAbi abi = TflmTargetNamed("host64");
  EXPECT_EQ(target::TfLiteTensorLayout(abi).size, 64u);
  EXPECT_EQ(target::TfLiteEvalTensorLayout(abi).size, 24u);
  EXPECT_EQ(target::NodeAndRegistrationLayout(abi).size, 64u);
  EXPECT_EQ(target::TfLiteAffineQuantizationLayout(abi).size, 24u);
  EXPECT_EQ(target::ScratchBufferRequestLayout(abi).size, 16u);
  EXPECT_EQ(target::AllocationInfoLayout(abi).size, 32u);
  EXPECT_EQ(target::RecordingSingleArenaBufferAllocatorLayout(abi).size, 104u);
  EXPECT_EQ(target::GreedyMemoryPlannerLayout(abi).size, 72u);
  EXPECT_EQ(target::RecordingMicroAllocatorLayout(abi).size, 248u);
  EXPECT_EQ(target::GreedyPlannerBytesPerBuffer(abi), 40u);
  EXPECT_EQ(target::IntArrayBytes(3), 16u);
}

TEST(TflmStructs, Arm32LayoutsHalveThePointers) {
  const TargetAbi abi = TflmTargetNamed("arm32");
  EXPECT_EQ(target::TfLiteTensorLayout(abi).size, 40u);
  EXPECT_EQ(target::TfLiteEvalTensorLayout(abi).size, 12u);
  EXPECT_EQ(target::NodeAndRegistrationLayout(abi).size, 32u);
  EXPECT_EQ(target::TfLiteAffineQuantizationLayout(abi).size, 12u);
  EXPECT_EQ(target::ScratchBufferRequestLayout(abi).size, 12u);
  EXPECT_EQ(target::AllocationInfoLayout(abi).size, 24u);  // 21 bytes of fields
  // The classes at the top of the tail (clang --target=thumbv7em-none-eabi lays out the same
  // field lists so): the derived recorders start in their bases' tail padding.
  EXPECT_EQ(target::RecordingSingleArenaBufferAllocatorLayout(abi).size, 52u);
  EXPECT_EQ(target::GreedyMemoryPlannerLayout(abi).size, 44u);
  EXPECT_EQ(target::MicroAllocatorLayout(abi).size, 36u);
  EXPECT_EQ(target::RecordingMicroAllocatorLayout(abi).size, 124u);
}

TEST(TflmStructs, DerivedFieldsStartInTheBaseTailPadding) {
  const TargetAbi abi = TflmTargetNamed("host64");
  // A base of 12 data bytes padded to 16: a derived int goes at 12, not 16.
  const Layout base =
      target::StructLayout(abi).Add(target::Field::kPointer).Add(target::Field::kInt32).Done();
  EXPECT_EQ(base.size, 16u);
  EXPECT_EQ(target::StructLayout(abi).Base(base).Add(target::Field::kInt32).Done().size, 16u);
  // A member struct keeps its padding.
  EXPECT_EQ(target::StructLayout(abi).Add(base).Add(target::Field::kInt32).Done().size, 24u);
}

TEST(TflmTarget, UnknownTargetIsAUsageError) {
  EXPECT_THROW(TflmTargetNamed("riscv"), UsageError);
}

// A float model: x [1,8] -> FULLY_CONNECTED(w [4,8], b [4]) -> y [1,4] -> OP -> z [1,4].
Graph FcThen(const std::string& op, DataType input_type = DataType::kFloat32) {
  testing::GraphBuilder b;
  const auto x = b.Typed("x", input_type, {1, 8});
  const auto w = b.Typed("w", DataType::kFloat32, {4, 8});
  b.Last().is_constant = true;
  const auto bias = b.Typed("b", DataType::kFloat32, {4});
  b.Last().is_constant = true;
  const auto y = b.Typed("y", DataType::kFloat32, {1, 4});
  const auto z = b.Typed("z", DataType::kFloat32, {1, 4});
  b.Inputs({x}).Outputs({z});
  b.Op(op == "DEQUANTIZE" ? "DEQUANTIZE" : "FULLY_CONNECTED", {x, w, bias}, {y});
  b.Op(op == "DEQUANTIZE" ? "RELU" : op, {y}, {z});
  return b.Build();
}

TEST(TflmTarget, AnUnmodelledOpMakesEveryFigureALowerBound) {
  const Graph g = FcThen("READ_VARIABLE");
  const TflmArenaFigures f =
      ModelTflmArena(g, TflmTargetNamed("host64"), TflmHeadPlanFromRuntime(g));
  ASSERT_TRUE(f.lower_bound());
  ASSERT_EQ(f.unmodelled.size(), 1u);
  EXPECT_EQ(f.unmodelled[0].type, "READ_VARIABLE");
  EXPECT_EQ(f.unmodelled[0].op, 1);
  EXPECT_TRUE(f.unsupported.empty());
  const Graph known = FcThen("RELU");
  EXPECT_FALSE(ModelTflmArena(known, TflmTargetNamed("host64"), TflmHeadPlanFromRuntime(known))
                   .lower_bound());
}

TEST(TflmTarget, AnOpTflmHasNoKernelForIsUnsupported) {
  const TflmOpCheck check = CheckTflmOps(FcThen("GELU"), TflmTargetNamed("host64"));
  ASSERT_EQ(check.unsupported.size(), 1u);
  EXPECT_EQ(check.unsupported[0].why, "GELU (TFLM has no kernel for it)");
  EXPECT_EQ(check.unmodelled.size(), 1u);  // and its memory is unknown
}

TEST(TflmTarget, Float16DequantizeIsUnsupportedUpFront) {
  const Graph g = FcThen("DEQUANTIZE", DataType::kFloat16);
  const TflmOpCheck check = CheckTflmOps(g, TflmTargetNamed("arm32"));
  ASSERT_EQ(check.unsupported.size(), 1u);
  EXPECT_EQ(check.unsupported[0].type, "DEQUANTIZE");
  EXPECT_EQ(GroupTflmOpNotes(check.unsupported),
            std::vector<std::string>{"DEQUANTIZE: DEQUANTIZE from float16 (op 0; 1 in all)"});
}

TEST(TflmTarget, Arm32NeedsLessTailThanHost64) {
  const Graph g = FcThen("RELU");
  const TflmHeadPlan head = TflmHeadPlanFromRuntime(g);
  const TflmArenaFigures h = ModelTflmArena(g, TflmTargetNamed("host64"), head);
  const TflmArenaFigures a = ModelTflmArena(g, TflmTargetNamed("arm32"), head);
  EXPECT_EQ(a.head, h.head);
  EXPECT_LT(a.tail, h.tail);
  // Both: the smallest arena holds the final head and tail, and replays (monotone search).
  EXPECT_GE(a.minimal_arena, a.arena_used - 15);
  EXPECT_GE(h.minimal_arena, h.arena_used - 15);
  EXPECT_GT(a.two_buffer_persistent, 0u);
}

// The persistent buffer (two buffers) the real TFLM's figure gives: the size a bisection
// found, so one TFLM accepts while it refuses a byte less. Where allocations a kernel does
// not check fail silently, success is not monotone in the size and that is an edge of the
// accepted sizes, not always the smallest (tflm_two_buffer_scans.json has the smallest).
void ExpectBisectedPersistentSize(const TflmArenaFigures& f, const nlohmann::json& two) {
  const Bytes bisected = two["persistent"].get<Bytes>();
  EXPECT_TRUE(TflmAcceptsPersistentBuffer(f, bisected)) << bisected;
  EXPECT_FALSE(TflmAcceptsPersistentBuffer(f, bisected - 1)) << bisected;
  if (f.two_buffer_persistent_accepted.empty()) {  // monotone: the smallest and the safe one
    EXPECT_EQ(f.two_buffer_persistent, bisected);
    EXPECT_EQ(f.two_buffer_persistent_safe, bisected);
  }
  EXPECT_EQ(f.two_buffer_non_persistent, two["non_persistent"].get<Bytes>());
  EXPECT_GE(f.two_buffer_persistent_safe, f.two_buffer_persistent);
}

// Every figure the real TFLM printed for `models` (a conformance file's list), modelled
// for `target`: equal to the byte where the model knows every op, never above where not.
void ExpectEveryFigureEqualsRealTflm(const std::filesystem::path& shared,
                                     const nlohmann::json& models, const TargetAbi& target) {
  std::size_t exact = 0;
  for (const auto& m : models) {
    const std::string name = m["model"].get<std::string>();
    SCOPED_TRACE(name + " on " + target.name + ", " + std::string(TflmKernelsName(target.kernels)));
    const Workload w = LoadWorkload((shared / "models" / name).string());
    ASSERT_TRUE(w.graph);
    const TflmArenaFigures f =
        ModelTflmArena(*w.graph, target, TflmHeadPlanFromRuntime(*w.graph, target));
    EXPECT_TRUE(f.unsupported.empty()) << "the real TFLM ran it: " << f.unsupported[0].why;
    if (f.lower_bound()) {
      // An op the model does not know: every figure is a lower bound, never above.
      EXPECT_LE(f.tail, m["tail"].get<Bytes>());
      EXPECT_LE(f.minimal_arena, m["minimal_arena_bytes"].get<Bytes>());
      continue;
    }
    ++exact;
    EXPECT_EQ(f.head, m["head"].get<Bytes>());
    EXPECT_EQ(f.tail, m["tail"].get<Bytes>());
    EXPECT_EQ(f.arena_used, m["arena_used_bytes"].get<Bytes>());
    EXPECT_EQ(f.minimal_arena, m["minimal_arena_bytes"].get<Bytes>());
    if (m.contains("minimal_arena_bytes_micro_interpreter"))
      EXPECT_EQ(f.minimal_arena_plain, m["minimal_arena_bytes_micro_interpreter"].get<Bytes>());
    if (m.contains("two_buffers")) ExpectBisectedPersistentSize(f, m["two_buffers"]);
    ASSERT_EQ(f.categories.size(), m["categories"].size());
    for (const TflmCategory& c : f.categories) {
      SCOPED_TRACE(c.name);
      ASSERT_TRUE(m["categories"].contains(c.name));
      EXPECT_EQ(c.used, m["categories"][c.name]["used"].get<Bytes>());
      EXPECT_EQ(c.requested, m["categories"][c.name]["requested"].get<Bytes>());
      EXPECT_EQ(c.count, m["categories"][c.name]["count"].get<std::uint64_t>());
    }
    // The printout, line by line.
    std::string expected;
    for (const auto& line : m["print_allocations"]) expected += line.get<std::string>() + "\n";
    EXPECT_EQ(TflmPrintAllocations(f), expected);
  }
  EXPECT_EQ(exact, models.size());  // no model is a lower bound
}

TEST(TflmTarget, EveryHost64FigureEqualsRealTflm) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json real = testing::ReadJsonFile(shared / "conformance/tflm_arena_host64.json");
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  ExpectEveryFigureEqualsRealTflm(shared, real["models"], TflmTargetNamed("host64"));
}

TEST(TflmTarget, EveryArm32FigureEqualsRealTflm) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json real = testing::ReadJsonFile(shared / "conformance/tflm_arena_arm32.json");
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  ExpectEveryFigureEqualsRealTflm(shared, real["models"], TflmTargetNamed("arm32"));
}

// shared/conformance/tflm_arena_cortexm4.json: arm-none-eabi, 1-byte enums, both kernel sets.
TEST(TflmTarget, EveryCortexM4ReferenceFigureEqualsRealTflm) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json real =
      testing::ReadJsonFile(shared / "conformance/tflm_arena_cortexm4.json");
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  ASSERT_EQ(real["target"]["enum_bytes"].get<Bytes>(), TflmTargetNamed("cortex-m4").enum_bytes);
  ExpectEveryFigureEqualsRealTflm(shared, real["reference"], TflmTargetNamed("cortex-m4"));
}

TEST(TflmTarget, EveryCortexM4CmsisNnFigureEqualsRealTflm) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json real =
      testing::ReadJsonFile(shared / "conformance/tflm_arena_cortexm4.json");
  ASSERT_NE(real["dependencies"].get<std::string>().find("CMSIS-NN 4ab83cc3"), std::string::npos);
  ExpectEveryFigureEqualsRealTflm(
      shared, real["cmsis_nn"],
      WithTflmKernels(TflmTargetNamed("cortex-m4"), TflmKernels::kCmsisNn));
}

// Measured for this project (tests/data, how in each file's "description"): the real TFLM
// with CMSIS-NN on more shared models and on more cores than the shared conformance file.
nlohmann::json ReadTestData(std::string_view name) {
  return testing::ReadJsonFile(std::filesystem::path(MEMPLAN_SOURCE_DIR) / "tests/data" /
                               std::string(name));
}

// The models the real TFLM refused on the target: memplan refuses them too.
void ExpectEveryRefusalIsModelled(const std::filesystem::path& shared,
                                  const nlohmann::json& refused, const TargetAbi& target) {
  for (const auto& m : refused) {
    const std::string name = m["model"].get<std::string>();
    SCOPED_TRACE(name + " on " + target.name);
    const Workload w = LoadWorkload((shared / "models" / name).string());
    ASSERT_TRUE(w.graph);
    const TflmArenaFigures f =
        ModelTflmArena(*w.graph, target, TflmHeadPlanFromRuntime(*w.graph, target));
    EXPECT_FALSE(f.unsupported.empty()) << "the real TFLM refused it";
  }
}

void ExpectMeasuredCmsisNnFigures(std::string_view file, std::string_view core) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json real = ReadTestData(file);
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  ASSERT_NE(real["dependencies"].get<std::string>().find("CMSIS-NN 4ab83cc3"), std::string::npos);
  const TargetAbi target = WithTflmKernels(TflmTargetNamed(core), TflmKernels::kCmsisNn);
  ASSERT_EQ(real["target"]["enum_bytes"].get<Bytes>(), target.enum_bytes);
  ExpectEveryFigureEqualsRealTflm(shared, real["cmsis_nn"], target);
  ExpectEveryRefusalIsModelled(shared, real["refused"], target);
}

TEST(TflmTarget, EveryMeasuredCortexM4CmsisNnFigureEqualsRealTflm) {
  ExpectMeasuredCmsisNnFigures("tflm_arena_cortexm4_cmsis_nn.json", "cortex-m4");
}

// Cortex-M3 (QEMU mps2-an385): CMSIS-NN's plain C paths for a core without DSP.
TEST(TflmTarget, EveryMeasuredCortexM3CmsisNnFigureEqualsRealTflm) {
  ExpectMeasuredCmsisNnFigures("tflm_arena_cortexm3_cmsis_nn.json", "cortex-m3");
}

// Cortex-M55 (QEMU mps3-an547): CMSIS-NN's Helium (MVE) code paths and their buffers.
TEST(TflmTarget, EveryMeasuredCortexM55CmsisNnFigureEqualsRealTflm) {
  ExpectMeasuredCmsisNnFigures("tflm_arena_cortexm55_cmsis_nn.json", "cortex-m55");
}

// Persistent buffer sizes the real TFLM with CMSIS-NN accepted and refused (two buffers),
// booted one by one around every run of sizes memplan says it accepts: the smallest it
// accepts, and memplan's verdict on every size tried.
TEST(TflmTarget, EveryScannedPersistentSizeIsJudgedAsRealTflm) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json real = ReadTestData("tflm_two_buffer_scans.json");
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  for (const auto& scan : real["scans"]) {
    const std::string name = scan["model"].get<std::string>();
    const TargetAbi target =
        WithTflmKernels(TflmTargetNamed(scan["target"].get<std::string>()), TflmKernels::kCmsisNn);
    SCOPED_TRACE(name + " on " + target.name);
    const Workload w = LoadWorkload((shared / "models" / name).string());
    ASSERT_TRUE(w.graph);
    const TflmArenaFigures f =
        ModelTflmArena(*w.graph, target, TflmHeadPlanFromRuntime(*w.graph, target));
    EXPECT_EQ(f.two_buffer_persistent, scan["smallest"].get<Bytes>());
    EXPECT_EQ(f.two_buffer_persistent_safe, scan["safe"].get<Bytes>());
    for (const auto& size : scan["accepted"])
      EXPECT_TRUE(TflmAcceptsPersistentBuffer(f, size.get<Bytes>())) << size;
    for (const auto& size : scan["refused"])
      EXPECT_FALSE(TflmAcceptsPersistentBuffer(f, size.get<Bytes>())) << size;
    EXPECT_GE(scan["accepted"].size() + scan["refused"].size(), 80u);
  }
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// Both two-buffer sizes, why they differ, and the runs TFLM accepts between them.
TEST(ArenaCommand, SaysTheAcceptedPersistentSizesAndWhy) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model =
      testing::Quote(shared / "models/tinymlperf_resnet8_cifar10_int8.tflite");
  const std::string args = "arena " + model + " --target cortex-m4 --kernels cmsis-nn";
  const testing::CommandResult text = testing::RunMemplan(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("two buffers: persistent 5296 bytes"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("TFLM also accepts a persistent buffer of 3760 bytes: CMSIS-NN's"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("accepted below it: 3760-3839, 4016-4095, 4272-4351, 4528-4607, "
                          "4784-4863, 5040-5119)"),
            std::string::npos)
      << text.out;
  const testing::CommandResult json = testing::RunMemplan(args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json two = nlohmann::json::parse(json.out)["two_buffers"];
  EXPECT_EQ(two["persistent"], 3760);
  EXPECT_EQ(two["persistent_safe"], 5296);
  EXPECT_EQ(two["persistent_accepted"].size(), 6u);
  EXPECT_EQ(two["persistent_accepted"][0], nlohmann::json::parse("[3760, 3839]"));
}

TEST(ArenaCommand, JsonHasTheIssueKeysAndTextThePasteLine) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model = testing::Quote(shared / "models/keyword_scrambled_svdf_int8.tflite");
  const testing::CommandResult json = testing::RunMemplan("arena " + model + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  for (const char* key : {"target", "tflm_commit", "head", "tail", "arena_used_bytes",
                          "minimal_arena_bytes", "categories", "two_buffers", "lower_bound"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["target"], "host64");
  EXPECT_EQ(j["minimal_arena_bytes"], 17840);  // TFLM's arena_used_bytes() says 14928
  // Without the recording objects (104 + 248 B against 72 + 72 B on host64).
  EXPECT_EQ(j["minimal_arena_bytes_micro_interpreter"], 17840 - 208);
  EXPECT_EQ(j["categories"]["TfLiteTensor variable buffer data"]["used"], 10240);
  const testing::CommandResult text = testing::RunMemplan("arena " + model + " --target arm32");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("on target arm32"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("constexpr int kTensorArenaSize = "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("TFLM commit 90b983c2b3f1480642e040bbd2ddb37b998f3424"),
            std::string::npos);
  EXPECT_EQ(testing::RunMemplan("arena " + model + " --target riscv").exit_code, 2);
  const testing::CommandResult zoo = testing::RunMemplan("arena zoo:mobilenet_v2");
  EXPECT_EQ(zoo.exit_code, 2);
  EXPECT_NE(zoo.err.find("a built-in graph without weights"), std::string::npos) << zoo.err;
  EXPECT_EQ(testing::RunMemplan("arena /nonexistent/model.tflite").exit_code, 1);
}

TEST(ArenaCommand, AModelTflmRefusesGetsAnErrorAndNoFigure) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const testing::CommandResult r = testing::RunMemplan(
      "arena " + testing::Quote(shared / "models/mobilenet_v1_0.25_128_quant.tflite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("will refuse this model"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("op 0 (CONV_2D): CONV_2D on uint8 tensors"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("kTensorArenaSize"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

TEST(EmbedForTflm, ScratchBuffersNeverPushTheHeadAboveTflmsOwn) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = testing::TempDir();
  const std::string model = testing::Quote(shared / "models/keyword_scrambled_svdf_int8.tflite");
  const testing::CommandResult r = testing::RunMemplan(
      "embed " + model + " -o " + testing::Quote(dir / "kw.tflite") + " -q --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // TFLM's own planner: 672 B (shared/conformance/tflm_arena_host64.json); the tensors-only
  // plan left the SVDF scratch buffers no room (800 B in TFLM).
  EXPECT_EQ(j["tflm_own_planner_head_bytes"], 672);
  EXPECT_LE(j["tflm_head_bytes"].get<Bytes>(), 672u);
  EXPECT_EQ(j["tflm_arena_bytes_host64"], 17840);
  // And the written model, loaded as TFLM loads it, says the same.
  const testing::CommandResult back =
      testing::RunMemplan("arena " + testing::Quote(dir / "kw.tflite") + " --format json");
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(nlohmann::json::parse(back.out)["head"], j["tflm_head_bytes"]);
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// in [1,8,8,C] int8 -> CONV_2D (3x3, SAME, stride 1, filter [8,3,3,C]) -> out [1,8,8,8].
Graph Int8Conv(std::int64_t channels) {
  testing::GraphBuilder b;
  const auto x = b.Typed("x", DataType::kInt8, {1, 8, 8, channels});
  const auto w = b.Typed("w", DataType::kInt8, {8, 3, 3, channels});
  b.Last().is_constant = true;
  const auto bias = b.Typed("b", DataType::kInt32, {8});
  b.Last().is_constant = true;
  const auto y = b.Typed("y", DataType::kInt8, {1, 8, 8, 8});
  b.Inputs({x}).Outputs({y});
  b.Op("CONV_2D", {x, w, bias}, {y});
  Graph g = b.Build();
  g.subgraphs[0].ops[0].int_params = {0, 1, 1, 1, 1};  // SAME, strides 1, dilations 1
  return g;
}

std::vector<Bytes> CmsisNnScratch(const Graph& g, const std::string& core) {
  const TargetAbi abi = WithTflmKernels(TflmTargetNamed(core), TflmKernels::kCmsisNn);
  return target::DescribeKernel(abi, g.subgraphs[0], g.subgraphs[0].ops[0]).scratch;
}

TEST(CmsisNn, ConvScratchFollowsTheCoresExtensions) {
  // 3x3x10 = 90 columns: DSP and no DSP: two int16 columns rounded to 4 (2 * 92 * 2); MVE:
  // four int8 columns rounded to 16 (4 * 96).
  const Graph g = Int8Conv(10);
  EXPECT_EQ(CmsisNnScratch(g, "cortex-m4"), std::vector<Bytes>{368});
  EXPECT_EQ(CmsisNnScratch(g, "cortex-m0"), std::vector<Bytes>{368});
  EXPECT_EQ(CmsisNnScratch(g, "cortex-m55"), std::vector<Bytes>{384});
  // 3x3x16: 576 B, the buffer in tinymlperf_resnet8_cifar10_int8's head on a Cortex-M4.
  EXPECT_EQ(CmsisNnScratch(Int8Conv(16), "cortex-m4"), std::vector<Bytes>{576});
  // The reference kernel asks none, and a float conv under CMSIS-NN keeps no per-channel arrays.
  const TargetAbi m4 = TflmTargetNamed("cortex-m4");
  EXPECT_TRUE(target::DescribeKernel(m4, g.subgraphs[0], g.subgraphs[0].ops[0]).scratch.empty());
}

TEST(CmsisNn, ConvWithoutItsOptionsIsALowerBound) {
  Graph g = Int8Conv(10);
  g.subgraphs[0].ops[0].int_params.clear();  // as a rewrite may leave it
  const TargetAbi abi = WithTflmKernels(TflmTargetNamed("cortex-m4"), TflmKernels::kCmsisNn);
  EXPECT_FALSE(target::DescribeKernel(abi, g.subgraphs[0], g.subgraphs[0].ops[0]).known);
}

Graph BatchMatmul(DataType type) {
  testing::GraphBuilder b;
  const auto x = b.Typed("x", type, {1, 4, 8});
  const auto y = b.Typed("y", type, {1, 8, 6});
  const auto z = b.Typed("z", type, {1, 4, 6});
  b.Inputs({x, y}).Outputs({z});
  b.Op("BATCH_MATMUL", {x, y}, {z});
  Graph g = b.Build();
  g.subgraphs[0].ops[0].int_params = {0, 0};  // adj_x, adj_y
  return g;
}

// CMSIS-NN's BATCH_MATMUL: modelled (not a lower bound); int8 on MVE asks an int32 per
// output column; the transposed rhs (an eval tensor, dims of rank 3, 48 B of data), the
// output's dims, then the quantization struct.
TEST(CmsisNn, BatchMatmulIsModelled) {
  const Graph g = BatchMatmul(DataType::kInt8);
  EXPECT_EQ(CmsisNnScratch(g, "cortex-m55"), std::vector<Bytes>{24});
  EXPECT_TRUE(CmsisNnScratch(g, "cortex-m4").empty());
  const TargetAbi m4 = WithTflmKernels(TflmTargetNamed("cortex-m4"), TflmKernels::kCmsisNn);
  const target::KernelMemory k = target::DescribeKernel(m4, g.subgraphs[0], g.subgraphs[0].ops[0]);
  EXPECT_TRUE(k.known);
  EXPECT_EQ(k.prepare, (std::vector<Bytes>{12, 16, 48, 16, 24}));
  EXPECT_FALSE(k.prepare_unchecked);
  const TflmArenaFigures f = ModelTflmArena(g, m4, TflmHeadPlanFromRuntime(g, m4));
  EXPECT_FALSE(f.lower_bound());
  EXPECT_TRUE(CmsisNnScratch(BatchMatmul(DataType::kFloat32), "cortex-m55").empty());
}

Graph Int8TransposeConv(std::int64_t in_channels, std::int64_t stride) {
  testing::GraphBuilder b;
  const auto shape = b.Typed("shape", DataType::kInt32, {4});
  b.Last().is_constant = true;
  const auto w = b.Typed("w", DataType::kInt8, {8, 3, 3, in_channels});
  b.Last().is_constant = true;
  const auto x = b.Typed("x", DataType::kInt8, {1, 4, 4, in_channels});
  const auto y = b.Typed("y", DataType::kInt8, {1, 4 * stride, 4 * stride, 8});
  b.Inputs({x}).Outputs({y});
  b.Op("TRANSPOSE_CONV", {shape, w, x}, {y});
  Graph g = b.Build();
  g.subgraphs[0].ops[0].int_params = {0, stride, stride};  // SAME
  return g;
}

// int8 TRANSPOSE_CONV's two buffers: with strides up to 2 and more than 16 input channels a
// convolution over the upsampled input (3x3x20 = 180 columns: 2 x 180 int16 x 2 without MVE,
// 4 x 192 with it) and the reversed filter (20 x 3 x 3 x 8); else int32 columns
// (((4 - 1) x 3 + 3) x 8 x 3 x 4 B) and a request of 0 bytes.
TEST(CmsisNn, Int8TransposeConvAsksItsTwoBuffers) {
  EXPECT_EQ(CmsisNnScratch(Int8TransposeConv(20, 2), "cortex-m4"), (std::vector<Bytes>{720, 1440}));
  EXPECT_EQ(CmsisNnScratch(Int8TransposeConv(20, 2), "cortex-m55"),
            (std::vector<Bytes>{768, 1440}));
  EXPECT_EQ(CmsisNnScratch(Int8TransposeConv(20, 3), "cortex-m4"), (std::vector<Bytes>{1152, 0}));
  // 16 channels: not more than 16, so columns: ((4 - 1) x 2 + 3) x 8 x 3 x 4 B.
  EXPECT_EQ(CmsisNnScratch(Int8TransposeConv(16, 2), "cortex-m4"), (std::vector<Bytes>{864, 0}));
  Graph g = Int8TransposeConv(20, 2);
  g.subgraphs[0].ops[0].int_params.clear();  // no strides: a lower bound
  const TargetAbi abi = WithTflmKernels(TflmTargetNamed("cortex-m4"), TflmKernels::kCmsisNn);
  EXPECT_FALSE(target::DescribeKernel(abi, g.subgraphs[0], g.subgraphs[0].ops[0]).known);
}

// The reader keeps BATCH_MATMUL's adj_x and adj_y (BuiltinOptions 101 in TFLite's schema).
TEST(CmsisNn, BatchMatmulOptionsAreRead) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const Workload w = LoadWorkload((shared / "models/torchaudio_conformer_float.tflite").string());
  ASSERT_TRUE(w.graph);
  std::size_t seen = 0;
  for (const Operator& op : w.graph->subgraphs[0].ops)
    if (op.type == "BATCH_MATMUL") {
      EXPECT_EQ(op.int_params.size(), 2u);
      ++seen;
    }
  EXPECT_EQ(seen, 2u);
}

TEST(CmsisNn, OnlyCortexMTargetsHaveIt) {
  EXPECT_THROW(WithTflmKernels(TflmTargetNamed("host64"), TflmKernels::kCmsisNn), UsageError);
  EXPECT_THROW(TflmKernelsNamed("xnnpack"), UsageError);
  EXPECT_EQ(TflmKernelsNamed("cmsis-nn"), TflmKernels::kCmsisNn);
  EXPECT_EQ(TflmTargetNamed("cortex-m0").extensions, ArmExtensions::kNone);
  EXPECT_EQ(TflmTargetNamed("cortex-m55").extensions, ArmExtensions::kMve);
}

TEST(TflmStructs, ShortEnumsShrinkTheTensorStructs) {
  const TargetAbi m4 = TflmTargetNamed("cortex-m4");
  EXPECT_EQ(target::TfLiteTensorLayout(m4).size, 32u);  // 40 with 4-byte enums (arm32)
  EXPECT_EQ(target::TfLiteEvalTensorLayout(m4).size, 12u);
}

// x -> CONCATENATION of `n` copies -> y.
Graph ConcatOf(std::size_t n) {
  testing::GraphBuilder b;
  const auto x = b.Typed("x", DataType::kFloat32, {1, 4});
  const auto y = b.Typed("y", DataType::kFloat32, {1, 4 * static_cast<std::int64_t>(n)});
  b.Inputs({x}).Outputs({y});
  b.Op("CONCATENATION", std::vector<std::int32_t>(n, x), {y});
  return b.Build();
}

TEST(TflmTarget, AddNAsksAScratchArrayOfInputPointers) {
  testing::GraphBuilder b;
  const auto x = b.Typed("x", DataType::kFloat32, {1, 4});
  const auto y = b.Typed("y", DataType::kFloat32, {1, 4});
  b.Inputs({x}).Outputs({y});
  b.Op("ADD_N", {x, x, x}, {y});
  const Graph g = b.Build();
  for (const char* name : {"host64", "cortex-m4"}) {
    SCOPED_TRACE(name);
    const TargetAbi abi = TflmTargetNamed(name);
    const TflmHeadPlan head = TflmHeadPlanFromRuntime(g, abi);
    EXPECT_EQ(head.scratch, std::vector<std::uint32_t>{1});  // 3 pointers: 24 or 12 bytes
    EXPECT_EQ(target::DescribeKernel(abi, g.subgraphs[0], g.subgraphs[0].ops[0]).scratch,
              std::vector<Bytes>{3 * abi.pointer});
    EXPECT_FALSE(ModelTflmArena(g, abi, head).lower_bound());
  }
}

// x, t -> GREATER_EQUAL -> c; IF(c, x) with then = RELU, else = TANH -> y.
Graph WakeWordLikeIf() {
  testing::GraphBuilder b;
  const auto x = b.Typed("x", DataType::kFloat32, {1, 4});
  const auto t = b.Typed("t", DataType::kFloat32, {1});
  b.Last().is_constant = true;
  const auto c = b.Typed("c", DataType::kBool, {1});
  const auto y = b.Typed("y", DataType::kFloat32, {1, 4});
  b.Inputs({x}).Outputs({y});
  b.Op("GREATER_EQUAL", {x, t}, {c}).Op("IF", {c, x}, {y}, {1, 2});
  for (const char* branch : {"RELU", "TANH"}) {
    b.NextSubgraph();
    const auto in = b.Typed("in", DataType::kFloat32, {1, 4});
    const auto out = b.Typed("out", DataType::kFloat32, {1, 4});
    b.Inputs({in}).Outputs({out}).Op(branch, {in}, {out});
  }
  return b.Build();
}

TEST(TflmTarget, ControlFlowAndComparisonsAreModelled) {
  const Graph g = WakeWordLikeIf();
  for (const char* name : {"host64", "arm32", "cortex-m4"}) {
    SCOPED_TRACE(name);
    const TargetAbi abi = TflmTargetNamed(name);
    const TflmArenaFigures f = ModelTflmArena(g, abi, TflmHeadPlanFromRuntime(g, abi));
    EXPECT_FALSE(f.lower_bound());
    EXPECT_TRUE(f.unsupported.empty());
    // IF: TfLiteIfParams (8 B), an 8 B op data, a view of the condition; GREATER_EQUAL:
    // ComparisonParams (32 B) and views of both inputs.
    const target::KernelMemory k =
        target::DescribeKernel(abi, g.subgraphs[0], g.subgraphs[0].ops[1]);
    EXPECT_EQ(k.builtin_data.size, 8u);
    EXPECT_EQ(k.init, std::vector<Bytes>{8});
    EXPECT_EQ(k.temps.size(), 1u);
    EXPECT_EQ(target::DescribeKernel(abi, g.subgraphs[0], g.subgraphs[0].ops[0]).init,
              std::vector<Bytes>{32});
  }
}

TEST(TflmTarget, Int8TransposeConvAsksAnInt32PerOutputElement) {
  testing::GraphBuilder b;
  const auto shape = b.Typed("shape", DataType::kInt32, {4});
  b.Last().is_constant = true;
  const auto w = b.Typed("w", DataType::kInt8, {8, 3, 3, 4});
  b.Last().is_constant = true;
  const auto x = b.Typed("x", DataType::kInt8, {1, 4, 4, 4});
  const auto y = b.Typed("y", DataType::kInt8, {1, 8, 8, 8});
  b.Inputs({x}).Outputs({y});
  b.Op("TRANSPOSE_CONV", {shape, w, x}, {y});
  const Graph g = b.Build();
  const TargetAbi abi = TflmTargetNamed("arm32");
  const target::KernelMemory k = target::DescribeKernel(abi, g.subgraphs[0], g.subgraphs[0].ops[0]);
  EXPECT_EQ(k.scratch, std::vector<Bytes>{8 * 8 * 8 * 4});
  EXPECT_EQ(k.prepare, (std::vector<Bytes>{32, 32}));  // 8 output channels
  EXPECT_EQ(k.init, std::vector<Bytes>{72});           // ConvParams 56, two ints, two pointers
  const TflmHeadPlan head = TflmHeadPlanFromRuntime(g, abi);
  EXPECT_EQ(head.scratch, std::vector<std::uint32_t>{1});
  EXPECT_FALSE(ModelTflmArena(g, abi, head).lower_bound());
  // CMSIS-NN's int8 buffers depend on strides the reader does not keep: a lower bound.
  const TargetAbi cmsis = WithTflmKernels(TflmTargetNamed("cortex-m4"), TflmKernels::kCmsisNn);
  EXPECT_TRUE(ModelTflmArena(g, cmsis, TflmHeadPlanFromRuntime(g, cmsis)).lower_bound());
}

TEST(TflmRefusals, ConcatenationTakesAtMostTenInputs) {
  EXPECT_TRUE(CheckTflmOps(ConcatOf(10), TflmTargetNamed("host64")).unsupported.empty());
  const TflmOpCheck check = CheckTflmOps(ConcatOf(12), TflmTargetNamed("host64"));
  ASSERT_EQ(check.unsupported.size(), 1u);
  EXPECT_EQ(check.unsupported[0].op, 0);
  EXPECT_EQ(check.unsupported[0].why,
            "CONCATENATION of 12 inputs (TFLM's kernel takes at most 10)");
}

TEST(ArenaCommand, APasteLineForALowerBoundSaysSoOnTheSameLine) {
  const auto dir = testing::TempDir();
  const Graph g = FcThen("READ_VARIABLE");
  ASSERT_TRUE(
      ModelTflmArena(g, TflmTargetNamed("host64"), TflmHeadPlanFromRuntime(g)).lower_bound());
  // Every line the command prints with a paste-ready size carries the warning.
  const std::string model = testing::Quote(testing::WriteFile(dir, "elu.tflite", WriteTflite(g)));
  const testing::CommandResult r = testing::RunMemplan("arena " + model);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t lines = 0;
  for (std::size_t at = r.out.find("kTensorArenaSize"); at != std::string::npos;
       at = r.out.find("kTensorArenaSize", at + 1)) {
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_NE(line.find("LOWER BOUND"), std::string::npos) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 2u) << r.out;
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

TEST(EmbedForTflm, AModelTflmRefusesIsNotWritten) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = testing::TempDir();
  const std::string model = testing::Quote(shared / "models/mobilenet_v1_0.25_128_quant.tflite");
  const auto out = dir / "refused.tflite";
  const testing::CommandResult r =
      testing::RunMemplan("embed " + model + " -o " + testing::Quote(out) + " -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("will refuse this model, so no plan is written"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("op 0 (CONV_2D): CONV_2D on uint8 tensors"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(EmbedForTflm, CmsisNnScratchBuffersNeverPushTheHeadAboveTflmsOwn) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = testing::TempDir();
  for (const char* name : {"person_detect_96_int8", "tinymlperf_resnet8_cifar10_int8",
                           "keyword_scrambled_svdf_int8", "micro_speech_int8"}) {
    SCOPED_TRACE(name);
    const std::string model = testing::Quote(shared / "models" / (std::string(name) + ".tflite"));
    const auto out = dir / (std::string(name) + ".tflite");
    const testing::CommandResult r =
        testing::RunMemplan("embed " + model + " -o " + testing::Quote(out) +
                            " -q --format json --target cortex-m4 --kernels cmsis-nn");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["tflm_kernels"], "cmsis-nn");
    EXPECT_LE(j["tflm_head_bytes"].get<Bytes>(), j["tflm_own_planner_head_bytes"].get<Bytes>());
    // The written model, sized by arena for the same device, has that head.
    const testing::CommandResult back = testing::RunMemplan(
        "arena " + testing::Quote(out) + " --format json --target cortex-m4 --kernels cmsis-nn");
    ASSERT_EQ(back.exit_code, 0) << back.err;
    EXPECT_EQ(nlohmann::json::parse(back.out)["head"], j["tflm_head_bytes"]);
  }
}

}  // namespace
}  // namespace memplan
