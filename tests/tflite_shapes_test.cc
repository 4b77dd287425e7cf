// Resizing .tflite models: TensorFlow Lite's output-shape rules on hand-built cases, the
// open dimensions of the shared models planned at batch 1 (today's plan) and 4 (every
// open activation 4x), run --resize end to end, and the errors (docs/tflite-shapes.md).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "memplan/cpu_runtime.h"
#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/runtime_check.h"
#include "memplan/tflite.h"
#include "memplan/tflite_shapes.h"
#include "memplan/workload.h"
#include "memplan_tflite_generated.h"
#include "src/formats/tflite/shape_rules.h"
#include "tests/graph_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using formats::OutputShapes;
using formats::RuleInput;
using formats::Shape;
using formats::WindowOutputSize;

constexpr std::int32_t kSame = 0, kValid = 1;

RuleInput S(Shape shape) {
  return RuleInput{true, std::move(shape), std::nullopt};
}
RuleInput V(Shape shape, std::vector<std::int64_t> values) {
  return RuleInput{true, std::move(shape), std::move(values)};
}
Shape Out(std::string_view op, const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  return OutputShapes(op, o, in, 1).at(0).shape;
}
std::string Refusal(std::string_view op, const TfliteOpOptions& o,
                    const std::vector<RuleInput>& in) {
  return testing::ErrorMessage<InputError>([&] { OutputShapes(op, o, in, 1); });
}

TEST(TfliteShapeRules, WindowSizesSameAndValid) {
  // SAME: ceil(in / stride), whatever the filter.
  EXPECT_EQ(WindowOutputSize(kSame, 49, 10, 2, 1), 25);
  EXPECT_EQ(WindowOutputSize(kSame, 10, 4, 1, 1), 10);
  EXPECT_EQ(WindowOutputSize(kSame, 7, 3, 3, 1), 3);
  // VALID: (in - effective + stride) / stride, effective = (filter - 1) * dilation + 1.
  EXPECT_EQ(WindowOutputSize(kValid, 25, 25, 25, 1), 1);
  EXPECT_EQ(WindowOutputSize(kValid, 10, 3, 1, 1), 8);
  EXPECT_EQ(WindowOutputSize(kValid, 10, 3, 2, 1), 4);
  EXPECT_EQ(WindowOutputSize(kValid, 10, 3, 1, 2), 6);             // effective 5
  EXPECT_EQ(WindowOutputSize(kValid, 11, 3, 2, 2), 4);             // (11 - 5 + 2) / 2
  EXPECT_THROW(WindowOutputSize(kValid, 4, 3, 1, 2), InputError);  // 5 does not fit in 4
  EXPECT_THROW(WindowOutputSize(kSame, 4, 3, 0, 1), InputError);
  EXPECT_THROW(WindowOutputSize(7, 4, 3, 1, 1), InputError);
}

TEST(TfliteShapeRules, ConvolutionsAndPools) {
  TfliteOpOptions conv;
  conv.padding = kSame;
  conv.stride_h = conv.stride_w = 2;
  EXPECT_EQ(Out("CONV_2D", conv, {S({4, 49, 10, 1}), S({64, 10, 4, 1}), S({64})}),
            (Shape{4, 25, 5, 64}));
  conv.padding = kValid;
  conv.stride_h = 1;
  conv.dilation_w = 2;
  EXPECT_EQ(Out("CONV_2D", conv, {S({2, 10, 11, 3}), S({8, 3, 3, 3}), S({8})}),
            (Shape{2, 8, 4, 8}));
  TfliteOpOptions dw;
  dw.padding = kSame;
  EXPECT_EQ(Out("DEPTHWISE_CONV_2D", dw, {S({3, 25, 5, 64}), S({1, 3, 3, 128}), S({128})}),
            (Shape{3, 25, 5, 128}));
  TfliteOpOptions pool;
  pool.padding = kValid;
  pool.filter_h = 25;
  pool.filter_w = 5;
  pool.stride_h = 25;
  pool.stride_w = 5;
  EXPECT_EQ(Out("AVERAGE_POOL_2D", pool, {S({8, 25, 5, 64})}), (Shape{8, 1, 1, 64}));
  pool.padding = kSame;
  pool.filter_h = pool.filter_w = 3;
  pool.stride_h = pool.stride_w = 2;
  EXPECT_EQ(Out("MAX_POOL_2D", pool, {S({1, 15, 16, 8})}), (Shape{1, 8, 8, 8}));
  EXPECT_NE(Refusal("CONV_2D", conv, {S({1, 10, 3}), S({8, 3, 3, 3})}).find("rank 4"),
            std::string::npos);
}

