// Every .tflite model in shared/models, read and turned into records, against the
// reference tables "models, tflm accounting" and "models, intermediates only"
// (docs/testing.md), transcribed below. Byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/offsets.h"
#include "memplan/workload.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

// One accounting's row of a reference table (docs/testing.md).
struct Figures {
  std::size_t tensors;
  std::size_t ops;
  Bytes naive;
  Bytes lower_bound;  // LB offsets
  Bytes tflm_greedy;  // TFLM GreedyMemoryPlanner (records in add order)
  Bytes gpu_gbs;      // TFLite GPU greedy by size offsets (records by first, add order)
};

struct ModelRow {
  const char* file;
  Figures tflm;   // "models, tflm accounting"
  Figures inter;  // "models, intermediates only"
};

// The two model tables: tensors, ops, naive, LB offsets, TFLM greedy, GPU gbs
// offsets.
const ModelRow kModels[] = {
    {"mobilenet_v1_0.25_224_float.tflite",
     {32, 31, 5657872, 1204224, 1605632, 1404928},
     {30, 31, 5051720, 1204224, 1204224, 1204224}},
    {"mobilenet_v1_0.25_128_quant.tflite",
     {32, 31, 464080, 98304, 131072, 114688},
     {30, 31, 413906, 98304, 98304, 98304}},
    {"mobilenet_v2_1.0_224_quant.tflite",
     {67, 66, 7049328, 1505280, 1505280, 1505280},
     {65, 66, 6897778, 1505280, 1505280, 1505280}},
    {"mobilenet_v2_1.0_224_int8_pytorch_nchw.tflite",
     {85, 84, 11571936, 2451840, 2451840, 2451840},
     {83, 84, 11420396, 2451840, 2451840, 2451840}},
    {"deeplabv3_mnv2_dm05_257_float.tflite",
     {71, 70, 57423648, 5639616, 5639616, 5639616},
     {69, 70, 51082904, 4530240, 4878720, 4878720}},
    {"deeplabv3_mnv2_513_pascal_quant.tflite",
     {73, 72, 52911120, 7938240, 7938240, 7938240},
     {71, 72, 50016183, 7938240, 7938240, 7938240}},
    {"posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite",
     {38, 38, 15542224, 3071312, 3071312, 3071312},
     {37, 38, 15032757, 3071304, 3071304, 3071304}},
    {"blazeface_front_128_float.tflite",
     {91, 90, 9898496, 1376256, 1376256, 1376256},
     {88, 90, 9640960, 1376256, 1376256, 1376256}},
    {"ssd_mobilenet_v1_coco_300_quant_postprocess.tflite",
     {64, 64, 7916864, 1620000, 1620000, 1620000},
     {63, 64, 7646652, 1620000, 1620000, 1620000}},
    {"person_detect_96_int8.tflite",
     {32, 31, 241072, 55296, 55296, 55296},
     {30, 31, 231812, 55296, 55296, 55296}},
    {"micro_speech_int8.tflite", {5, 4, 7968, 5968, 5968, 5968}, {3, 4, 5964, 5960, 5960, 5960}},
    {"keyword_scrambled_svdf_int8.tflite",
     {16, 15, 752, 288, 288, 288},
     {14, 15, 518, 160, 160, 160}},
    {"hello_world_float.tflite", {4, 3, 160, 128, 128, 128}, {2, 3, 128, 128, 128, 128}},
    {"mnist_lstm_float.tflite", {5, 4, 7712, 5376, 5376, 5376}, {3, 4, 4520, 4480, 4480, 4480}},
    {"tinymlperf_vww_96_float.tflite",
     {32, 31, 1038880, 221184, 294912, 258048},
     {30, 31, 928264, 221184, 221184, 221184}},
    {"tinymlperf_resnet8_cifar10_float.tflite",
     {17, 16, 471648, 196608, 196608, 196608},
     {15, 16, 459304, 196608, 196608, 196608}},
    {"tinymlperf_resnet8_cifar10_int8.tflite",
     {17, 16, 117920, 49152, 49152, 49152},
     {15, 16, 114826, 49152, 49152, 49152}},
    {"tinymlperf_kws_dscnn_float.tflite",
     {14, 13, 290576, 64000, 64000, 64000},
     {12, 13, 288560, 64000, 64000, 64000}},
    {"tinymlperf_ad01_autoencoder_float.tflite",
     {11, 10, 9248, 3072, 3072, 3072},
     {9, 10, 4128, 1024, 1056, 1056}},
    {"torchaudio_conformer_float.tflite",
     {140, 138, 201687136, 38069408, 38069408, 38069408},
     {137, 138, 199539400, 38069400, 38069400, 38069400}},
    {"blazeface_full_range_192_fp16w.tflite",
     {355, 354, 39434080, 3538944, 3538944, 3538944},
     {352, 354, 38835028, 3538944, 3538944, 3538944}},
    {"blazepose_landmark_lite_256_fp16w.tflite",
     {306, 305, 56709040, 6963488, 9060352, 6963488},
     {300, 305, 55020124, 6963488, 9060352, 6963488}},
};

// The two models whose custom-op outputs are stored as [] (the reference note "custom ops",
// docs/testing.md): the bindings memplan asks for, and the figures with them bound (tflm
// accounting).
struct Bound {
  const char* file;
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes;
  std::size_t tensors;
  Bytes naive;
};
const Bound kBound[] = {
    {"ssd_mobilenet_v1_coco_300_quant_postprocess.tflite",
     {{"TFLite_Detection_PostProcess", {1, 10, 4}},
      {"TFLite_Detection_PostProcess:1", {1, 10}},
      {"TFLite_Detection_PostProcess:2", {1, 10}},
      {"TFLite_Detection_PostProcess:3", {1}}},
     68,
     7917136},
    {"posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite",
     {{"poses", {1, 20, 17, 2}}, {"poses:1", {1, 20, 17}}, {"poses:2", {1, 20}}, {"poses:3", {1}}},
     42,
     15546400},
};

