// memplan rules, plan --inplace / --reorder and verify of their plan files.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "memplan/records_io.h"
#include "tests/schedule_graphs.h"
#include "tests/test_support.h"

#if __has_include("memplan/tflite.h")
#include "memplan/tflite.h"
#define MEMPLAN_HAVE_TFLITE 1
#endif

namespace memplan {
namespace {

using testing::RunMemplan;
using testing::SubgraphBuilder;
using testing::TempDir;

TEST(RulesCommand, ListsEverySetWithReasons) {
  const auto all = RunMemplan("rules");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  for (const char* set : {"none:", "tflite:", "tflm:", "all:"})
    EXPECT_NE(all.out.find(set), std::string::npos) << set;
  const auto tflm = RunMemplan("rules tflm");
  ASSERT_EQ(tflm.exit_code, 0) << tflm.err;
  EXPECT_NE(tflm.out.find("SOFTMAX "), std::string::npos);
  EXPECT_NE(tflm.out.find("RESHAPE "), std::string::npos);
  EXPECT_EQ(tflm.out.find("SQUEEZE "), std::string::npos);
  EXPECT_EQ(tflm.out.find("tflite:"), std::string::npos);
  EXPECT_NE(tflm.out.find("skips its copy"), std::string::npos);
  EXPECT_EQ(RunMemplan("rules fastest").exit_code, 2);
}

TEST(PlanVariants, RecordsHaveNoOperatorsToShareOrReorder) {
  const auto r = RunMemplan("plan zoo:paper_example --inplace=tflm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("need a model"), std::string::npos) << r.err;
  EXPECT_EQ(RunMemplan("plan zoo:paper_example --reorder").exit_code, 2);
  EXPECT_EQ(RunMemplan("plan zoo:paper_example --inplace=fast").exit_code, 2);
  // Without the options nothing changes.
  const auto plain = RunMemplan("plan zoo:paper_example --inplace=none -f json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto j = nlohmann::json::parse(plain.out);
  EXPECT_FALSE(j.contains("inplace_lower_bound_bytes"));
  for (const auto& row : j["results"]) EXPECT_FALSE(row.contains("variant"));
}

#ifdef MEMPLAN_HAVE_TFLITE
// Two branches, each a RELU after a big convolution, written as .tflite.
std::filesystem::path WriteModel(const std::filesystem::path& dir) {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 64);
  const std::int32_t a1 = b.Tensor("a1", 1024), b1 = b.Tensor("b1", 1024);
  const std::int32_t a2 = b.Tensor("a2", 1024), b2 = b.Tensor("b2", 1024);
  const std::int32_t a3 = b.Tensor("a3", 64), b3 = b.Tensor("b3", 64), out = b.Tensor("out", 64);
  const std::int32_t w = b.Constant("w", 16);
  b.Op("CONV_2D", {in, w, -1}, {a1});
  b.Op("CONV_2D", {in, w, -1}, {b1});
  b.Op("RELU", {a1}, {a2});
  b.Op("RELU", {b1}, {b2});
  b.Op("CONV_2D", {a2, w, -1}, {a3});
  b.Op("CONV_2D", {b2, w, -1}, {b3});
  b.Op("ADD", {a3, b3}, {out});
  b.Inputs({in});
  b.Outputs({out});
  const auto path = dir / "branches.tflite";
  std::ofstream(path, std::ios::binary) << WriteTflite(b.graph());
  return path;
}

TEST(PlanVariants, InPlaceAndReorderRowsBoundsAndVerifiedPlanFiles) {
  const auto dir = TempDir();
  const auto model = WriteModel(dir).string();
  const auto plan = (dir / "plan.json").string();
  const auto r = RunMemplan("plan " + model + " --inplace=tflm --reorder -f json -o " + plan);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // File order: a1 + b1 + a2 at the first RELU; in place: a2 takes a1's memory, and the
  // peak is in + a1 + b1 at the second convolution.
  EXPECT_EQ(j["lower_bound_bytes"], 3 * 1024);
  EXPECT_EQ(j["inplace_lower_bound_bytes"], 64 + 2 * 1024);
  // Depth first, in place: one branch's 1,024 B at a time next to the other's 64 B.
  EXPECT_EQ(j["reordered_lower_bound_bytes"], 64 + 1024 + 64);
  EXPECT_EQ(j["order_proven_optimal"], true);
  EXPECT_EQ(j["order_changed"], true);
  std::set<std::string> variants;
  for (const auto& row : j["results"])
    if (row.contains("variant")) variants.insert(row["variant"].get<std::string>());
  EXPECT_EQ(variants, (std::set<std::string>{"inplace=tflm", "reorder+inplace=tflm"}));
  EXPECT_EQ(j["best"]["variant"], "reorder+inplace=tflm");
  EXPECT_EQ(j["best"]["bytes"], 64 + 1024 + 64);

  const auto file = nlohmann::json::parse(ReadFileBytes(plan));
  EXPECT_EQ(file["variant"], "reorder+inplace=tflm");
  ASSERT_EQ(file["op_order"].size(), 1u);
  EXPECT_EQ(file["op_order"][0].size(), 7u);
  std::size_t shared = 0;
  for (const auto& t : file["tensors"]) shared += t.contains("shares_with") ? 1 : 0;
  EXPECT_EQ(shared, 2u);
  const auto ok = RunMemplan("verify " + model + " --plan " + plan);
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("[reorder+inplace=tflm]"), std::string::npos) << ok.out;

  // A shared tensor moved away from its buffer, and a plan for another order.
  auto moved = file;
  for (auto& t : moved["tensors"])
    if (t.contains("shares_with")) {
      t["offset"] = t["offset"].get<Bytes>() + 64;
      break;
    }
  std::ofstream(dir / "moved.json") << moved.dump();
  const auto bad = RunMemplan("verify " + model + " --plan " + (dir / "moved.json").string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("shares the memory of"), std::string::npos) << bad.out;
  auto reordered = file;
  std::swap(reordered["op_order"][0][0], reordered["op_order"][0][1]);
  std::ofstream(dir / "order.json") << reordered.dump();
  const auto other = RunMemplan("verify " + model + " --plan " + (dir / "order.json").string());
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("another operator order"), std::string::npos) << other.err;
}

TEST(PlanVariants, ConformerBelowTheFixedOrderBound) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto model = (shared / "models" / "torchaudio_conformer_float.tflite").string();
  const auto r =
      RunMemplan("plan " + model + " --inplace=tflite --reorder -s greedy_by_size -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // TFLM's accounting: every buffer rounded to 16 bytes.
  EXPECT_EQ(j["lower_bound_bytes"], 38069408);
  EXPECT_EQ(j["inplace_lower_bound_bytes"], 22257408);
  EXPECT_EQ(j["reordered_lower_bound_bytes"], 22247360);
  EXPECT_EQ(j["order_proven_optimal"], true);
  EXPECT_EQ(j["best"]["bytes"], 22247360);
}
#else
TEST(PlanVariants, InPlaceAndReorderRowsBoundsAndVerifiedPlanFiles) {
  GTEST_SKIP() << "the .tflite reader is not part of this build yet";
}
#endif

}  // namespace
}  // namespace memplan
