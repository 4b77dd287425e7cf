// The ONNX reader on small models built in code: the Graph it produces (tensor order,
// constants, folding, shapes, the Dropout rule, bindings) and the errors it reports.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "src/formats/onnx/onnx_isolate.h"
#include "tests/onnx_builder.h"
#include "tests/onnx_sample_models.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::kOnnxBool;
using testing::kOnnxFloat;
using testing::kOnnxString;
using testing::OnnxBuilder;
using testing::SetConstantValue;
using testing::SetGraphAttribute;

OnnxModel Read(const OnnxBuilder& b, const LoadOptions& options = {}) {
  return ReadOnnx(b.Bytes(), "test.onnx", options);
}

std::vector<std::string> Names(const Subgraph& s) {
  std::vector<std::string> names;
  for (const Tensor& t : s.tensors) names.push_back(t.name);
  return names;
}

const Tensor& Named(const Subgraph& s, const std::string& name) {
  for (const Tensor& t : s.tensors)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

// x [1,4] -> Relu -> y; y + w (initializer) -> z (graph output).
OnnxBuilder TwoOps() {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "4"}).FloatInitializer("w", {1, 4}).Output("z");
  b.Node("Relu", {"x"}, {"y"}, "relu");
  b.Node("Add", {"y", "w"}, {"z"}, "add");
  return b;
}

TEST(OnnxReader, MapsTensorsOpsAndConstants) {
  const OnnxModel m = Read(TwoOps());
  EXPECT_EQ(m.graph.format, "onnx");
  EXPECT_EQ(m.graph.source, "test.onnx");
  EXPECT_EQ(m.file_nodes, 2u);
  EXPECT_EQ(m.folded_nodes, 0u);
  EXPECT_EQ(m.opset, 13);
  ASSERT_EQ(m.graph.subgraphs.size(), 1u);
  const Subgraph& s = m.graph.subgraphs[0];
  // Graph inputs, then initializers, then node outputs in node order.
  EXPECT_EQ(Names(s), (std::vector<std::string>{"x", "w", "y", "z"}));
  EXPECT_EQ(s.inputs, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(s.outputs, (std::vector<std::int32_t>{3}));
  ASSERT_EQ(s.ops.size(), 2u);
  EXPECT_EQ(s.ops[0].type, "Relu");
  EXPECT_EQ(s.ops[0].name, "relu");
  EXPECT_EQ(s.ops[0].inputs, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(s.ops[0].outputs, (std::vector<std::int32_t>{2}));
  EXPECT_EQ(s.ops[1].inputs, (std::vector<std::int32_t>{2, 1}));
  EXPECT_EQ(s.ops[1].outputs, (std::vector<std::int32_t>{3}));
  EXPECT_FALSE(s.tensors[0].is_constant);
  EXPECT_TRUE(s.tensors[1].is_constant);
  for (const Tensor& t : s.tensors) {
    EXPECT_EQ(t.type, DataType::kFloat32) << t.name;
    EXPECT_EQ(t.shape, (std::vector<std::int64_t>{1, 4})) << t.name;
    EXPECT_EQ(t.bytes, Bytes{16}) << t.name;
  }
}

TEST(OnnxReader, OmittedOptionalInputIsMinusOne) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "8"}).Output("y");
  b.Int64Initializer("pads", {0, 1, 0, 1});
  b.Node("Pad", {"x", "pads", ""}, {"y"}, "pad");
  const Subgraph s = Read(b).graph.subgraphs[0];
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].inputs, (std::vector<std::int32_t>{0, 1, -1}));
  EXPECT_EQ(Named(s, "y").shape, (std::vector<std::int64_t>{1, 10}));
}