TEST(TfliteShapeRules, FullyConnectedKeepNumDims) {
  TfliteOpOptions fc;
  EXPECT_EQ(Out("FULLY_CONNECTED", fc, {S({4, 64}), S({10, 64}), S({10})}), (Shape{4, 10}));
  // Without keep_num_dims every row of `depth` values is a batch row.
  EXPECT_EQ(Out("FULLY_CONNECTED", fc, {S({2, 3, 8}), S({5, 8})}), (Shape{6, 5}));
  EXPECT_EQ(Out("FULLY_CONNECTED", fc, {S({2, 4, 1, 8}), S({5, 16})}), (Shape{4, 5}));
  fc.keep_num_dims = true;
  EXPECT_EQ(Out("FULLY_CONNECTED", fc, {S({2, 3, 8}), S({5, 8})}), (Shape{2, 3, 5}));
  EXPECT_THROW(Out("FULLY_CONNECTED", fc, {S({2, 4, 1, 8}), S({5, 16})}), InputError);
  fc.keep_num_dims = false;
  EXPECT_NE(Refusal("FULLY_CONNECTED", fc, {S({3, 5}), S({5, 4})}).find("whole number"),
            std::string::npos);
}

TEST(TfliteShapeRules, ArgMaxDropsTheAxis) {
  EXPECT_EQ(Out("ARG_MAX", {}, {S({2, 65, 65, 21}), V({1}, {3})}), (Shape{2, 65, 65}));
  EXPECT_EQ(Out("ARG_MIN", {}, {S({2, 7}), V({}, {-2})}), (Shape{7}));
  EXPECT_NE(Refusal("ARG_MAX", {}, {S({2, 7}), V({1}, {2})}).find("axis"), std::string::npos);
  EXPECT_NE(Refusal("ARG_MAX", {}, {S({2, 7}), S({1})}).find("axis"), std::string::npos);
}

TEST(TfliteShapeRules, ReshapeStretchesOneMinusOne) {
  TfliteOpOptions none;
  EXPECT_EQ(Out("RESHAPE", none, {S({4, 1, 1, 64}), V({2}, {-1, 64})}), (Shape{4, 64}));
  EXPECT_EQ(Out("RESHAPE", none, {S({4, 1, 1, 64}), V({3}, {2, -1, 8})}), (Shape{2, 16, 8}));
  TfliteOpOptions opt;
  opt.has_new_shape = true;
  opt.dims = {-1, 49, 40, 1};
  EXPECT_EQ(Out("RESHAPE", opt, {S({3, 1960})}), (Shape{3, 49, 40, 1}));
  // A shape input that is not 1-D leaves the option in charge.
  EXPECT_EQ(Out("RESHAPE", opt, {S({3, 1960}), S({2, 2})}), (Shape{3, 49, 40, 1}));
  opt.dims = {0};  // a scalar, as old converters wrote it
  EXPECT_EQ(Out("RESHAPE", opt, {S({1, 1})}), Shape{});
  EXPECT_NE(Refusal("RESHAPE", none, {S({4, 64}), V({2}, {-1, -1})}).find("more than one -1"),
            std::string::npos);
  EXPECT_NE(Refusal("RESHAPE", none, {S({4, 64}), V({2}, {1, 64})}).find("cannot be reshaped"),
            std::string::npos);
  EXPECT_NE(Refusal("RESHAPE", none, {S({4, 64}), V({2}, {-1, 60})}).find("cannot be reshaped"),
            std::string::npos);
  // A shape computed at run time from unknown values has no rule here.
  EXPECT_NE(Refusal("RESHAPE", none, {S({4, 64}), S({2})}).find("not a constant"),
            std::string::npos);
}

