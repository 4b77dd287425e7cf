// The target model of TensorFlow Lite Micro (include/memplan/tflm_target.h): struct
// layouts per target, and every figure the real TFLM printed for the shared models
// (shared/conformance/tflm_arena_host64.json) reproduced to the byte.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/tflite.h"
#include "memplan/tflm_target.h"
#include "memplan/workload.h"
#include "src/target/tflm_structs.h"
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

TEST(TflmTarget, EveryHost64FigureEqualsRealTflm) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json real = testing::ReadJsonFile(shared / "conformance/tflm_arena_host64.json");
  ASSERT_EQ(real["tflm_commit"].get<std::string>(), std::string(kTflmCommit));
  const TargetAbi host64 = TflmTargetNamed("host64");
  std::size_t models = 0;
  for (const auto& m : real["models"]) {
    const std::string name = m["model"].get<std::string>();
    SCOPED_TRACE(name);
    const Workload w = LoadWorkload((shared / "models" / name).string());
    ASSERT_TRUE(w.graph);
    const TflmArenaFigures f = ModelTflmArena(*w.graph, host64, TflmHeadPlanFromRuntime(*w.graph));
    if (f.lower_bound()) {
      // An op the model does not know: every figure is a lower bound, never above.
      EXPECT_LE(f.tail, m["tail"].get<Bytes>());
      EXPECT_LE(f.minimal_arena, m["minimal_arena_bytes"].get<Bytes>());
      continue;
    }
    ++models;
    EXPECT_EQ(f.head, m["head"].get<Bytes>());
    EXPECT_EQ(f.tail, m["tail"].get<Bytes>());
    EXPECT_EQ(f.arena_used, m["arena_used_bytes"].get<Bytes>());
    EXPECT_EQ(f.minimal_arena, m["minimal_arena_bytes"].get<Bytes>());
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
  EXPECT_EQ(models, real["models"].size());  // no model is a lower bound
}

}  // namespace
}  // namespace memplan