TEST(OnnxReader, FoldsEverythingComputedFromConstants) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"2", "3"}).Output("out").Output("x_shape");
  b.Int64Initializer("shape", {2, 3});
  SetConstantValue(b.Node("Constant", {}, {"c"}), {3, 2});
  b.Node("ConstantOfShape", {"shape"}, {"w"});
  b.Node("Reshape", {"c", "shape"}, {"r"});    // constants only: folded
  b.Node("Mul", {"r", "w"}, {"cw"});           // constant x constant: folded
  b.Node("Shape", {"x"}, {"x_shape"});         // shape of a static tensor: folded
  b.Node("Add", {"x", "cw"}, {"out"}, "add");  // reads the graph input: runs
  const OnnxModel m = Read(b);
  EXPECT_EQ(m.file_nodes, 6u);
  EXPECT_EQ(m.folded_nodes, 5u);
  const Subgraph& s = m.graph.subgraphs[0];
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].name, "add");
  for (const char* name : {"shape", "c", "w", "cw", "x_shape", "r"})
    EXPECT_TRUE(Named(s, name).is_constant) << name;
  EXPECT_FALSE(Named(s, "out").is_constant);
  EXPECT_EQ(Named(s, "out").bytes, Bytes{24});
}

TEST(OnnxReader, ShapeOfADynamicTensorIsNotFolded) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"N", "3"}).Output("s");
  b.Node("Shape", {"x"}, {"s"}, "shape");
  LoadOptions options;
  options.dims = {{"N", 5}};
  EXPECT_EQ(Read(b, options).folded_nodes, 1u);  // bound: static, so folded
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("'x'"), std::string::npos) << error;  // unbound: x needs a size
}

TEST(OnnxReader, RandomGeneratorsAreNotFolded) {
  OnnxBuilder b;
  b.Output("r");
  auto& node = b.Node("RandomNormal", {}, {"r"}, "noise");
  auto* shape = node.add_attribute();
  shape->set_name("shape");
  shape->set_type(onnx::AttributeProto::INTS);
  shape->add_ints(2);
  shape->add_ints(2);
  const OnnxModel m = Read(b);
  EXPECT_EQ(m.folded_nodes, 0u);
  EXPECT_EQ(m.graph.subgraphs[0].ops.size(), 1u);
}

TEST(OnnxReader, DropoutMaskBeforeOpset10HasTheInputsTypeAndShape) {
  OnnxBuilder b(9);
  b.Input("x", kOnnxFloat, {"1", "7"}).Output("y");
  b.Node("Dropout", {"x"}, {"y", "mask"}, "drop");
  const OnnxModel m = Read(b);
  EXPECT_EQ(m.inference_passes, 2u);  // the rule fills the mask; the second pass settles
  const Tensor& mask = Named(m.graph.subgraphs[0], "mask");
  EXPECT_EQ(mask.type, DataType::kFloat32);
  EXPECT_EQ(mask.shape, (std::vector<std::int64_t>{1, 7}));
  EXPECT_EQ(mask.bytes, Bytes{28});
  EXPECT_FALSE(mask.is_constant);
}

TEST(OnnxReader, DropoutMaskFromOpset12IsBool) {
  OnnxBuilder b(12);
  b.Input("x", kOnnxFloat, {"1", "7"}).Output("y");
  b.Node("Dropout", {"x"}, {"y", "mask"}, "drop");
  const Tensor mask = Named(Read(b).graph.subgraphs[0], "mask");
  EXPECT_EQ(mask.type, DataType::kBool);
  EXPECT_EQ(mask.bytes, Bytes{7});
}

TEST(OnnxReader, SymbolicDimensionsNeedBinding) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"batch", "4"}).Output("y");
  b.Node("Relu", {"x"}, {"y"});
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("test.onnx: 2 tensors cannot be sized"), std::string::npos) << error;
  EXPECT_NE(error.find("'x': dimension 0 of [batch,4] is symbolic"), std::string::npos) << error;
  EXPECT_NE(error.find("bind dimensions (open: batch (x)) or whole shapes"), std::string::npos)
      << error;

  LoadOptions options;
  options.dims = {{"batch", 3}};
  const Subgraph s = Read(b, options).graph.subgraphs[0];
  EXPECT_EQ(Named(s, "y").shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(Named(s, "y").bytes, Bytes{48});
}