TEST(TfliteShapeRules, Broadcasting) {
  TfliteOpOptions o;
  EXPECT_EQ(Out("ADD", o, {S({4, 8, 8, 16}), S({4, 8, 8, 16})}), (Shape{4, 8, 8, 16}));
  EXPECT_EQ(Out("MUL", o, {S({4, 8, 8, 16}), S({16})}), (Shape{4, 8, 8, 16}));
  EXPECT_EQ(Out("SUB", o, {S({4, 1, 3}), S({5, 1})}), (Shape{4, 5, 3}));
  EXPECT_EQ(Out("ADD", o, {S({1}), S({0, 3})}), (Shape{0, 3}));
  EXPECT_EQ(Out("SELECT_V2", o, {S({2, 1}), S({1, 3}), S({1})}), (Shape{2, 3}));
  EXPECT_NE(Refusal("ADD", o, {S({4, 3}), S({2, 3})}).find("do not broadcast"), std::string::npos);
}

TEST(TfliteShapeRules, ShapeArithmeticCarriesValues) {
  TfliteOpOptions o;
  // SHAPE -> STRIDED_SLICE (shrink) -> PACK -> RESHAPE: how converters write a flatten.
  const auto shape = OutputShapes("SHAPE", o, {S({6, 4, 4, 2})}, 1).at(0);
  EXPECT_EQ(shape.shape, (Shape{4}));
  EXPECT_EQ(*shape.values, (std::vector<std::int64_t>{6, 4, 4, 2}));
  TfliteOpOptions slice;
  slice.shrink_axis_mask = 1;
  const auto batch =
      OutputShapes("STRIDED_SLICE", slice,
                   {V(shape.shape, *shape.values), V({1}, {0}), V({1}, {1}), V({1}, {1})}, 1)
          .at(0);
  EXPECT_EQ(batch.shape, Shape{});
  EXPECT_EQ(*batch.values, (std::vector<std::int64_t>{6}));
  TfliteOpOptions pack;
  pack.count = 2;
  const auto target = OutputShapes("PACK", pack, {V({}, *batch.values), V({}, {-1})}, 1).at(0);
  EXPECT_EQ(target.shape, (Shape{2}));
  EXPECT_EQ(*target.values, (std::vector<std::int64_t>{6, -1}));
  EXPECT_EQ(Out("RESHAPE", o, {S({6, 4, 4, 2}), V(target.shape, *target.values)}), (Shape{6, 32}));
  // Strided slice of a tensor: masks, negative indices, a negative stride.
  TfliteOpOptions ss;
  ss.begin_mask = 1;
  ss.end_mask = 4;
  EXPECT_EQ(Out("STRIDED_SLICE", ss,
                {S({5, 10, 7}), V({3}, {3, 1, 0}), V({3}, {4, -2, 0}), V({3}, {1, 3, 2})}),
            (Shape{4, 3, 4}));
  TfliteOpOptions rev;
  EXPECT_EQ(Out("STRIDED_SLICE", rev, {S({10}), V({1}, {-1}), V({1}, {-11}), V({1}, {-1})}),
            (Shape{10}));
}

TEST(TfliteShapeRules, LayoutOps) {
  TfliteOpOptions o;
  TfliteOpOptions cat;
  cat.axis = -1;
  EXPECT_EQ(Out("CONCATENATION", cat, {S({2, 3, 4}), S({2, 3, 5})}), (Shape{2, 3, 9}));
  EXPECT_THROW(Out("CONCATENATION", cat, {S({2, 3, 4}), S({2, 2, 5})}), InputError);
  TfliteOpOptions keep;
  keep.keep_dims = true;
  EXPECT_EQ(Out("MEAN", keep, {S({4, 7, 7, 32}), V({2}, {1, 2})}), (Shape{4, 1, 1, 32}));
  EXPECT_EQ(Out("SUM", o, {S({4, 7, 7, 32}), V({2}, {-2, 1})}), (Shape{4, 32}));
  EXPECT_EQ(Out("PAD", o, {S({2, 5, 5, 3}), V({4, 2}, {0, 0, 1, 2, 1, 1, 0, 0})}),
            (Shape{2, 8, 7, 3}));
  EXPECT_EQ(Out("TRANSPOSE", o, {S({2, 5, 7}), V({3}, {0, 2, 1})}), (Shape{2, 7, 5}));
  TfliteOpOptions sq;
  EXPECT_EQ(Out("SQUEEZE", sq, {S({3, 1, 1, 8})}), (Shape{3, 8}));
  sq.dims = {2};
  EXPECT_EQ(Out("SQUEEZE", sq, {S({3, 1, 1, 8})}), (Shape{3, 1, 8}));
  EXPECT_EQ(Out("EXPAND_DIMS", o, {S({3, 8}), V({}, {-1})}), (Shape{3, 8, 1}));
  TfliteOpOptions unpack;
  unpack.axis = 1;
  const auto parts = OutputShapes("UNPACK", unpack, {S({4, 2, 3})}, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].shape, (Shape{4, 3}));
  EXPECT_EQ(Out("RESIZE_BILINEAR", o, {S({2, 8, 8, 3}), V({2}, {16, 12})}), (Shape{2, 16, 12, 3}));
  TfliteOpOptions bmm;
  bmm.adj_y = true;
  EXPECT_EQ(Out("BATCH_MATMUL", bmm, {S({3, 1, 4, 5}), S({2, 6, 5})}), (Shape{3, 2, 4, 6}));
  EXPECT_EQ(Out("SOFTMAX", o, {S({7, 10})}), (Shape{7, 10}));
  EXPECT_EQ(Out("DEQUANTIZE", o, {S({7, 10})}), (Shape{7, 10}));
}

