// Files as real exporters write them (issue 30): dimensions with neither size nor name,
// batch dimensions called "None", If outputs whose branches disagree, and inspection of
// models whose sizes are still open.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "tests/onnx_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::kOnnxBool;
using testing::kOnnxFloat;
using testing::OnnxBuilder;

OnnxModel Read(const OnnxBuilder& b, const LoadOptions& options = {},
               OnnxUnsized unsized = OnnxUnsized::kError) {
  return ReadOnnx(b.Bytes(), "robust.onnx", options, unsized);
}

const Tensor& Named(const Subgraph& s, const std::string& name) {
  for (const Tensor& t : s.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}

// A Scan-based LSTM stored its batch as dim_value -1; old exporters leave the dimension
// empty. Both are named INPUT:AXIS, which --dim binds.
TEST(OnnxRobust, AnonymousDimensionsAreNamedByInputAndAxis) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "4"}).Output("y");
  auto* dims = b.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_dim_value(-1);
  dims->mutable_dim(1)->Clear();
  b.Node("Relu", {"x"}, {"y"});
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("open: x:0 (x); x:1 (x)"), std::string::npos) << error;
  LoadOptions options;
  options.dims = {{"x:0", 2}, {"x:1", 8}};
  EXPECT_EQ(Named(Read(b, options).graph.subgraphs[0], "y").bytes, std::optional<Bytes>(64));
  // --dim batch=N binds a leading one as it binds any open leading dimension.
  options.dims = {{"batch", 3}, {"x:1", 8}};
  EXPECT_EQ(Named(Read(b, options).graph.subgraphs[0], "y").bytes, std::optional<Bytes>(96));
}

// A Core ML conversion calls its batch dimension "None": a symbol like any other.
TEST(OnnxRobust, ADimensionCalledNoneIsASymbol) {
  OnnxBuilder b(7);
  b.Input("image", kOnnxFloat, {"None", "3", "8", "8"}).Output("y");
  b.Node("Relu", {"image"}, {"y"});
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("open: None (image)"), std::string::npos) << error;
  LoadOptions options;
  options.dims = {{"None", 1}};
  EXPECT_EQ(Named(Read(b, options).graph.subgraphs[0], "y").bytes,
            std::optional<Bytes>(3 * 8 * 8 * 4));
  options.dims = {{"batch", 2}};
  EXPECT_EQ(Named(Read(b, options).graph.subgraphs[0], "y").bytes,
            std::optional<Bytes>(2 * 3 * 8 * 8 * 4));
}

// A dimension only the values decide at run time (NonZero's count): the message says where
// it first appears, the tensor a --shape can give.
TEST(OnnxRobust, RunTimeDimensionsAreSaidWhereTheyFirstAppear) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"4"}).Output("y");
  b.Node("NonZero", {"x"}, {"nz"}, "nonzero");
  b.Node("Identity", {"nz"}, {"y"}, "copy");
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("[1 more left open by ONNX's inference, not named in the file; first seen "
                       "as dimension 1 of 'nz' (node 'nonzero' (NonZero))]"),
            std::string::npos)
      << error;
}

// A custom operator whose domain the file forgot to import: read as version 1 of it, with a
// warning, instead of stopping ONNX's inference of the whole model.
TEST(OnnxRobust, ADomainTheFileDoesNotImportIsImported) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"2", "4"}).Output("y");
  b.Node("Decode", {"x"}, {"d"}, "decode").set_domain("com.example");
  b.Node("Relu", {"d"}, {"y"});
  LoadOptions options;
  options.shapes = {{"d", {2, 4}}};
  const OnnxModel m = Read(b, options);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").bytes, std::optional<Bytes>(32));
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_EQ(m.warnings[0],
            "warning: robust.onnx: operator 'Decode' is in domain 'com.example', which the file "
            "does not import; read as version 1 of that domain");
}