TEST(OnnxReader, ShapeBindingForInputsAndNodeOutputs) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"?", "?"}).Output("y");
  b.Node("Relu", {"x"}, {"y"});
  LoadOptions options;
  options.shapes = {{"x", {2, 5}}};
  EXPECT_EQ(Named(Read(b, options).graph.subgraphs[0], "y").bytes, Bytes{40});

  // A custom operator ONNX cannot infer: its output's shape is given, its type is not.
  OnnxBuilder custom;
  custom.Input("x", kOnnxFloat, {"2"}).Output("y");
  custom.Node("Mystery", {"x"}, {"y"}, "m").set_domain("com.example");
  custom.model().add_opset_import()->set_domain("com.example");
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(custom); });
  EXPECT_NE(error.find("'y': no element type known after shape inference (output of node 'm' "
                       "(Mystery): Mystery is an operator memplan has no shape rule for (domain "
                       "'com.example', opset 0); give its outputs' shapes (shape of y: AxBxC))"),
            std::string::npos)
      << error;
}

TEST(OnnxReader, BatchBindsOpenLeadingDimensions) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"N", "4"}).Input("unnamed", kOnnxFloat, {"?", "2"}).Output("y");
  b.graph()
      .mutable_input(1)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->clear_dim_param();  // no name, no value
  b.Node("Relu", {"x"}, {"y"});
  LoadOptions options;
  options.dims = {{"batch", 2}};
  const Subgraph s = Read(b, options).graph.subgraphs[0];
  EXPECT_EQ(Named(s, "y").shape, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(Named(s, "unnamed").shape, (std::vector<std::int64_t>{2, 2}));
}

// A --dim the model does not use binds nothing and comes back as a warning (one set of
// flags serves a folder of models); a --shape naming nothing is still a usage error.
TEST(OnnxReader, DimsThatBindNothingAreWarnings) {
  LoadOptions options;
  options.dims = {{"nope", 1}};
  OnnxModel m = Read(TwoOps(), options);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("dimension nope=1 binds nothing in test.onnx: no dimension of the "
                               "model is called 'nope'; it has no symbolic dimensions"),
            std::string::npos)
      << m.warnings[0];
  options.dims = {{"batch", 1}};  // every input's leading dimension is already a number
  m = Read(TwoOps(), options);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("called 'batch'"), std::string::npos);
  std::string error;
  options = {};
  options.shapes = {{"w", {4}}};
  error = testing::ErrorMessage<UsageError>([&] { Read(TwoOps(), options); });
  EXPECT_NE(error.find("'w' is an initializer"), std::string::npos) << error;
  options.shapes = {{"ghost", {4}}};
  error = testing::ErrorMessage<UsageError>([&] { Read(TwoOps(), options); });
  EXPECT_NE(error.find("no tensor called 'ghost'"), std::string::npos) << error;
  options = {};
  options.dims = {{"N", -1}};
  EXPECT_NE(testing::ErrorMessage<UsageError>([&] {
              Read(TwoOps(), options);
            }).find("cannot be negative"),
            std::string::npos);
  options = {};
  options.shapes = {{"x", {1, -4}}};
  EXPECT_NE(testing::ErrorMessage<UsageError>([&] {
              Read(TwoOps(), options);
            }).find("cannot be negative"),
            std::string::npos);
}

TEST(OnnxReader, ConflictingStoredShapeGivesWayWithAWarning) {
  OnnxBuilder b = TwoOps();
  auto* declared = b.graph().add_value_info();  // y declared [1,5]; inference says [1,4]
  declared->set_name("y");
  declared->mutable_type()->mutable_tensor_type()->set_elem_type(kOnnxFloat);
  auto* shape = declared->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_value(1);
  shape->add_dim()->set_dim_value(5);
  const OnnxModel m = Read(b);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").shape, (std::vector<std::int64_t>{1, 4}));
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0],
            "warning: tensor 'y': the file stores shape FLOAT [1,5] but the graph computes "
            "FLOAT [1,4]; using the computed shape");
}

