// Every figure of the references "order, TFLite models" and "order, ONNX models"
// (docs/testing.md; transcribed): live-byte bounds in raw bytes of the file order, in place with
// each rule set, and the best order, on every model in shared/models. Skips without ../shared, and
// until the model readers are part of the build.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "memplan/inplace.h"
#include "memplan/schedule.h"
#include "tests/model_bindings.h"
#include "tests/test_support.h"

#if __has_include("memplan/tflite.h")
#include "memplan/tflite.h"
#define MEMPLAN_HAVE_TFLITE 1
#endif
#if __has_include("memplan/onnx.h")
#include "memplan/onnx.h"
#define MEMPLAN_HAVE_ONNX 1
#endif

namespace memplan {
namespace {

#ifdef MEMPLAN_HAVE_TFLITE
constexpr bool kHaveTflite = true;
#else
constexpr bool kHaveTflite = false;
#endif
#ifdef MEMPLAN_HAVE_ONNX
constexpr bool kHaveOnnx = true;
#else
constexpr bool kHaveOnnx = false;
#endif

#define MEMPLAN_REQUIRE_READER(have, what) \
  if (!(have)) GTEST_SKIP() << "the " what " reader is not part of this build yet"

Graph LoadModel(const std::filesystem::path& path, const LoadOptions& options = {}) {
#ifdef MEMPLAN_HAVE_ONNX
  if (path.extension() == ".onnx") return LoadOnnx(path, options).graph;
#endif
#ifdef MEMPLAN_HAVE_TFLITE
  if (path.extension() == ".tflite") return ReadTfliteFile(path).graph;
#endif
  ADD_FAILURE() << "no reader for " << path;
  return {};
}

// "order, TFLite models": fixed order, in place tflite / tflm / all, best order without in place,
// best order with in place (the lowest of the three sets).
struct TfliteRow {
  const char* file;
  Bytes fixed, tflite, tflm, all, best_order, best_order_inplace;
};
const TfliteRow kTflite[] = {
    {"blazeface_front_128_float.tflite", 1376256, 1310720, 1310720, 1310720, 1376256, 1310720},
    {"blazeface_full_range_192_fp16w.tflite", 3538944, 2655360, 2655360, 2655360, 3538944, 2655360},
    {"blazepose_landmark_lite_256_fp16w.tflite", 6963488, 6963488, 6963488, 6963488, 6817284,
     6817284},
    {"torchaudio_conformer_float.tflite", 38069400, 22257400, 22257400, 22257400, 38069400,
     22247350},
    // No change from either technique: the file order reaches the op-local bound.
    {"mobilenet_v1_0.25_224_float.tflite", 1204224, 1204224, 1204224, 1204224, 1204224, 1204224},
    {"mobilenet_v1_0.25_128_quant.tflite", 98304, 98304, 98304, 98304, 98304, 98304},
    {"mobilenet_v2_1.0_224_quant.tflite", 1505280, 1505280, 1505280, 1505280, 1505280, 1505280},
    {"mobilenet_v2_1.0_224_int8_pytorch_nchw.tflite", 2451840, 2451840, 2451840, 2451840, 2451840,
     2451840},
    {"deeplabv3_mnv2_dm05_257_float.tflite", 5639592, 5639592, 5639592, 5639592, 5639592, 5639592},
    {"deeplabv3_mnv2_513_pascal_quant.tflite", 7938240, 7938240, 7938240, 7938240, 7938240,
     7938240},
    {"posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite", 3071304, 3071304, 3071304, 3071304,
     3071304, 3071304},
    {"ssd_mobilenet_v1_coco_300_quant_postprocess.tflite", 1620000, 1620000, 1620000, 1620000,
     1620000, 1620000},
    {"person_detect_96_int8.tflite", 55296, 55296, 55296, 55296, 55296, 55296},
    {"micro_speech_int8.tflite", 5960, 5960, 5960, 5960, 5960, 5960},
    {"keyword_scrambled_svdf_int8.tflite", 288, 288, 288, 288, 288, 288},
    {"hello_world_float.tflite", 128, 128, 128, 128, 128, 128},
    {"mnist_lstm_float.tflite", 5376, 5376, 5376, 5376, 5376, 5376},
    {"tinymlperf_vww_96_float.tflite", 221184, 221184, 221184, 221184, 221184, 221184},
    {"tinymlperf_resnet8_cifar10_float.tflite", 196608, 196608, 196608, 196608, 196608, 196608},
    {"tinymlperf_resnet8_cifar10_int8.tflite", 49152, 49152, 49152, 49152, 49152, 49152},
    {"tinymlperf_kws_dscnn_float.tflite", 64000, 64000, 64000, 64000, 64000, 64000},
    {"tinymlperf_ad01_autoencoder_float.tflite", 3072, 3072, 3072, 3072, 3072, 3072},
};

// "order, ONNX models": fixed order, aliases only, the TFLite-like set, all, best order without in
// place, best order with `all`; and the ops `all` needs (leaving any one out loses).
struct OnnxRow {
  const char* file;
  Bytes fixed, aliases, tflite_like, all, best_order, best_order_all;
  std::vector<std::string> needs;
};
const OnnxRow kOnnx[] = {
    {"light_inception_v1.onnx", 6422528, 6422528, 6422528, 4646400, 6422528, 4646400, {"Relu"}},
    {"light_inception_v2.onnx",
     6422528,
     6422528,
     6422528,
     4014080,
     6422528,
     4014080,
     {"BatchNormalization", "Mul", "Add", "Relu"}},
    {"light_squeezenet.onnx", 6308352, 6308352, 6308352, 3928576, 6308352, 3928576, {"Relu"}},
    {"light_resnet50.onnx",
     9633792,
     9633792,
     9633792,
     7225344,
     9633792,
     7225344,
     {"BatchNormalization", "Sum"}},
    {"light_densenet121.onnx",
     8429568,
     8429568,
     8429568,
     7225344,
     8429568,
     7225344,
     {"Mul", "Add", "Relu"}},
    {"light_shufflenet.onnx", 3110912, 3110912, 3110912, 3110912, 2885120, 2885120, {}},
    {"ultraface_rfb_320_simplified.onnx",
     4915200,
     4915200,
     4915200,
     3686400,
     4915200,
     3686400,
     {"Relu"}},
    {"blazeface_short_range_128.onnx",
     1376256,
     1376256,
     1310720,
     1310720,
     1376256,
     1310720,
     {"Add"}},
    {"light_bvlc_alexnet.onnx", 2239488, 2239488, 2239488, 2239488, 2239488, 2239488, {}},
    {"light_vgg19.onnx", 25690112, 25690112, 25690112, 25690112, 25690112, 25690112, {}},
    {"light_zfnet512.onnx", 9124608, 9124608, 9124608, 9124608, 9124608, 9124608, {}},
};

// The best order's peak for a rule set, checking it is proven optimal and kept or found
// as the table says (the file order when it gains nothing).
Bytes BestOrder(const Graph& g, const InPlaceRuleSet* rules, const std::string& what) {
  OrderSearchOptions options;
  options.inplace = rules;
  const OrderSearchResult r = SearchOperatorOrder(g, options);
  const SubgraphOrder& s = r.subgraphs[0];
  EXPECT_TRUE(r.proven_optimal) << what;
  EXPECT_EQ(PeakLiveBytes(g, 0, s.order, rules), s.peak) << what;
  EXPECT_EQ(s.changed, s.peak < s.file_order_peak) << what;
  return s.peak;
}

// Only the ONNX aliases of `all` (the "aliases only" column).
InPlaceRuleSet OnnxAliases() {
  InPlaceRuleSet set = InPlaceRuleSetNamed("all");
  std::erase_if(set.rules, [](const InPlaceRule& r) { return r.kind != ShareKind::kAlias; });
  set.name = "aliases";
  return set;
}

TEST(ScheduleModels, TfliteTableOfSection42) {
  MEMPLAN_REQUIRE_SHARED(shared);
  MEMPLAN_REQUIRE_READER(kHaveTflite, ".tflite");
  const InPlaceRuleSet& tflite = InPlaceRuleSetNamed("tflite");
  const InPlaceRuleSet& tflm = InPlaceRuleSetNamed("tflm");
  const InPlaceRuleSet& all = InPlaceRuleSetNamed("all");
  for (const TfliteRow& row : kTflite) {
    SCOPED_TRACE(row.file);
    const Graph g = LoadModel(shared / "models" / row.file);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}), row.fixed);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}, &tflite), row.tflite);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}, &tflm), row.tflm);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}, &all), row.all);
    EXPECT_EQ(BestOrder(g, nullptr, "no in place"), row.best_order);
    const Bytes best = std::min(
        {BestOrder(g, &tflite, "tflite"), BestOrder(g, &tflm, "tflm"), BestOrder(g, &all, "all")});
    EXPECT_EQ(best, row.best_order_inplace);
  }
}