TEST(TfliteShapeRules, UnmodelledOpsAreRefused) {
  EXPECT_FALSE(formats::HasShapeRule("SVDF"));
  EXPECT_TRUE(formats::HasShapeRule("CONV_2D"));
  EXPECT_NE(Refusal("SVDF", {}, {S({1, 4})}).find("no shape rule"), std::string::npos);
  EXPECT_NE(Refusal("MyCustomOp", {}, {S({1, 4})}).find("no shape rule"), std::string::npos);
}

// input [1,4] -> ADD(input, w[4]) -> mid -> RELU -> out, every activation batch-open.
std::string OpenBatchModel(const std::string& last_op = "RELU") {
  testing::GraphBuilder b;
  const auto in = b.Typed("input", DataType::kFloat32, {1, 4});
  const auto w = b.Typed("w", DataType::kFloat32, {4});
  b.Last().is_constant = true;
  const auto mid = b.Typed("mid", DataType::kFloat32, {1, 4});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 4});
  b.Inputs({in}).Outputs({out}).Op("ADD", {in, w}, {mid}).Op(last_op, {mid}, {out});
  TfliteWriteOptions options;
  options.dynamic_batch_signature = true;
  return WriteTflite(b.Build(), options);
}

TEST(TfliteOpenDimensions, NamedByInputAndAxisWithABatchAlias) {
  TfliteModel model = ParseTflite(OpenBatchModel(), "open.tflite");
  const auto open = TfliteOpenDimensions(model);
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].name, "input:0");
  EXPECT_EQ(open[0].stored, 1);
  EXPECT_TRUE(TfliteHasBatchAlias(open));
  const auto binding = BindTfliteDimensions(model, {{"input:0", 3}});
  ASSERT_TRUE(binding.has_value());
  EXPECT_TRUE(binding->warnings.empty());
  EXPECT_TRUE(binding->resized);
  const Subgraph& sg = model.graph.subgraphs[0];
  EXPECT_EQ(sg.tensors[2].shape, (Shape{3, 4}));
  EXPECT_EQ(sg.tensors[3].bytes, 48u);
  EXPECT_EQ(sg.tensors[1].shape, (Shape{4}));  // the constant keeps its shape
}

TEST(TfliteOpenDimensions, UnknownNamesWarnAndBindNothing) {
  TfliteModel model = ParseTflite(OpenBatchModel(), "open.tflite");
  const auto binding = BindTfliteDimensions(model, {{"seq", 3}});
  ASSERT_TRUE(binding.has_value());
  ASSERT_EQ(binding->warnings.size(), 1u);
  EXPECT_NE(binding->warnings.front().find(
                "its open dimensions are input:0 (batch binds them all); its inputs' dimensions "
                "are input:0, input:1"),
            std::string::npos)
      << binding->warnings.front();
  EXPECT_FALSE(binding->resized);
  EXPECT_EQ(model.graph.subgraphs[0].tensors[3].shape, (Shape{1, 4}));
}