// keras2onnx wrote graphs out of topological order; ONNX Runtime sorts them and runs them.
TEST(OnnxReader, NodesOutOfOrderAreSorted) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "4"}).Output("z");
  b.Node("Relu", {"y"}, {"z"}, "second");
  b.Node("Relu", {"x"}, {"y"}, "first");
  b.Node("Sigmoid", {"x"}, {"unused"}, "independent");
  const OnnxModel m = Read(b);
  const Subgraph& main = m.graph.subgraphs[0];
  ASSERT_EQ(main.ops.size(), 3u);
  EXPECT_EQ(main.ops[0].name, "first");
  EXPECT_EQ(main.ops[1].name, "second");
  EXPECT_EQ(main.ops[2].name, "independent");
  EXPECT_EQ(Named(main, "z").shape, (std::vector<std::int64_t>{1, 4}));
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0],
            "note: the file lists nodes out of topological order; memplan sorted them as ONNX "
            "Runtime does");
}

TEST(OnnxReader, Cycles) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1"}).Output("a");
  b.Node("Add", {"x", "b"}, {"a"}, "n0");
  b.Node("Relu", {"a"}, {"b"}, "n1");
  EXPECT_NE(testing::ErrorMessage<InputError>([&] {
              Read(b);
            }).find("reads 'b' before node 'n1' (Relu) produces it"),
            std::string::npos);
  OnnxBuilder self;
  self.Input("x", kOnnxFloat, {"1"}).Output("a");
  self.Node("Add", {"x", "a"}, {"a"});
  EXPECT_NE(testing::ErrorMessage<InputError>([&] {
              Read(self);
            }).find("node #0 (Add) reads its own output 'a'"),
            std::string::npos);
}

TEST(OnnxReader, StructureErrors) {
  OnnxBuilder missing;
  missing.Input("x", kOnnxFloat, {"1"}).Output("y");
  missing.Node("Add", {"x", "ghost"}, {"y"}, "n");
  EXPECT_NE(testing::ErrorMessage<InputError>([&] {
              Read(missing);
            }).find("node 'n' (Add) reads 'ghost', which is no graph input, initializer"),
            std::string::npos);

  OnnxBuilder twice;
  twice.Input("x", kOnnxFloat, {"1"}).Output("y");
  twice.Node("Relu", {"x"}, {"y"}, "a");
  twice.Node("Relu", {"x"}, {"y"}, "b");
  EXPECT_NE(testing::ErrorMessage<InputError>([&] { Read(twice); }).find("'y' is produced twice"),
            std::string::npos);

  OnnxBuilder overwrite;
  overwrite.Input("x", kOnnxFloat, {"1"}).Output("x");
  overwrite.Node("Relu", {"x"}, {"x"}, "a");
  EXPECT_NE(testing::ErrorMessage<InputError>([&] {
              Read(overwrite);
            }).find("writes 'x', which is a graph input"),
            std::string::npos);

  OnnxBuilder dangling;
  dangling.Input("x", kOnnxFloat, {"1"}).Output("nowhere");
  EXPECT_NE(testing::ErrorMessage<InputError>([&] {
              Read(dangling);
            }).find("graph output 'nowhere' is no graph input"),
            std::string::npos);

  OnnxBuilder untyped;
  untyped.Input("x", kOnnxFloat, {"1"}).Output("y");
  untyped.Node("", {"x"}, {"y"});
  EXPECT_NE(testing::ErrorMessage<InputError>([&] { Read(untyped); }).find("has no operator type"),
            std::string::npos);
}

TEST(OnnxReader, GraphAttributesOutsideControlFlowAreRefused) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1"}).Output("y");
  auto& node = b.Node("MyCustomOp", {"x"}, {"y"}, "custom");
  node.set_domain("com.example");
  SetGraphAttribute(node, "body");
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("node 'custom' (MyCustomOp): attribute 'body' holds a graph; memplan plans "
                       "the subgraphs of If (then_branch, else_branch), Loop and Scan (body) only"),
            std::string::npos)
      << error;
}