// An opset-7 model converted from Core ML: ImageScaler and Crop, which ONNX later removed.
TEST(OnnxRobust, RemovedOperatorsOfEarlyOpsets) {
  OnnxBuilder b(7);
  b.Input("image", kOnnxFloat, {"None", "3", "10", "12"}).Output("cut").Output("fixed");
  testing::SetFloatAttribute(b.Node("ImageScaler", {"image"}, {"scaled"}), "scale", 0.5f);
  testing::SetIntsAttribute(b.Node("Crop", {"scaled"}, {"cut"}), "border", {1, 2, 3, 4});
  testing::SetIntsAttribute(b.Node("Crop", {"scaled"}, {"fixed"}), "scale", {5, 6});
  LoadOptions options;
  options.dims = {{"None", 1}};
  const OnnxModel m = Read(b, options);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "scaled").shape, (std::vector<std::int64_t>{1, 3, 10, 12}));
  EXPECT_EQ(Named(m.graph.subgraphs[0], "cut").shape, (std::vector<std::int64_t>{1, 3, 4, 8}));
  EXPECT_EQ(Named(m.graph.subgraphs[0], "fixed").shape, (std::vector<std::int64_t>{1, 3, 5, 6}));
}

void AttachGraph(onnx::NodeProto& node, const std::string& name, OnnxBuilder body) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::GRAPH);
  *attribute->mutable_g() = body.model().graph();
  attribute->mutable_g()->set_name(name);
}

// cond known only at run time; then: Relu(x) [2,16]; else: Concat(x, x) [2,32].
OnnxBuilder IfWithDifferentBranches() {
  OnnxBuilder then_branch, else_branch;
  then_branch.Output("t_out");
  then_branch.Node("Relu", {"x"}, {"t_out"});
  else_branch.Output("e_out");
  testing::SetIntAttribute(else_branch.Node("Concat", {"x", "w"}, {"e_out"}), "axis", 1);
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"2", "16"}).Input("cond", kOnnxBool, {}).Output("y");
  b.FloatInitializer("w", {2, 16});  // read by the else branch from the outer graph
  auto& node = b.Node("If", {"cond"}, {"y"}, "pick");
  AttachGraph(node, "then_branch", then_branch);
  AttachGraph(node, "else_branch", else_branch);
  return b;
}

TEST(OnnxRobust, AnUndecidedIfIsPlannedAtItsLargerBranch) {
  const OnnxModel m = Read(IfWithDifferentBranches());
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").bytes, std::optional<Bytes>(2 * 32 * 4));
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0],
            "note: output 'y' of node 'pick' (If): the branch that runs is decided at run time; "
            "planned at the larger branch's shape [2,32] (then_branch [2,16], else_branch "
            "[2,32])");
}

// A Loop with a known trip count: each scan output stacks the body's value once per
// iteration, [trips, ...] (ONNX leaves the length unknown); the trip count here is folded
// from the input's shape.
TEST(OnnxRobust, LoopScanOutputsAreSizedFromTheTripCount) {
  OnnxBuilder body;
  body.Input("iter", testing::kOnnxInt64, {})
      .Input("cond_in", kOnnxBool, {})
      .Input("v_in", kOnnxFloat, {"1", "8"});
  body.Output("cond_out").Output("v_out").Output("each");
  body.Node("Identity", {"cond_in"}, {"cond_out"});
  body.Node("Relu", {"v_in"}, {"v_out"});
  body.Node("Sigmoid", {"v_in"}, {"each"});
  OnnxBuilder b;
  b.Input("v0", kOnnxFloat, {"1", "8"}).Input("steps", kOnnxFloat, {"T", "3"});
  b.Output("v_final").Output("stacked");
  b.Int64Tensor("index0", {}, {0});
  b.Node("Shape", {"steps"}, {"steps_shape"});
  b.Node("Gather", {"steps_shape", "index0"}, {"trips"});
  auto& node = b.Node("Loop", {"trips", "", "v0"}, {"v_final", "stacked"}, "loop");
  AttachGraph(node, "body", body);
  LoadOptions options;
  options.dims = {{"T", 5}};
  const OnnxModel m = Read(b, options);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "stacked").shape, (std::vector<std::int64_t>{5, 1, 8}));
  EXPECT_EQ(Named(m.graph.subgraphs[0], "stacked").bytes, std::optional<Bytes>(5 * 8 * 4));
}