TEST(ScheduleModels, ConformerNeedsTheAliasTheMaskAddAndSoftmax) {
  MEMPLAN_REQUIRE_SHARED(shared);
  MEMPLAN_REQUIRE_READER(kHaveTflite, ".tflite");
  const Graph g = LoadModel(shared / "models" / "torchaudio_conformer_float.tflite");
  const InPlaceRuleSet& tflite = InPlaceRuleSetNamed("tflite");
  const InPlaceRuleSet& tflm = InPlaceRuleSetNamed("tflm");
  // tflm without SOFTMAX: 38,056,000 in the file order and with the best order.
  const InPlaceRuleSet no_softmax = WithoutOps(tflm, {"SOFTMAX"});
  EXPECT_EQ(PeakLiveBytes(g, 0, {}, &no_softmax), 38056000u);
  EXPECT_EQ(BestOrder(g, &no_softmax, "tflm without SOFTMAX"), 38056000u);
  // Leaving out any one of RESHAPE, ADD, SOFTMAX from tflite.
  const InPlaceRuleSet no_reshape = WithoutOps(tflite, {"RESHAPE"});
  const InPlaceRuleSet no_add = WithoutOps(tflite, {"ADD"});
  const InPlaceRuleSet no_softmax_tflite = WithoutOps(tflite, {"SOFTMAX"});
  EXPECT_EQ(PeakLiveBytes(g, 0, {}, &no_reshape), 38069400u);
  EXPECT_EQ(PeakLiveBytes(g, 0, {}, &no_add), 38069400u);
  EXPECT_EQ(PeakLiveBytes(g, 0, {}, &no_softmax_tflite), 38056000u);
}