TEST(OnnxReader, ElementTypesMemplanCannotSize) {
  OnnxBuilder unknown;
  unknown.Input("x", 99, {"4"}).Output("x");
  std::string error = testing::ErrorMessage<InputError>([&] { Read(unknown); });
  EXPECT_NE(error.find("'x': element type 99 is not an element type memplan can size"),
            std::string::npos)
      << error;

  OnnxBuilder strings;
  strings.Input("s", kOnnxString, {"4"}).Output("s");
  error = testing::ErrorMessage<InputError>([&] { Read(strings); });
  EXPECT_NE(error.find("'s': STRING tensors have no static size"), std::string::npos) << error;

  OnnxBuilder untyped;
  untyped.Input("x", 0, {"4"}).Output("x");
  error = testing::ErrorMessage<InputError>([&] { Read(untyped); });
  EXPECT_NE(error.find("'x': no element type known"), std::string::npos) << error;
}

TEST(OnnxReader, TypesOnnxAddedLaterAreSized) {
  OnnxBuilder b;
  b.Input("f8", 17, {"3"}).Input("u4", 21, {"3"}).Output("f8").Output("u4");
  const Subgraph s = Read(b).graph.subgraphs[0];
  EXPECT_EQ(Named(s, "f8").type, DataType::kFloat8E4M3FN);
  EXPECT_EQ(Named(s, "f8").bytes, Bytes{3});
  EXPECT_EQ(Named(s, "u4").type, DataType::kUInt4);
  EXPECT_EQ(Named(s, "u4").bytes, Bytes{2});  // two 4-bit values to a byte, rounded up
}

TEST(OnnxReader, AbsurdShapes) {
  OnnxBuilder overflow;
  overflow.Input("x", kOnnxFloat, {"4294967296", "4294967296"}).Output("x");
  std::string error = testing::ErrorMessage<InputError>([&] { Read(overflow); });
  EXPECT_NE(
      error.find("test.onnx: tensor 'x': shape [4294967296,4294967296] of FLOAT is too large: "
                 "its size overflows 64 bits"),
      std::string::npos)
      << error;

  OnnxBuilder bytes_overflow;  // 2^62 elements fit in 64 bits; their 2^64 bytes do not
  bytes_overflow.Input("x", kOnnxFloat, {"2147483648", "2147483648"}).Output("x");
  error = testing::ErrorMessage<InputError>([&] { Read(bytes_overflow); });
  EXPECT_NE(error.find("its size overflows 64 bits"), std::string::npos) << error;

  OnnxBuilder huge;  // 2^50 floats: 2^52 bytes, countable but past memplan's limit
  huge.Input("x", kOnnxFloat, {"33554432", "33554432"}).Output("x");
  error = testing::ErrorMessage<InputError>([&] { Read(huge); });
  EXPECT_NE(error.find("is 4503599627370496 bytes, more than memplan plans"), std::string::npos)
      << error;

  OnnxBuilder zero;  // a zero dimension is fine: nothing to plan
  zero.Input("x", kOnnxFloat, {"0", "4294967296", "4294967296"}).Output("x");
  EXPECT_EQ(Named(Read(zero).graph.subgraphs[0], "x").bytes, Bytes{0});
}

TEST(OnnxReader, BytesThatAreNotAModel) {
  for (const std::string& bytes : {std::string("not a model at all\xff\xff\xff"),
                                   std::string("\x0a\xff\xff\xff\xff\x0f", 6)}) {
    const std::string error =
        testing::ErrorMessage<InputError>([&] { ReadOnnx(bytes, "junk.onnx"); });
    EXPECT_NE(error.find("junk.onnx: not an ONNX model: the bytes do not parse"), std::string::npos)
        << error;
  }
  EXPECT_NE(testing::ErrorMessage<InputError>([&] {
              ReadOnnx("", "empty.onnx");
            }).find("empty.onnx: not an ONNX model: it has no graph"),
            std::string::npos);
}