// input [1,4] -> RELU -> mid -> RELU -> out; shape_signature [-1,4] with `open_batch`,
// none without.
std::string TwoReluModel(bool open_batch) {
  testing::GraphBuilder b;
  const auto in = b.Typed("input", DataType::kFloat32, {1, 4});
  const auto mid = b.Typed("mid", DataType::kFloat32, {1, 4});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 4});
  b.Inputs({in}).Outputs({out}).Op("RELU", {in}, {mid}).Op("RELU", {mid}, {out});
  TfliteWriteOptions options;
  options.dynamic_batch_signature = open_batch;
  return WriteTflite(b.Build(), options);
}

// As TensorFlow Lite's ResizeInputTensor: any axis of an input, not only the open ones.
TEST(TfliteResize, AStoredFixedDimensionResizesByInputAndAxis) {
  TfliteModel model = ParseTflite(TwoReluModel(true), "open.tflite");
  // input:1 is fixed (4) in the signature: the signature's fixed sizes no longer hold, its
  // rank still does.
  const auto binding = BindTfliteDimensions(model, {{"batch", 2}, {"input:1", 6}});
  ASSERT_TRUE(binding.has_value());
  EXPECT_TRUE(binding->warnings.empty());
  EXPECT_TRUE(binding->resized);
  EXPECT_EQ(model.graph.subgraphs[0].tensors[1].shape, (Shape{2, 6}));
  EXPECT_EQ(model.graph.subgraphs[0].tensors[2].bytes, 48u);
}

TEST(TfliteResize, BatchIsAxisZeroOfEveryInputOfAFixedModel) {
  TfliteModel model = ParseTflite(TwoReluModel(false), "fixed.tflite");
  EXPECT_TRUE(TfliteOpenDimensions(model).empty());
  const auto binding = BindTfliteDimensions(model, {{"batch", 3}});
  ASSERT_TRUE(binding.has_value());
  EXPECT_TRUE(binding->warnings.empty());
  EXPECT_TRUE(binding->resized);
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(model.graph.subgraphs[0].tensors[t].shape, (Shape{3, 4})) << t;
    EXPECT_EQ(model.graph.subgraphs[0].tensors[t].bytes, 48u) << t;
  }
  // An axis 0 stored at another size than 1 is no batch: `batch` leaves it, INPUT:0 binds it.
  testing::GraphBuilder b;
  const auto frames = b.Typed("frames", DataType::kFloat32, {335, 80});
  const auto y = b.Typed("y", DataType::kFloat32, {335, 80});
  b.Inputs({frames}).Outputs({y}).Op("RELU", {frames}, {y});
  TfliteModel seq = ParseTflite(WriteTflite(b.Build()), "frames.tflite");
  const auto kept = BindTfliteDimensions(seq, {{"batch", 1}});
  ASSERT_TRUE(kept.has_value());
  ASSERT_EQ(kept->warnings.size(), 1u);
  EXPECT_NE(kept->warnings.front().find("dimension batch=1 binds nothing"), std::string::npos);
  EXPECT_FALSE(kept->resized);
  const auto frames_bound = BindTfliteDimensions(seq, {{"frames:0", 100}});
  ASSERT_TRUE(frames_bound.has_value());
  EXPECT_EQ(seq.graph.subgraphs[0].tensors[1].shape, (Shape{100, 80}));
  // The stored sizes bound to themselves change nothing and propagate nothing.
  TfliteModel same = ParseTflite(TwoReluModel(false), "fixed.tflite");
  const auto unchanged = BindTfliteDimensions(same, {{"batch", 1}, {"input:1", 4}});
  ASSERT_TRUE(unchanged.has_value());
  EXPECT_FALSE(unchanged->resized);
  // A name that is no input axis says what the inputs' axes are.
  const auto none = BindTfliteDimensions(same, {{"input:2", 3}});
  ASSERT_TRUE(none.has_value());
  ASSERT_EQ(none->warnings.size(), 1u);
  EXPECT_NE(none->warnings.front().find("it has no open dimension; its inputs' dimensions are "
                                        "input:0, input:1 (batch binds every axis 0 stored as 1)"),
            std::string::npos)
      << none->warnings.front();
}