TEST(ScheduleModels, OnnxTableOfSection43) {
  MEMPLAN_REQUIRE_SHARED(shared);
  MEMPLAN_REQUIRE_READER(kHaveOnnx, ".onnx");
  const InPlaceRuleSet aliases = OnnxAliases();
  const InPlaceRuleSet& tflite_like = InPlaceRuleSetNamed("tflite");
  const InPlaceRuleSet& all = InPlaceRuleSetNamed("all");
  for (const OnnxRow& row : kOnnx) {
    SCOPED_TRACE(row.file);
    const Graph g = LoadModel(shared / "models" / row.file);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}), row.fixed);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}, &aliases), row.aliases);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}, &tflite_like), row.tflite_like);
    EXPECT_EQ(PeakLiveBytes(g, 0, {}, &all), row.all);
    EXPECT_EQ(BestOrder(g, nullptr, "no in place"), row.best_order);
    EXPECT_EQ(BestOrder(g, &all, "all"), row.best_order_all);
    for (const std::string& op : row.needs) {
      const InPlaceRuleSet without = WithoutOps(all, {op});
      EXPECT_GT(PeakLiveBytes(g, 0, {}, &without), row.all) << "without " << op;
    }
  }
}

TEST(ScheduleModels, DenseNetNeedsNoBatchNormalization) {
  MEMPLAN_REQUIRE_SHARED(shared);
  MEMPLAN_REQUIRE_READER(kHaveOnnx, ".onnx");
  const Graph g = LoadModel(shared / "models" / "light_densenet121.onnx");
  const InPlaceRuleSet without = WithoutOps(InPlaceRuleSetNamed("all"), {"BatchNormalization"});
  EXPECT_EQ(PeakLiveBytes(g, 0, {}, &without), 7225344u);
}

TEST(ScheduleModels, OpLocalBoundProvesTheFileOrderOnAllButFive) {
  MEMPLAN_REQUIRE_SHARED(shared);
  MEMPLAN_REQUIRE_READER(kHaveTflite && kHaveOnnx, ".tflite and .onnx");
  const std::vector<std::string> not_proven = {
      "blazepose_landmark_lite_256_fp16w.tflite", "light_densenet121.onnx", "light_shufflenet.onnx",
      "tiny_random_lfm2_decoder.onnx", "torchaudio_conformer_float.tflite"};
  std::size_t models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared / "models")) {
    const auto ext = entry.path().extension();
    if (ext != ".tflite" && ext != ".onnx") continue;
    ++models;
    const std::string name = entry.path().filename().string();
    const Graph g = LoadModel(entry.path(), testing::SharedModelOptions(name));
    const bool proven = OpLocalBound(g, 0) == PeakLiveBytes(g, 0, {});
    const bool listed = std::find(not_proven.begin(), not_proven.end(), name) != not_proven.end();
    EXPECT_EQ(proven, !listed) << name;
  }
  EXPECT_GE(models, 34u);
}

}  // namespace
}  // namespace memplan
