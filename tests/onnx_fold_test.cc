// Constant folding for shape inference: the evaluator's operators one by one (pure
// functions on small tensors), then whole built models whose shapes only folding reveals.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "src/formats/onnx/onnx_fold.h"
#include "src/formats/onnx/onnx_isolate.h"
#include "tests/onnx_builder.h"
#include "tests/onnx_sample_models.h"

namespace memplan {
namespace {

using formats::ConstTensor;
using formats::EvaluateNode;
using testing::kOnnxFloat;
using testing::kOnnxInt64;
using testing::OnnxBuilder;
using testing::SetFloatAttribute;
using testing::SetIntAttribute;
using testing::SetIntsAttribute;
using testing::SetStringAttribute;

ConstTensor Ints(std::vector<std::int64_t> dims, std::vector<std::int64_t> values,
                 std::int32_t type = onnx::TensorProto::INT64) {
  ConstTensor t;
  t.type = type;
  t.dims = std::move(dims);
  t.ints = std::move(values);
  return t;
}

ConstTensor Reals(std::vector<std::int64_t> dims, std::vector<double> values) {
  ConstTensor t;
  t.type = onnx::TensorProto::FLOAT;
  t.dims = std::move(dims);
  t.reals = std::move(values);
  return t;
}

onnx::NodeProto Op(const std::string& type) {
  onnx::NodeProto node;
  node.set_op_type(type);
  node.add_output("out");
  return node;
}

std::optional<ConstTensor> Eval(const onnx::NodeProto& node, std::vector<const ConstTensor*> in,
                                std::int64_t opset = 17) {
  return EvaluateNode(node, opset, in);
}

TEST(OnnxFoldEval, ArithmeticBroadcastsAndChecksIntegers) {
  const ConstTensor a = Ints({2}, {12, 12});
  const ConstTensor two = Ints({}, {2});
  auto mul = Eval(Op("Mul"), {&a, &two});
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->dims, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(mul->ints, (std::vector<std::int64_t>{24, 24}));
  const ConstTensor neg = Ints({1}, {-7});
  const ConstTensor three = Ints({1}, {3});
  EXPECT_EQ(Eval(Op("Div"), {&neg, &three})->ints, (std::vector<std::int64_t>{-2}));  // truncates
  EXPECT_EQ(Eval(Op("Mod"), {&neg, &three})->ints,
            (std::vector<std::int64_t>{2}));  // divisor's sign
  auto fmod = Op("Mod");
  SetIntAttribute(fmod, "fmod", 1);
  EXPECT_EQ(Eval(fmod, {&neg, &three})->ints, (std::vector<std::int64_t>{-1}));
  const ConstTensor zero = Ints({1}, {0});
  EXPECT_FALSE(Eval(Op("Div"), {&three, &zero}));  // division by zero does not fold
  const ConstTensor big = Ints({1}, {std::numeric_limits<std::int64_t>::max()});
  EXPECT_FALSE(Eval(Op("Add"), {&big, &three}));  // overflow does not fold
  const ConstTensor i32 = Ints({1}, {2147483647}, onnx::TensorProto::INT32);
  const ConstTensor i32one = Ints({1}, {1}, onnx::TensorProto::INT32);
  EXPECT_FALSE(Eval(Op("Add"), {&i32, &i32one}));  // overflows INT32
  const ConstTensor row = Ints({1, 3}, {1, 2, 3});
  const ConstTensor col = Ints({2, 1}, {10, 20});
  auto sum = Eval(Op("Add"), {&row, &col});
  EXPECT_EQ(sum->dims, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(sum->ints, (std::vector<std::int64_t>{11, 12, 13, 21, 22, 23}));
  const ConstTensor mismatch = Ints({2}, {1, 2});
  EXPECT_FALSE(Eval(Op("Add"), {&row, &mismatch}));  // 3 vs 2 does not broadcast
}

TEST(OnnxFoldEval, CastRoundsThroughTheTargetType) {
  const ConstTensor r = Reals({3}, {1.9, -1.9, 0.1});
  auto cast = Op("Cast");
  SetIntAttribute(cast, "to", onnx::TensorProto::INT64);
  EXPECT_EQ(Eval(cast, {&r})->ints, (std::vector<std::int64_t>{1, -1, 0}));
  auto to_u8 = Op("Cast");
  SetIntAttribute(to_u8, "to", onnx::TensorProto::UINT8);
  const ConstTensor i = Ints({1}, {300});
  EXPECT_EQ(Eval(to_u8, {&i})->ints, (std::vector<std::int64_t>{44}));
  auto to_float = Op("Cast");
  SetIntAttribute(to_float, "to", onnx::TensorProto::FLOAT);
  const auto f = Eval(to_float, {&i});
  EXPECT_EQ(f->type, onnx::TensorProto::FLOAT);
  EXPECT_EQ(f->reals, (std::vector<double>{300.0}));
  auto to_string = Op("Cast");
  SetIntAttribute(to_string, "to", onnx::TensorProto::STRING);
  EXPECT_FALSE(Eval(to_string, {&i}));
}

TEST(OnnxFoldEval, ShapeSliceGatherConcat) {
  const ConstTensor x = Ints({1, 256, 12, 12}, std::vector<std::int64_t>(1 * 256 * 144, 0));
  auto shape = Eval(Op("Shape"), {&x});
  EXPECT_EQ(shape->ints, (std::vector<std::int64_t>{1, 256, 12, 12}));
  auto shape15 = Op("Shape");
  SetIntAttribute(shape15, "start", -2);
  EXPECT_EQ(Eval(shape15, {&x}, 15)->ints, (std::vector<std::int64_t>{12, 12}));
  EXPECT_EQ(Eval(Op("Size"), {&x})->ints, (std::vector<std::int64_t>{1 * 256 * 144}));

  const ConstTensor starts = Ints({1}, {2}), ends = Ints({1}, {4});
  auto slice = Eval(Op("Slice"), {&*shape, &starts, &ends});
  EXPECT_EQ(slice->ints, (std::vector<std::int64_t>{12, 12}));
  const ConstTensor from_end = Ints({1}, {-1}),
                    to_begin = Ints({1}, {std::numeric_limits<std::int64_t>::min()});
  const ConstTensor axes = Ints({1}, {0}), back = Ints({1}, {-2});
  auto reversed = Eval(Op("Slice"), {&*shape, &from_end, &to_begin, &axes, &back});
  EXPECT_EQ(reversed->ints, (std::vector<std::int64_t>{12, 256}));
  auto slice1 = Op("Slice");  // opset 1: attributes
  SetIntsAttribute(slice1, "starts", {1});
  SetIntsAttribute(slice1, "ends", {1000});
  EXPECT_EQ(Eval(slice1, {&*shape}, 9)->ints, (std::vector<std::int64_t>{256, 12, 12}));

  const ConstTensor index = Ints({}, {-1});
  auto gather = Eval(Op("Gather"), {&*shape, &index});
  EXPECT_TRUE(gather->dims.empty());
  EXPECT_EQ(gather->ints, (std::vector<std::int64_t>{12}));
  const ConstTensor outside = Ints({}, {4});
  EXPECT_FALSE(Eval(Op("Gather"), {&*shape, &outside}));
  const ConstTensor m = Ints({2, 3}, {1, 2, 3, 4, 5, 6});
  const ConstTensor cols = Ints({2}, {2, 0});
  auto gather1 = Op("Gather");
  SetIntAttribute(gather1, "axis", 1);
  EXPECT_EQ(Eval(gather1, {&m, &cols})->ints, (std::vector<std::int64_t>{3, 1, 6, 4}));

  const ConstTensor head = Ints({2}, {1, 256});
  auto concat = Op("Concat");
  SetIntAttribute(concat, "axis", 0);
  EXPECT_EQ(Eval(concat, {&head, &*slice})->ints, (std::vector<std::int64_t>{1, 256, 12, 12}));
  auto concat1 = Op("Concat");
  SetIntAttribute(concat1, "axis", 1);
  auto joined = Eval(concat1, {&m, &m});
  EXPECT_EQ(joined->dims, (std::vector<std::int64_t>{2, 6}));
  EXPECT_EQ(joined->ints, (std::vector<std::int64_t>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
}

TEST(OnnxFoldEval, ReshapeUnsqueezeSqueezeTransposeExpandTile) {
  const ConstTensor m = Ints({2, 3}, {1, 2, 3, 4, 5, 6});
  const ConstTensor shape = Ints({2}, {-1, 2});
  EXPECT_EQ(Eval(Op("Reshape"), {&m, &shape})->dims, (std::vector<std::int64_t>{3, 2}));
  const ConstTensor keep = Ints({2}, {0, -1});
  EXPECT_EQ(Eval(Op("Reshape"), {&m, &keep})->dims, (std::vector<std::int64_t>{2, 3}));
  const ConstTensor bad = Ints({1}, {4});
  EXPECT_FALSE(Eval(Op("Reshape"), {&m, &bad}));
  const ConstTensor axes = Ints({1}, {0});
  auto unsq = Eval(Op("Unsqueeze"), {&m, &axes});
  EXPECT_EQ(unsq->dims, (std::vector<std::int64_t>{1, 2, 3}));
  auto unsq11 = Op("Unsqueeze");
  SetIntsAttribute(unsq11, "axes", {-1});
  EXPECT_EQ(Eval(unsq11, {&m}, 11)->dims, (std::vector<std::int64_t>{2, 3, 1}));
  EXPECT_EQ(Eval(Op("Squeeze"), {&*unsq})->dims, (std::vector<std::int64_t>{2, 3}));
  auto t = Eval(Op("Transpose"), {&m});
  EXPECT_EQ(t->dims, (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(t->ints, (std::vector<std::int64_t>{1, 4, 2, 5, 3, 6}));
  const ConstTensor col = Ints({2, 1}, {7, 8});
  const ConstTensor to = Ints({2}, {2, 3});
  EXPECT_EQ(Eval(Op("Expand"), {&col, &to})->ints, (std::vector<std::int64_t>{7, 7, 7, 8, 8, 8}));
  const ConstTensor reps = Ints({2}, {1, 2});
  EXPECT_EQ(Eval(Op("Tile"), {&m, &reps})->ints,
            (std::vector<std::int64_t>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
}

TEST(OnnxFoldEval, RangeConstantOfShapeWhereReduce) {
  const ConstTensor start = Ints({}, {0}), limit = Ints({}, {7}), delta = Ints({}, {3});
  EXPECT_EQ(Eval(Op("Range"), {&start, &limit, &delta})->ints,
            (std::vector<std::int64_t>{0, 3, 6}));
  const ConstTensor shape = Ints({2}, {2, 2});
  auto zeros = Eval(Op("ConstantOfShape"), {&shape});
  EXPECT_EQ(zeros->type, onnx::TensorProto::FLOAT);
  EXPECT_EQ(zeros->reals, (std::vector<double>(4, 0.0)));
  const ConstTensor huge = Ints({2}, {1 << 20, 1 << 20});
  EXPECT_FALSE(Eval(Op("ConstantOfShape"), {&huge}));  // beyond the cap: not folded
  const ConstTensor a = Ints({3}, {1, -1, 3}), b = Ints({3}, {5, 5, 5});
  const ConstTensor minus_one = Ints({}, {-1});
  auto equal = Eval(Op("Equal"), {&a, &minus_one});
  EXPECT_EQ(equal->type, onnx::TensorProto::BOOL);
  EXPECT_EQ(equal->ints, (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(Eval(Op("Where"), {&*equal, &b, &a})->ints, (std::vector<std::int64_t>{1, 5, 3}));
  const ConstTensor dims = Ints({4}, {1, 256, 12, 12});
  EXPECT_EQ(Eval(Op("ReduceProd"), {&dims})->ints, (std::vector<std::int64_t>{36864}));
  auto sum = Op("ReduceSum");
  SetIntAttribute(sum, "keepdims", 0);
  const ConstTensor m = Ints({2, 3}, {1, 2, 3, 4, 5, 6});
  const ConstTensor axis1 = Ints({1}, {1});
  auto rows = Eval(sum, {&m, &axis1}, 13);
  EXPECT_EQ(rows->dims, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(rows->ints, (std::vector<std::int64_t>{6, 15}));
  auto max = Op("ReduceMax");
  SetIntsAttribute(max, "axes", {0});
  EXPECT_EQ(Eval(max, {&m})->ints, (std::vector<std::int64_t>{4, 5, 6}));
}

TEST(OnnxFoldEval, EmptyAndHighRankTensorsStayCheap) {
  // [5, 0] gathered with 2^20 indices: [2^20, 0], no elements.
  const ConstTensor empty = Ints({5, 0}, {});
  const ConstTensor many = Ints({1 << 20}, std::vector<std::int64_t>(1 << 20, 1));
  const auto gathered = Eval(Op("Gather"), {&empty, &many});
  ASSERT_TRUE(gathered);
  EXPECT_EQ(gathered->dims, (std::vector<std::int64_t>{1 << 20, 0}));
  EXPECT_TRUE(gathered->ints.empty());
  // [2^20, 5, 0] along axis 1: [2^20, 2^20, 0] exceeds the cap before its zero.
  const ConstTensor wide = Ints({1 << 20, 5, 0}, {});
  auto gather1 = Op("Gather");
  SetIntAttribute(gather1, "axis", 1);
  EXPECT_FALSE(Eval(gather1, {&wide, &many}));
  onnx::TensorProto deep;  // rank 40: beyond what folding reads
  deep.set_data_type(onnx::TensorProto::INT64);
  for (int i = 0; i < 40; ++i) deep.add_dims(1);
  deep.add_int64_data(7);
  EXPECT_FALSE(formats::FromTensorProto(deep));
  const ConstTensor axes = Ints({40}, std::vector<std::int64_t>(40, 0));
  const ConstTensor one = Ints({}, {1});
  EXPECT_FALSE(Eval(Op("Unsqueeze"), {&one, &axes}));  // would make rank 40
}

TEST(OnnxFoldEval, UnknownOperatorsAndDomainsDoNotFold) {
  const ConstTensor a = Ints({1}, {1});
  EXPECT_FALSE(Eval(Op("NonMaxSuppression"), {&a}));
  EXPECT_FALSE(Eval(Op("Shape"), {nullptr}));
}

TEST(OnnxFoldEval, TensorProtoRoundTripsRawAndTypedData) {
  onnx::TensorProto raw;
  raw.set_data_type(onnx::TensorProto::INT32);
  raw.add_dims(2);
  const std::int32_t values[2] = {-3, 70000};
  raw.set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof(values)));
  auto parsed = formats::FromTensorProto(raw);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->ints, (std::vector<std::int64_t>{-3, 70000}));
  raw.mutable_raw_data()->pop_back();  // length no longer matches: not used
  EXPECT_FALSE(formats::FromTensorProto(raw));
  const auto back = formats::FromTensorProto(formats::ToTensorProto(*parsed, "t"));
  EXPECT_EQ(back->ints, parsed->ints);
  onnx::TensorProto external;
  external.set_data_type(onnx::TensorProto::INT64);
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_FALSE(formats::FromTensorProto(external));
}

const Tensor& Named(const Subgraph& s, const std::string& name) {
  for (const Tensor& t : s.tensors)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

TEST(OnnxFold, ResizeSizesFromShapeSliceConcatAreStatic) {
  const OnnxModel m = ReadOnnx(testing::DetectorUpsampling().Bytes(), "detector.onnx");
  const Subgraph& s = m.graph.subgraphs[0];
  EXPECT_EQ(Named(s, "up_a").shape, (std::vector<std::int64_t>{1, 256, 24, 24}));
  EXPECT_EQ(Named(s, "up_b").shape, (std::vector<std::int64_t>{1, 256, 48, 48}));
  EXPECT_EQ(Named(s, "out").bytes, Bytes{256 * 48 * 48 * 4});
  EXPECT_EQ(Named(s, "sizes_b").shape, (std::vector<std::int64_t>{4}));
  // Shape, Slice, Mul, Concat twice: folded, not run; Relu, two Resizes, Sigmoid run.
  EXPECT_EQ(m.file_nodes, 12u);
  EXPECT_EQ(m.folded_nodes, 8u);
  ASSERT_EQ(s.ops.size(), 4u);
  EXPECT_EQ(s.ops[1].type, "Resize");
  for (const Tensor& t : s.tensors) EXPECT_TRUE(t.is_constant || t.bytes) << t.name;
}

// tf2onnx at opset 11: Resize-11 requires roi and scales, written as empty constants, and
// takes its output size from `sizes` computed on the input's shape (through a float
// Cast, a Floor and a Cast back, as exporters compute scaled sizes).
TEST(OnnxFold, Opset11ResizeWithEmptyScalesTakesFoldedSizes) {
  OnnxBuilder b(11);
  b.Input("x", kOnnxFloat, {"1", "8", "10", "10"}).Output("y");
  b.FloatValues("empty", {});
  b.Int64Initializer("starts", {2}).Int64Initializer("ends", {4}).Int64Initializer("head", {1, 8});
  b.FloatValues("factor", {1.5f});
  b.Node("Shape", {"x"}, {"s"});
  b.Node("Slice", {"s", "starts", "ends"}, {"hw"});
  SetIntAttribute(b.Node("Cast", {"hw"}, {"hw_f"}), "to", kOnnxFloat);
  b.Node("Mul", {"hw_f", "factor"}, {"scaled"});
  b.Node("Floor", {"scaled"}, {"floored"});
  SetIntAttribute(b.Node("Cast", {"floored"}, {"hw_i"}), "to", kOnnxInt64);
  SetIntAttribute(b.Node("Concat", {"head", "hw_i"}, {"sizes"}), "axis", 0);
  b.Node("Resize", {"x", "empty", "empty", "sizes"}, {"y"}, "resize");
  const OnnxModel m = ReadOnnx(b.Bytes(), "tf2onnx.onnx");
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").shape, (std::vector<std::int64_t>{1, 8, 15, 15}));
  EXPECT_EQ(m.graph.subgraphs[0].ops.size(), 1u);  // only the Resize runs
}

// Shape of a weight too large to evaluate still folds: its dims are stored with it.
TEST(OnnxFold, ShapeOfALargeInitializerFolds) {
  OnnxBuilder b(13);
  b.Input("x", kOnnxFloat, {"2048", "1024"}).Output("y");
  auto* w = b.graph().add_initializer();  // 2^21 elements: above what folding reads
  w->set_name("w");
  w->set_data_type(kOnnxFloat);
  w->add_dims(1024);
  w->add_dims(2048);
  w->set_raw_data(std::string(std::size_t{4} << 21, '\0'));
  b.Node("Shape", {"w"}, {"ws"});
  b.Node("Reshape", {"x", "ws"}, {"y"});
  const OnnxModel m = ReadOnnx(b.Bytes(), "weights.onnx");
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").shape, (std::vector<std::int64_t>{1024, 2048}));
}

TEST(OnnxFold, ReshapeExpandTileAndConstantOfShapeGetStaticShapes) {
  OnnxBuilder b(13);
  b.Input("x", kOnnxFloat, {"2", "3", "4"}).Input("y", kOnnxFloat, {"3", "1"});
  b.Output("r").Output("e").Output("t").Output("z");
  b.Int64Initializer("zero", {0}).Int64Initializer("one", {1}).Int64Initializer("big", {9});
  b.Int64Initializer("minus_one", {-1});
  b.Node("Shape", {"x"}, {"xs"});
  b.Node("Gather", {"xs", "zero"}, {"batch"});  // [2]
  SetIntAttribute(b.Node("Concat", {"batch", "minus_one"}, {"flat_shape"}), "axis", 0);
  b.Node("Reshape", {"x", "flat_shape"}, {"r"});    // [2,12]
  b.Node("Slice", {"xs", "one", "big"}, {"tail"});  // [3,4]
  b.Node("Expand", {"y", "tail"}, {"e"});           // [3,4]
  b.Node("Tile", {"x", "xs"}, {"t"});               // [4,9,16]
  b.Node("ConstantOfShape", {"xs"}, {"z"});         // [2,3,4]
  const OnnxModel m = ReadOnnx(b.Bytes(), "shapes.onnx");
  const Subgraph& s = m.graph.subgraphs[0];
  EXPECT_EQ(Named(s, "r").shape, (std::vector<std::int64_t>{2, 12}));
  EXPECT_EQ(Named(s, "e").shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(Named(s, "t").shape, (std::vector<std::int64_t>{4, 9, 16}));
  EXPECT_EQ(Named(s, "z").shape, (std::vector<std::int64_t>{2, 3, 4}));
  // ConstantOfShape of a folded shape is itself computed from constants: it folds.
  EXPECT_TRUE(Named(s, "z").is_constant);
  EXPECT_EQ(m.folded_nodes, 5u);  // Shape, Gather, Concat, Slice, ConstantOfShape
}

// Hostile variants of the models that reach folding and the newer-opset rules: every bit
// flip in the detector and the opset-18 model reads or ends in an InputError.
TEST(OnnxFold, EveryBitFlipOfTheSampleModelsReadsOrFailsCleanly) {
  // In this process, as the fuzzer runs: a crash inside libonnx must fail the test, not
  // become an InputError of the child process that would otherwise run it.
  formats::SetIsolation(false);
  for (const auto& [name, model] : testing::SampleOnnxModels()) {
    const std::string bytes = model.Bytes();
    if (bytes.size() > 1024) continue;                // the larger ones carry mostly weights
    if (name == "extensions_wrapped.onnx") continue;  // it needs a --shape to read at all
    std::size_t read = 0, rejected = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i)
      for (int bit = 0; bit < 8; ++bit) {
        std::string flipped = bytes;
        flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
        try {
          ReadOnnx(flipped, name);
          ++read;
        } catch (const InputError&) {
          ++rejected;
        }
      }
    EXPECT_GT(rejected, 0u) << name;
    EXPECT_GT(read, 0u) << name;
  }
  formats::SetIsolation(true);
}

}  // namespace
}  // namespace memplan