TEST(TfliteResize, AnOpWithoutRuleOnAFixedModelIsNamed) {
  testing::GraphBuilder b;
  const auto in = b.Typed("input", DataType::kFloat32, {1, 4});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 4});
  b.Inputs({in}).Outputs({out}).Op("MyCustomOp", {in}, {out});
  TfliteModel model = ParseTflite(WriteTflite(b.Build()), "custom.tflite");
  const std::string message = testing::ErrorMessage<InputError>([&] {
    BindTfliteDimensions(model, {{"batch", 2}});
  });
  EXPECT_NE(message.find("custom.tflite: cannot resize: op 0 (MyCustomOp), output tensor 1 "
                         "'out': memplan has no shape rule for this operator"),
            std::string::npos)
      << message;
}

TEST(TfliteOpenDimensions, OpWithoutRuleStopsTheResize) {
  TfliteModel model = ParseTflite(OpenBatchModel("MyCustomOp"), "custom.tflite");
  const std::string message = testing::ErrorMessage<InputError>([&] {
    BindTfliteDimensions(model, {{"batch", 2}});
  });
  EXPECT_NE(message.find("custom.tflite: cannot resize: op 1 (MyCustomOp), output tensor 3 "
                         "'out': memplan has no shape rule"),
            std::string::npos)
      << message;
}

TEST(TfliteOpenDimensions, ARuleThatContradictsTheSignatureStops) {
  std::string bytes = OpenBatchModel();
  // mid's signature says [-1, 5]; ADD gives [N, 4].
  tflite::fb::GetMutableModel(bytes.data())
      ->mutable_subgraphs()
      ->GetMutableObject(0)
      ->mutable_tensors()
      ->GetMutableObject(2)
      ->mutable_shape_signature()
      ->Mutate(1, 5);
  TfliteModel model = ParseTflite(bytes, "bad.tflite");
  const std::string message = testing::ErrorMessage<InputError>([&] {
    BindTfliteDimensions(model, {{"batch", 2}});
  });
  EXPECT_NE(message.find("'mid': the rule gives shape [2,4], which contradicts its "
                         "shape_signature [-1,5]"),
            std::string::npos)
      << message;
}

constexpr const char* kOpenBatchModels[] = {"hello_world_float",
                                            "tinymlperf_ad01_autoencoder_float",
                                            "tinymlperf_kws_dscnn_float",
                                            "tinymlperf_resnet8_cifar10_float",
                                            "tinymlperf_resnet8_cifar10_int8",
                                            "tinymlperf_vww_96_float"};

TEST(TfliteSharedModels, BatchOnePlansAsTodayBatchFourIsFourTimes) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const char* name : kOpenBatchModels) {
    SCOPED_TRACE(name);
    const std::string path = (shared / "models" / (std::string(name) + ".tflite")).string();
    const TfliteModel stored = ReadTfliteFile(path);
    const auto open = TfliteOpenDimensions(stored);
    ASSERT_FALSE(open.empty());
    EXPECT_TRUE(TfliteHasBatchAlias(open));
    // Batch 1: the records planned today, one for one.
    LoadOptions one;
    one.dims = {{"batch", 1}};
    const Workload today = LoadWorkload(path, {});
    const Workload at_one = LoadWorkload(path, one);
    ASSERT_EQ(today.problem.records.size(), at_one.problem.records.size());
    for (std::size_t r = 0; r < today.problem.records.size(); ++r) {
      EXPECT_EQ(today.problem.records[r].size, at_one.problem.records[r].size) << r;
      EXPECT_EQ(today.problem.records[r].first, at_one.problem.records[r].first) << r;
      EXPECT_EQ(today.problem.records[r].last, at_one.problem.records[r].last) << r;
    }
    // Batch 4: every tensor open in its signature is 4x, every other one unchanged, and
    // every shape agrees with its signature.
    TfliteModel four = stored;
    ASSERT_TRUE(BindTfliteDimensions(four, {{"batch", 4}}).has_value());
    const Subgraph& before = stored.graph.subgraphs[0];
    const Subgraph& after = four.graph.subgraphs[0];
    std::size_t grown = 0;
    for (std::size_t t = 0; t < before.tensors.size(); ++t) {
      const auto& signature = stored.shape_signatures[0][t];
      const bool open_tensor = std::find(signature.begin(), signature.end(), -1) != signature.end();
      ASSERT_TRUE(before.tensors[t].bytes && after.tensors[t].bytes) << t;
      if (open_tensor && !before.tensors[t].is_constant) {
        EXPECT_EQ(*after.tensors[t].bytes, 4 * *before.tensors[t].bytes) << before.tensors[t].name;
        ++grown;
      } else {
        EXPECT_EQ(*after.tensors[t].bytes, *before.tensors[t].bytes) << before.tensors[t].name;
      }
      if (signature.empty()) continue;
      ASSERT_EQ(signature.size(), after.tensors[t].shape.size()) << t;
      for (std::size_t k = 0; k < signature.size(); ++k)
        EXPECT_EQ(after.tensors[t].shape[k], signature[k] == -1 ? 4 : signature[k])
            << before.tensors[t].name;
    }
    EXPECT_GT(grown, 0u);
  }
}