TEST(OnnxReader, EveryTruncationIsAnInputError) {
  const std::string bytes = TwoOps().Bytes();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    try {
      ReadOnnx(std::string_view(bytes).substr(0, n), "cut.onnx");
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("cut.onnx: ", 0), 0u) << e.what();
    }
  }
}

TEST(OnnxReader, EveryBitFlipReadsOrFailsCleanly) {
  // In this process, as the fuzzer runs: a crash inside libonnx must fail the test, not
  // become an InputError of the child process that would otherwise run it.
  formats::SetIsolation(false);
  const std::string bytes = TwoOps().Bytes();
  std::size_t read = 0, rejected = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ (1 << bit));
      try {
        ReadOnnx(flipped, "flip.onnx");
        ++read;
      } catch (const InputError& e) {
        ++rejected;
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(read, 0u);  // flips inside names or float data leave a valid model
  formats::SetIsolation(true);
}

// A node ONNX cannot infer leaves its outputs untyped; the message quotes ONNX's reason.
TEST(OnnxReader, UnsizedTensorsQuoteTheNodeErrorOnnxReports) {
  OnnxBuilder b;
  b.Input("x", testing::kOnnxFloat, {"1", "4"}).Output("a").Output("b");
  b.Int64Initializer("split", {2, 2});
  b.Node("Split", {"x", "split"}, {"a", "b"}, "cut");  // axis 0 has size 1, not 4
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("'a': no element type known after shape inference (output of node 'cut' "
                       "(Split))"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("ONNX reports (op_type:Split, node name: cut): [ShapeInferenceError] "
                       "Mismatch between the sum of 'split' (4) and the split dimension of the "
                       "input (1)"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// Exported with batch 1, read with batch 2: the stored value_info and output shapes
// contradict inference. The computed shapes win, each replacement with a warning.
TEST(OnnxReader, StoredShapesThatDisagreeWithInferenceGiveWay) {
  const OnnxBuilder b = testing::ExportedWithBatchOne();
  LoadOptions options;
  options.dims = {{"N", 2}};
  const OnnxModel m = ReadOnnx(b.Bytes(), "exported.onnx", options);
  const Subgraph& s = m.graph.subgraphs[0];
  EXPECT_EQ(Named(s, "y").shape, (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(Named(s, "z").shape, (std::vector<std::int64_t>{2, 4}));
  ASSERT_EQ(m.warnings.size(), 2u);
  EXPECT_EQ(m.warnings[0],
            "warning: tensor 'y': the file stores shape FLOAT [1,4] but the graph computes "
            "FLOAT [2,4]; using the computed shape");
  EXPECT_NE(m.warnings[1].find("tensor 'z'"), std::string::npos) << m.warnings[1];
  // Agreeing declarations stay silent.
  options.dims = {{"N", 1}};
  EXPECT_TRUE(ReadOnnx(b.Bytes(), "exported.onnx", options).warnings.empty());
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// A decoder's output declared with a name of its own (total = past + seq): binding the
// inputs' dimensions is enough, inference computes the rest.
TEST(OnnxReader, DimensionsInferenceDerivesNeedNoFlag) {
  OnnxBuilder b;
  b.Input("past", testing::kOnnxFloat, {"batch", "past_seq", "4"});
  b.Input("x", testing::kOnnxFloat, {"batch", "seq", "4"});
  b.TypedOutput("present", testing::kOnnxFloat, {"batch", "total_seq", "4"});
  testing::SetIntAttribute(b.Node("Concat", {"past", "x"}, {"present"}), "axis", 1);
  LoadOptions options;
  options.dims = {{"batch", 1}, {"past_seq", 16}, {"seq", 1}};
  const OnnxModel m = ReadOnnx(b.Bytes(), "decoder.onnx", options);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "present").shape, (std::vector<std::int64_t>{1, 17, 4}));
  EXPECT_TRUE(m.warnings.empty());
}

}  // namespace
}  // namespace memplan