// The PyTorch dynamo exporter's voice-activity detector: an If whose branches read
// initializers of the main graph at shape positions (Pad's pads, Reshape's shape), which
// ONNX 1.12's subgraph inference does not see as values.
TEST(OnnxRobust, BranchesReadOuterInitializersAsValues) {
  OnnxBuilder then_branch, else_branch;
  then_branch.Output("t_out");
  then_branch.Node("Pad", {"x", "pads"}, {"padded"});
  then_branch.Node("Reshape", {"padded", "flat"}, {"t_out"});
  else_branch.Output("e_out");
  else_branch.Node("Reshape", {"x", "flat_x"}, {"e_out"});
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"batch", "sequence"}).Input("cond", kOnnxBool, {}).Output("y");
  b.Int64Initializer("pads", {0, 2, 0, 2}).Int64Initializer("flat", {-1});
  b.Int64Initializer("flat_x", {-1});
  auto& node = b.Node("If", {"cond"}, {"y"}, "node_cond__1");
  AttachGraph(node, "then_branch", then_branch);
  AttachGraph(node, "else_branch", else_branch);
  LoadOptions options;
  options.dims = {{"batch", 1}, {"sequence", 8}};
  const OnnxModel m = Read(b, options);
  const Subgraph& then_sg = m.graph.subgraphs[1];
  EXPECT_EQ(Named(then_sg, "padded").shape, (std::vector<std::int64_t>{1, 12}));
  EXPECT_EQ(Named(then_sg, "t_out").shape, (std::vector<std::int64_t>{12}));
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").bytes, std::optional<Bytes>(12 * 4));
  // With the condition known, the then branch replaces the If, its copies of the main
  // graph's values not added twice.
  OnnxBuilder decided = b;
  decided.graph().mutable_input()->DeleteSubrange(1, 1);
  auto* cond = decided.graph().add_initializer();
  cond->set_name("cond");
  cond->set_data_type(kOnnxBool);
  cond->add_int32_data(1);
  const OnnxModel taken = Read(decided, options);
  ASSERT_EQ(taken.graph.subgraphs.size(), 1u);
  EXPECT_EQ(Named(taken.graph.subgraphs[0], "y").bytes, std::optional<Bytes>(12 * 4));
  std::size_t pads = 0;
  for (const Tensor& t : taken.graph.subgraphs[0].tensors) pads += t.name == "pads";
  EXPECT_EQ(pads, 1u);
}

// Stored shapes inside a branch that disagree with what the branch computes (an exporter
// traced it with other sizes): the computed shapes win, with a warning.
TEST(OnnxRobust, StoredShapesInsideABranchThatContradictInference) {
  OnnxBuilder b = IfWithDifferentBranches();
  auto* then_graph = b.graph().mutable_node(0)->mutable_attribute(0)->mutable_g();
  auto* stored = then_graph->mutable_output(0)->mutable_type()->mutable_tensor_type();
  stored->set_elem_type(kOnnxFloat);
  stored->mutable_shape()->add_dim()->set_dim_value(1);
  stored->mutable_shape()->add_dim()->set_dim_value(16);
  const OnnxModel m = Read(b);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").bytes, std::optional<Bytes>(2 * 32 * 4));
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_EQ(m.warnings[0],
            "warning: tensor 't_out': the file stores shape FLOAT [1,16] but the graph computes "
            "FLOAT [2,16]; using the computed shape");
}

