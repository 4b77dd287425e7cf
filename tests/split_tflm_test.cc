// memplan split against the real TensorFlow Lite Micro (tests/data/tflm_split_*.json, how
// they were measured in each file's "description"): for each model of split's benchmark,
// split writes the very model that was measured, and memplan's whole arena (and head, tail,
// arena_used_bytes) of the original and of the split model equal what the real TFLM
// printed for them; the real outputs of the two were bit-identical.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "memplan/records_io.h"
#include "src/runtime/hash_stream.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

nlohmann::json Measured(const std::string& target) {
  return testing::ReadJsonFile(std::filesystem::path(MEMPLAN_SOURCE_DIR) / "tests/data" /
                               ("tflm_split_" + target + ".json"));
}

const nlohmann::json& EntryFor(const nlohmann::json& measured, const std::string& model) {
  for (const auto& m : measured["models"])
    if (m["model"] == model) return m;
  static const nlohmann::json missing;
  return missing;
}

// memplan arena's figures for `path` equal the real ones in `real`.
void ExpectArenaEqualsReal(const std::filesystem::path& path, const std::string& target,
                           const nlohmann::json& real) {
  const auto r =
      testing::RunMemplan("arena " + testing::Quote(path) + " --target " + target + " -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto a = nlohmann::json::parse(r.out);
  for (const char* key :
       {"minimal_arena_bytes_micro_interpreter", "arena_used_bytes", "head", "tail"})
    EXPECT_EQ(a[key].get<Bytes>(), real[key].get<Bytes>()) << key << " of " << path;
  EXPECT_TRUE(a["unsupported_ops"].empty()) << path;
  EXPECT_FALSE(a["lower_bound"].get<bool>()) << path;
}

// The targets measured (tests/data/tflm_split_TARGET.json); each file says which target
// split chose its models for ("split_target") and which it measured them on ("target").
constexpr const char* kMeasuredTargets[] = {"host64", "arm32"};

// Checks one data file's figures for `model` against the model split wrote to `out`.
void ExpectMeasuredFigures(const std::filesystem::path& original, const std::filesystem::path& out,
                           const nlohmann::json& printed, const std::string& target) {
  const std::string model = original.filename().string();
  SCOPED_TRACE(model + " measured on " + target);
  const nlohmann::json measured = Measured(target);
  const nlohmann::json& m = EntryFor(measured, model);
  ASSERT_FALSE(m.is_null()) << model << " is not in tests/data/tflm_split_" << target << ".json";
  // The real TFLM ran both with the smallest arena; their outputs were the same bits.
  ASSERT_TRUE(m["outputs_identical"].get<bool>());
  ASSERT_TRUE(m["split"]["invoke_at_minimal"].get<bool>());
  ASSERT_EQ(m["original"]["outputs_fnv1a64_by_seed"], m["split"]["outputs_fnv1a64_by_seed"]);
  EXPECT_EQ(fmt::format("{:016x}", runtime::HashText(ReadFileBytes(out))),
            m["split_fnv1a64"].get<std::string>())
      << "split writes another model than the one measured on the real TFLM: measure it again "
         "as docs/below-the-bound.md says (\"Checked on the real TFLM\") and record the "
         "figures in tests/data/tflm_split_"
      << target << ".json";
  // What split says, what `memplan arena` says and what the real TFLM printed agree.
  const nlohmann::json& figures = printed["targets"][target];
  EXPECT_EQ(figures["before"]["arena"].get<Bytes>(),
            m["original"]["minimal_arena_bytes_micro_interpreter"].get<Bytes>());
  EXPECT_EQ(figures["after"]["arena"].get<Bytes>(),
            m["split"]["minimal_arena_bytes_micro_interpreter"].get<Bytes>());
  ExpectArenaEqualsReal(original, target, m["original"]);
  ExpectArenaEqualsReal(out, target, m["split"]);
}

// Models above this size are split only without sanitizers (see the test).
constexpr std::uintmax_t kSanitizedMaxBytes = 1u << 20;

class SplitOnRealTflm : public ::testing::TestWithParam<const char*> {};

// One split per model (for the target the files name), checked against every file.
TEST_P(SplitOnRealTflm, WritesTheMeasuredModelWithTheRealWholeArena) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto original = shared / "models" / (std::string(GetParam()) + ".tflite");
  // The MobileNets' splits take a minute in a release build; a sanitized debug build would
  // run past the test's timeout, and the smaller models cover the same code.
  if (testing::kSanitizedBuild && std::filesystem::file_size(original) > kSanitizedMaxBytes)
    GTEST_SKIP() << original.filename().string() << " is split only in unsanitized builds";
  const std::string split_target = Measured(kMeasuredTargets[0])["split_target"];
  const auto out = testing::TempDir() / ("split." + original.filename().string());
  const auto r =
      testing::RunMemplan("split " + testing::Quote(original) + " -o " + testing::Quote(out) +
                          " --target " + split_target + " -q -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json printed = nlohmann::json::parse(r.out);
  for (const char* target : kMeasuredTargets) {
    const nlohmann::json measured = Measured(target);
    ASSERT_EQ(measured["target"]["name"].get<std::string>(), target);
    ASSERT_EQ(measured["split_target"].get<std::string>(), split_target) << target;
    ExpectMeasuredFigures(original, out, printed, target);
  }
  std::filesystem::remove_all(out.parent_path());
}

std::string Name(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// Split's benchmark (issue 28), the five models TFLM's reference kernels run.
INSTANTIATE_TEST_SUITE_P(Benchmark, SplitOnRealTflm,
                         ::testing::Values("person_detect_96_int8", "tinymlperf_vww_96_float",
                                           "mobilenet_v1_0.25_224_float",
                                           "mobilenet_v2_1.0_224_int8_pytorch_nchw",
                                           "tinymlperf_resnet8_cifar10_int8"),
                         Name);

// The sixth model of the benchmark: TFLM's reference kernels refuse it (uint8), and split
// leaves it as it is (its patches would add uint8 CONCATENATIONs, refused too).
TEST(SplitOnRealTflmRefused, NotCountedModelsAreLeftAsTheyAre) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const nlohmann::json measured = Measured("host64");
  ASSERT_FALSE(measured["not_counted"].empty());
  for (const auto& m : measured["not_counted"]) {
    const std::string model = m["model"].get<std::string>();
    const auto out = testing::TempDir() / ("split." + model);
    const auto r = testing::RunMemplan("split " + testing::Quote(shared / "models" / model) +
                                       " -o " + testing::Quote(out) + " -q");
    EXPECT_EQ(r.exit_code, m["split_exit_code"].get<int>()) << model << r.out << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << model;
    EXPECT_NE(r.out.find("has an op the target refuses"), std::string::npos) << r.out;
    const auto a =
        testing::RunMemplan("arena " + testing::Quote(shared / "models" / model) + " -f json");
    EXPECT_NE(a.exit_code, 0) << model << ": the real TFLM refuses it; memplan arena should";
    std::filesystem::remove_all(out.parent_path());
  }
}

}  // namespace
}  // namespace memplan
