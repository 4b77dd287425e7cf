// Every .onnx in shared/models read and turned into records, checked against the
// reference tables (docs/testing.md): "ONNX models" (nodes, folded, ops), "models, tflm
// accounting" (tensors, naive, LB offsets) and "models, intermediates only".
#include <gtest/gtest.h>

#include <set>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/onnx.h"
#include "tests/model_bindings.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

// One row of the reference tables (docs/testing.md), transcribed.
struct Figures {
  std::size_t tensors;  // planned records
  Bytes naive;          // Σ sizes
  Bytes lb_offsets;     // largest live total at any step
};

struct ModelRow {
  const char* file;
  std::size_t nodes;   // "ONNX models": "nodes in file"
  std::size_t folded;  // "ONNX models": "folded"
  std::size_t ops;     // "ONNX models" / "models, ...": "ops"
  Figures tflm;        // "models, tflm accounting"
  Figures inter;       // "models, intermediates only"
};

const ModelRow kModels[] = {
    {"light_bvlc_alexnet.onnx", 40, 16, 24, {27, 7'837'504, 2'239'488}, {25, 7'231'392, 2'239'488}},
    {"light_densenet121.onnx",
     1'746,
     1'078,
     668,
     {669, 321'084'320, 8'429'568},
     {667, 320'478'208, 8'429'568}},
    {"light_inception_v1.onnx",
     237,
     94,
     143,
     {145, 37'248'576, 6'422'528},
     {143, 36'642'464, 6'422'528}},
    {"light_inception_v2.onnx",
     916,
     545,
     371,
     {372, 85'146'048, 6'422'528},
     {370, 84'539'936, 6'422'528}},
    {"light_resnet50.onnx",
     415,
     239,
     176,
     {177, 150'853'440, 9'633'792},
     {175, 150'247'328, 9'633'792}},
    {"light_shufflenet.onnx",
     446,
     243,
     203,
     {204, 57'673'984, 3'110'912},
     {202, 57'067'872, 3'110'912}},
    {"light_squeezenet.onnx",
     105,
     39,
     66,
     {68, 29'139'840, 6'308'352},
     {66, 28'533'728, 6'308'352}},
    {"light_vgg19.onnx", 82, 36, 46, {49, 125'779'776, 25'690'112}, {47, 125'173'664, 25'690'112}},
    {"light_zfnet512.onnx", 38, 16, 22, {23, 19'442'112, 9'124'608}, {21, 18'836'000, 9'124'608}},
    {"ultraface_rfb_320_simplified.onnx",
     110,
     0,
     110,
     {111, 26'412'960, 4'915'200},
     {108, 25'385'280, 4'915'200}},
    {"blazeface_short_range_128.onnx",
     95,
     0,
     95,
     {96, 10'156'032, 1'376'256},
     {93, 9'898'496, 1'376'256}},
};

class OnnxModels : public ::testing::TestWithParam<ModelRow> {};

void ExpectFigures(const GraphRecords& records, const Figures& want, std::size_t ops,
                   const char* accounting) {
  SCOPED_TRACE(accounting);
  EXPECT_EQ(records.problem.size(), want.tensors);
  EXPECT_EQ(records.ops, ops);
  EXPECT_EQ(NaiveBytes(records.problem), want.naive);
  EXPECT_EQ(OffsetsLowerBound(records.problem), want.lb_offsets);
}

TEST_P(OnnxModels, MatchTheReferenceFigures) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const ModelRow& row = GetParam();
  const OnnxModel model = LoadOnnx(shared / "models" / row.file);
  EXPECT_EQ(model.file_nodes, row.nodes);
  EXPECT_EQ(model.folded_nodes, row.folded);
  ASSERT_EQ(model.graph.subgraphs.size(), 1u);
  EXPECT_EQ(model.graph.subgraphs[0].ops.size(), row.ops);
  ExpectFigures(RecordsFromGraph(model.graph, {Accounting::kTflm}), row.tflm, row.ops, "tflm");
  ExpectFigures(RecordsFromGraph(model.graph, {Accounting::kIntermediatesOnly}), row.inter, row.ops,
                "inter");
}

INSTANTIATE_TEST_SUITE_P(Anchors, OnnxModels, ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<ModelRow>& row) {
                           std::string name = row.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The table covers every .onnx in shared/models, so a new model cannot go unchecked.
// The table covers every shared model with static shapes; a model with open dimensions
// has no published row and is checked below with the bindings its manifest line gives.
TEST(OnnxModelsTable, CoversEverySharedModel) {
  MEMPLAN_REQUIRE_SHARED(shared);
  std::set<std::string> files, rows;
  for (const auto& entry : std::filesystem::directory_iterator(shared / "models")) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() == ".onnx" && testing::OpenDimensions(file).empty())
      files.insert(file);
  }
  for (const ModelRow& row : kModels) rows.insert(row.file);
  EXPECT_EQ(files, rows);
}

// MANIFEST.tsv: the LFM2 decoder step with batch_size=1, sequence_length=16,
// past_sequence_length=16, total_sequence_length=32 gives 25 tensors and 16 ops; without
// the bindings it cannot be sized, and the message names each open dimension.
TEST(OnnxModelsTable, DecoderWithOpenDimensionsPlansOnceBound) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto path = shared / "models" / "tiny_random_lfm2_decoder.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not in this shared folder";
  const OnnxModel model = LoadOnnx(path, testing::SharedModelOptions(path.filename().string()));
  EXPECT_EQ(RecordsFromGraph(model.graph, {Accounting::kTflm}).problem.size(), 25u);
  EXPECT_EQ(model.graph.subgraphs[0].ops.size(), 16u);
  const std::string message = testing::ErrorMessage<InputError>([&] { LoadOnnx(path); });
  for (const char* dim :
       {"batch_size", "sequence_length", "past_sequence_length", "total_sequence_length"})
    EXPECT_NE(message.find(dim), std::string::npos) << message;
}

// Reference table "ONNX models" (docs/testing.md): the Dropout masks ONNX 1.12 leaves untyped get
// the input's shape and (before opset 10) its element type.
TEST(OnnxModelsTable, DropoutMasksFollowTheProjectRule) {
  MEMPLAN_REQUIRE_SHARED(shared);
  struct Mask {
    const char* file;
    const char* tensor;
    std::vector<std::int64_t> shape;
  };
  const Mask masks[] = {
      {"light_bvlc_alexnet.onnx", "r19", {1, 4096}},
      {"light_bvlc_alexnet.onnx", "r23", {1, 4096}},
      {"light_vgg19.onnx", "r41", {1, 4096}},
      {"light_vgg19.onnx", "r45", {1, 4096}},
      {"light_inception_v1.onnx", "r140", {1, 1024, 1, 1}},
      {"light_squeezenet.onnx", "r62", {1, 512, 13, 13}},
  };
  for (const Mask& mask : masks) {
    SCOPED_TRACE(std::string(mask.file) + " " + mask.tensor);
    const OnnxModel model = LoadOnnx(shared / "models" / mask.file);
    const Tensor* found = nullptr;
    for (const Tensor& t : model.graph.subgraphs[0].tensors)
      if (t.name == mask.tensor) found = &t;
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->type, DataType::kFloat32);
    EXPECT_EQ(found->shape, mask.shape);
    EXPECT_FALSE(found->is_constant);
    EXPECT_EQ(model.inference_passes, 2u);  // the rule filled the masks; one more pass settled
  }
}

}  // namespace
}  // namespace memplan