// MobileNet v1 is stored at batch 1 with no open dimension; batch 2 doubles every activation
// and leaves every constant as it is.
TEST(TfliteSharedModels, StaticMobilenetAtBatchTwoIsTwiceTheActivations) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string path = (shared / "models" / "mobilenet_v1_0.25_224_float.tflite").string();
  const TfliteModel stored = ReadTfliteFile(path);
  ASSERT_TRUE(TfliteOpenDimensions(stored).empty());
  TfliteModel two = stored;
  const auto binding = BindTfliteDimensions(two, {{"batch", 2}});
  ASSERT_TRUE(binding.has_value());
  EXPECT_TRUE(binding->warnings.empty());
  EXPECT_TRUE(binding->resized);
  const Subgraph& before = stored.graph.subgraphs[0];
  const Subgraph& after = two.graph.subgraphs[0];
  std::size_t activations = 0;
  for (std::size_t t = 0; t < before.tensors.size(); ++t) {
    ASSERT_TRUE(before.tensors[t].bytes && after.tensors[t].bytes) << t;
    if (before.tensors[t].is_constant) {
      EXPECT_EQ(*after.tensors[t].bytes, *before.tensors[t].bytes) << before.tensors[t].name;
      continue;
    }
    ++activations;
    EXPECT_EQ(*after.tensors[t].bytes, 2 * *before.tensors[t].bytes) << before.tensors[t].name;
    EXPECT_EQ(after.tensors[t].shape[0], 2) << before.tensors[t].name;
  }
  EXPECT_EQ(activations, 32u);  // the input and 31 op outputs
  // Through the command's loader the records grow likewise.
  LoadOptions at_two;
  at_two.dims = {{"batch", 2}};
  const Workload w = LoadWorkload(path, at_two);
  const Workload w1 = LoadWorkload(path, {});
  ASSERT_EQ(w.problem.records.size(), w1.problem.records.size());
  Bytes total = 0, total1 = 0;
  for (std::size_t r = 0; r < w.problem.records.size(); ++r) {
    total += w.problem.records[r].size;
    total1 += w1.problem.records[r].size;
  }
  EXPECT_GT(total, 2 * total1 - 16 * w.problem.records.size());
  EXPECT_LE(total, 2 * total1);
}

// Corrupt bytes in a model with an open batch: reading and resizing it either works or is an
// InputError, never a crash (the sanitizer build runs this too).
TEST(TfliteSharedModels, CorruptedModelsResizeOrFailCleanly) {
  MEMPLAN_REQUIRE_SHARED(shared);
  std::mt19937_64 rng(17);
  std::size_t resized = 0;
  for (const char* name : {"hello_world_float", "tinymlperf_kws_dscnn_float"}) {
    const std::string original = ReadFileBytes(shared / "models" / (std::string(name) + ".tflite"));
    for (int trial = 0; trial < 400; ++trial) {
      std::string bytes = original;
      for (int k = 0; k < 1 + trial % 4; ++k)
        bytes[rng() % bytes.size()] = static_cast<char>(rng() % 256);
      try {
        TfliteModel model = ParseTflite(bytes, "corrupt.tflite");
        if (BindTfliteDimensions(model, {{"batch", 3}})) ++resized;
      } catch (const InputError&) {
      }
    }
  }
  EXPECT_GT(resized, 0u);  // some corruptions leave a model that still resizes
}