const Bound* BoundFor(const std::string& file) {
  for (const Bound& b : kBound)
    if (file == b.file) return &b;
  return nullptr;
}

// The records the tables count: without the kernel-sized outputs the tables skip (‡4).
Problem TableRecords(const Workload& w, const Bound* bound) {
  if (!bound) return w.problem;
  Problem p;
  p.alignment = w.problem.alignment;
  for (std::size_t i = 0; i < w.problem.size(); ++i) {
    const bool skipped = std::any_of(bound->shapes.begin(), bound->shapes.end(),
                                     [&](const auto& s) { return s.first == w.problem.names[i]; });
    if (skipped) continue;
    p.records.push_back(w.problem.records[i]);
    p.names.push_back(w.problem.names[i]);
  }
  return p;
}

// TFLite GPU's planner is handed records sorted by first use, then add order.
Problem ByFirstUse(const Problem& in) {
  std::vector<std::size_t> order(in.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return in.records[a].first < in.records[b].first;
  });
  Problem out;
  out.alignment = in.alignment;
  for (const std::size_t i : order) out.records.push_back(in.records[i]);
  return out;
}

Workload Load(const std::filesystem::path& models, const ModelRow& row, bool inter) {
  LoadOptions options;
  options.intermediates_only = inter;
  if (const Bound* b = BoundFor(row.file); b && !inter) options.shapes = b->shapes;
  return LoadWorkload((models / row.file).string(), options);
}

void CheckFigures(const Workload& w, const Problem& table, const Figures& expect) {
  EXPECT_EQ(table.size(), expect.tensors);
  EXPECT_EQ(w.ops, expect.ops);
  EXPECT_EQ(NaiveBytes(table), expect.naive);
  EXPECT_EQ(OffsetsLowerBound(table), expect.lower_bound);
  EXPECT_EQ(PlanOffsets(ByFirstUse(table), "greedy_by_size").arena_bytes, expect.gpu_gbs);
}

TEST(TfliteModels, TflmAccountingMatchesAnchors) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const ModelRow& row : kModels) {
    SCOPED_TRACE(row.file);
    const Workload w = Load(shared / "models", row, false);
    EXPECT_EQ(w.kind, "tflite");
    EXPECT_EQ(w.problem.alignment, 16u);
    CheckFigures(w, TableRecords(w, BoundFor(row.file)), row.tflm);
    if (const Bound* b = BoundFor(row.file)) {
      // "custom ops": with the bindings, the outputs count too; the peak does not move.
      EXPECT_EQ(w.problem.size(), b->tensors);
      EXPECT_EQ(NaiveBytes(w.problem), b->naive);
      EXPECT_EQ(OffsetsLowerBound(w.problem), row.tflm.lower_bound);
    }
  }
}

TEST(TfliteModels, IntermediatesOnlyMatchesAnchors) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const ModelRow& row : kModels) {
    SCOPED_TRACE(row.file);
    const Workload w = Load(shared / "models", row, true);
    EXPECT_EQ(w.problem.alignment, 1u);
    CheckFigures(w, w.problem, row.inter);
  }
}

TEST(TfliteModels, TflmGreedyMatchesAnchors) {
  MEMPLAN_REQUIRE_SHARED(shared);
  if (!FindOffsetStrategy("tflm_greedy")) GTEST_SKIP() << "no tflm_greedy strategy in this build";
  for (const ModelRow& row : kModels) {
    SCOPED_TRACE(row.file);
    for (const bool inter : {false, true}) {
      const Workload w = Load(shared / "models", row, inter);
      const Problem table = inter ? w.problem : TableRecords(w, BoundFor(row.file));
      EXPECT_EQ(PlanOffsets(table, "tflm_greedy").arena_bytes,
                inter ? row.inter.tflm_greedy : row.tflm.tflm_greedy);
    }
  }
}

// Without flags the outputs are sized from the ops' options: the figures the tables give
// with the bindings of docs/accounting.md, and a note naming each tensor. As stored (TFLM's
// reading) each is one element, 16 bytes in TFLM's accounting.
TEST(TfliteModels, KernelSizedOutputsAreSizedFromTheOpsOptions) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const Bound& b : kBound) {
    SCOPED_TRACE(b.file);
    const Workload w = LoadWorkload((shared / "models" / b.file).string());
    EXPECT_EQ(w.problem.size(), b.tensors);
    EXPECT_EQ(NaiveBytes(w.problem), b.naive);
    ASSERT_EQ(w.notes.size(), 1u);
    for (const auto& [name, shape] : b.shapes)
      EXPECT_NE(w.notes[0].find("'" + name + "' " + ShapeText(shape)), std::string::npos)
          << w.notes[0];
    LoadOptions stored;
    stored.kernel_sized = KernelSizedOutputs::kAsStored;
    const Workload s = LoadWorkload((shared / "models" / b.file).string(), stored);
    EXPECT_EQ(s.problem.size(), b.tensors);
    Bytes kernel_sized = 0, as_stored = 0;
    for (std::size_t i = 0; i < w.problem.size(); ++i)
      for (const auto& bound : b.shapes)
        if (w.problem.names[i] == bound.first) {
          kernel_sized += w.problem.records[i].size;
          as_stored += s.problem.records[i].size;
        }
    EXPECT_EQ(as_stored, 4u * 16u);
    EXPECT_EQ(NaiveBytes(s.problem), b.naive - kernel_sized + as_stored);
  }
}

}  // namespace
}  // namespace memplan