// Stored shapes that contradict each other through the graph: 'a' stored [1,4] makes 'b'
// [1,4], which the file stores as [2,4]. No single stored shape disagrees with what the graph
// computes without them ([N,4]), so all are dropped, with one warning giving ONNX's reason.
TEST(OnnxRobust, StoredShapesThatOnlyConflictTogetherGiveWay) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"N", "4"}).Output("c");
  b.ValueInfo("a", kOnnxFloat, {"1", "4"}).ValueInfo("b", kOnnxFloat, {"2", "4"});
  b.Node("Relu", {"x"}, {"a"});
  b.Node("Relu", {"a"}, {"b"});
  b.Node("Relu", {"b"}, {"c"});
  const OnnxModel m = Read(b, {}, OnnxUnsized::kKeep);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0].rfind("warning: the shapes the file stores contradict what the graph "
                                "computes ([ShapeInferenceError] ",
                                0),
            0u)
      << m.warnings[0];
  EXPECT_NE(
      m.warnings[0].find("using the computed shapes of all 3 declared tensors ('a', 'b', 'c')"),
      std::string::npos)
      << m.warnings[0];
  EXPECT_EQ(m.open_shapes.at("c"), "[N,4]");
}

// inspect reads what plan refuses: open sizes are kept, and said.
TEST(OnnxRobust, OpenSizesKeptForInspection) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"batch", "4"}).Output("y");
  b.Node("Relu", {"x"}, {"y"});
  const OnnxModel m = Read(b, {}, OnnxUnsized::kKeep);
  EXPECT_EQ(m.unsized_tensors, 2u);
  EXPECT_EQ(m.open_sizes,
            "'x': dimension 0 of [batch,4] is symbolic; 'y': dimension 0 of [batch,4] is "
            "symbolic (open: batch (x))");
  EXPECT_EQ(m.open_shapes.at("y"), "[batch,4]");
}

// The causal mask of an opset-24 decoder: Range over the sequence length taken from the
// input's shape, Less of its row and column views, And, Where. Once the sequence length
// is bound, every value is known and the mask is a number of bytes.
OnnxBuilder CausalMask() {
  OnnxBuilder b(18);
  b.Input("input_ids", testing::kOnnxInt64, {"batch", "sequence_len"}).Output("mask");
  b.Int64Tensor("one_index", {}, {1}).Int64Tensor("zero", {}, {0}).Int64Tensor("step", {}, {1});
  b.Int64Initializer("axis0", {0}).Int64Initializer("axis1", {1});
  b.FloatValues("keep", {0.0f}).FloatValues("drop", {-1e9f});
  b.Node("Shape", {"input_ids"}, {"shape"});
  b.Node("Gather", {"shape", "one_index"}, {"length"});
  b.Node("Range", {"zero", "length", "step"}, {"positions"});
  b.Node("Unsqueeze", {"positions", "axis0"}, {"row"});
  b.Node("Unsqueeze", {"positions", "axis1"}, {"column"});
  b.Node("Less", {"row", "column"}, {"before"});
  b.Node("Equal", {"row", "column"}, {"same"});
  b.Node("Or", {"before", "same"}, {"visible"});
  b.Node("And", {"visible", "visible"}, {"allowed"});
  b.Node("Where", {"allowed", "keep", "drop"}, {"mask"});
  return b;
}

TEST(OnnxRobust, BoundInputsMakeEveryMaskDimensionANumber) {
  LoadOptions options;
  options.dims = {{"batch", 1}, {"sequence_len", 7}};
  const OnnxModel m = Read(CausalMask(), options);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "mask").bytes, std::optional<Bytes>(7 * 7 * 4));
}

// Unbound, the mask's dimensions carry the input's name (ONNX alone would make up unk__N
// for Range's output, which no --dim can bind).
TEST(OnnxRobust, OpenMaskDimensionsAreNamedByTheInput) {
  const OnnxModel m = Read(CausalMask(), {}, OnnxUnsized::kKeep);
  EXPECT_EQ(m.open_shapes.at("positions"), "[sequence_len]");
  EXPECT_EQ(m.open_shapes.at("mask"), "[sequence_len,sequence_len]");
  EXPECT_EQ(m.open_sizes.find("left open by ONNX"), std::string::npos) << m.open_sizes;
  EXPECT_NE(m.open_sizes.find("(open: batch (input_ids); sequence_len (input_ids))"),
            std::string::npos)
      << m.open_sizes;
}

}  // namespace
}  // namespace memplan