TEST(TfliteSharedModels, ResizeSessionMatchesNaiveAtEveryStep) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const char* name : {"tinymlperf_resnet8_cifar10_int8", "tinymlperf_kws_dscnn_float"}) {
    SCOPED_TRACE(name);
    const std::string path = (shared / "models" / (std::string(name) + ".tflite")).string();
    ResizeSession session;
    Bytes previous = 0;
    for (const std::int64_t batch : {1, 3, 8, 3}) {
      LoadOptions load;
      load.dims = {{"batch", batch}};
      const Workload w = LoadWorkload(path, load);
      ASSERT_TRUE(w.graph);
      const ResizeStepReport r = session.Step(*w.graph, VerificationKernels());
      EXPECT_TRUE(r.outputs_match_naive) << batch << ": " << r.difference;
      EXPECT_LE(r.arena_bytes, r.tflite_cpu_arena_bytes);
      EXPECT_GE(r.arena_bytes, r.lower_bound_bytes);
      ASSERT_FALSE(r.input_shapes.empty());
      EXPECT_EQ(r.input_shapes[0].second[0], batch);
      if (batch == 8) EXPECT_GT(r.arena_bytes, previous);
      previous = r.arena_bytes;
    }
  }
}

TEST(TfliteResizeCli, RunResizeInspectAndErrors) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model =
      testing::Quote(shared / "models" / "tinymlperf_resnet8_cifar10_float.tflite");
  const auto run = testing::RunMemplan("run " + model + " --resize batch=1,2,4,8 --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j["steps"].size(), 4u);
  std::uint64_t first = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& s = j["steps"][k];
    EXPECT_TRUE(s["outputs_match_naive"].get<bool>());
    EXPECT_EQ(s["shapes"]["input_1"][0], 1 << k);
    const auto arena = s["arena_bytes"].get<std::uint64_t>();
    if (k == 0) first = arena;
    EXPECT_EQ(arena, first << k);  // every activation scales with the batch
  }
  const auto by_name = testing::RunMemplan("run " + model + " --resize input_1:0=2 --format json");
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(nlohmann::json::parse(by_name.out)["steps"][0]["arena_bytes"].get<std::uint64_t>(),
            2 * first);
  const auto unknown = testing::RunMemplan("run " + model + " --resize seq=1,2");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("input_1:0"), std::string::npos) << unknown.err;
  const auto inspect = testing::RunMemplan("inspect " + model + " --format json");
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const auto ij = nlohmann::json::parse(inspect.out);
  ASSERT_EQ(ij["open_dimensions"].size(), 1u);
  EXPECT_EQ(ij["open_dimensions"][0]["name"], "input_1:0");
  EXPECT_TRUE(ij["batch_alias"].get<bool>());
  ASSERT_GE(ij["input_dimensions"].size(), 2u);
  EXPECT_TRUE(ij["input_dimensions"][0]["open"].get<bool>());
  EXPECT_FALSE(ij["input_dimensions"][1]["open"].get<bool>());
  const auto plan = testing::RunMemplan("plan " + model + " --dim batch=4 --format json");
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
}

// A model with no open dimension lists its inputs' axes, which --dim resizes.
TEST(TfliteResizeCli, InspectListsTheAxesOfAStaticModel) {
  const auto dir = testing::TempDir();
  const auto path = testing::WriteFile(dir, "fixed.tflite", TwoReluModel(false));
  auto r = testing::RunMemplan("inspect " + testing::Quote(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("input dimensions (--dim NAME=N resizes them): input:0 (stored 1), "
                       "input:1 (stored 4); --dim batch=N binds every axis 0 stored as 1"),
            std::string::npos)
      << r.out;
  r = testing::RunMemplan("inspect " + testing::Quote(path) + " --dim input:1=6 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["input_dimensions"][1]["stored"], 4);
  EXPECT_EQ(j["planned"]["bytes"], 3 * 32);  // three [1,6] float tensors, 16-byte units
}

TEST(TfliteResizeCli, OpWithoutRuleExitsOne) {
  const auto dir = testing::TempDir();
  const auto path = testing::WriteFile(dir, "custom.tflite", OpenBatchModel("MyCustomOp"));
  const auto r = testing::RunMemplan("plan " + testing::Quote(path) + " --dim batch=2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("op 1 (MyCustomOp)"), std::string::npos) << r.err;
  // Without --dim the stored shapes are planned, as before.
  EXPECT_EQ(testing::RunMemplan("plan " + testing::Quote(path)).exit_code, 0);
}

}  // namespace
}  // namespace memplan
