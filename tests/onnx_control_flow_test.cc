// ONNX If, Loop and Scan: their subgraphs become memplan subgraphs the node calls, planned
// with the lifetimes TensorFlow Lite Micro gives IF and WHILE (docs/accounting.md): the
// subgraph's tensors live within the node's steps, and an outer tensor a subgraph reads
// stays alive across the node.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "memplan/workload.h"
#include "tests/onnx_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::kOnnxBool;
using testing::kOnnxFloat;
using testing::kOnnxInt64;
using testing::OnnxBuilder;

OnnxModel Read(const OnnxBuilder& b, const LoadOptions& options = {}) {
  return ReadOnnx(b.Bytes(), "test.onnx", options);
}

void AttachGraph(onnx::NodeProto& node, const std::string& name, OnnxBuilder body) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::GRAPH);
  *attribute->mutable_g() = body.model().graph();
  attribute->mutable_g()->set_name(name);
}

std::int32_t IndexOf(const Subgraph& sg, const std::string& name) {
  for (std::size_t i = 0; i < sg.tensors.size(); ++i)
    if (sg.tensors[i].name == name) return static_cast<std::int32_t>(i);
  return -1;
}

// x [x_rows,16], cond -> If(then: Relu(x), else: Sigmoid(Relu(x))) -> y -> Add(y, x) -> z
OnnxBuilder IfModel(const std::string& x_rows = "1") {
  OnnxBuilder then_branch, else_branch;
  then_branch.Output("t_out");
  then_branch.Node("Relu", {"x"}, {"t_out"}, "then_relu");
  else_branch.Output("e_out");
  else_branch.Node("Relu", {"x"}, {"e_mid"}, "else_relu");
  else_branch.Node("Sigmoid", {"e_mid"}, {"e_out"}, "else_sigmoid");
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {x_rows, "16"}).Input("cond", kOnnxBool, {}).Output("z");
  auto& node = b.Node("If", {"cond"}, {"y"}, "branch");
  AttachGraph(node, "then_branch", then_branch);
  AttachGraph(node, "else_branch", else_branch);
  b.Node("Add", {"y", "x"}, {"z"}, "add");
  return b;
}

TEST(OnnxControlFlow, IfBranchesAreSubgraphsTheNodeCalls) {
  const OnnxModel model = Read(IfModel());
  const Graph& g = model.graph;
  ASSERT_EQ(g.subgraphs.size(), 3u);
  const Subgraph& main = g.subgraphs[0];
  ASSERT_EQ(main.ops.size(), 2u);
  const Operator& op = main.ops[0];
  EXPECT_EQ(op.type, "If");
  EXPECT_EQ(op.called_subgraphs, (std::vector<std::int32_t>{1, 2}));
  // x is read inside the branches: an implicit input of the If node, after cond.
  ASSERT_EQ(op.inputs.size(), 2u);
  EXPECT_EQ(op.inputs[1], IndexOf(main, "x"));
  EXPECT_EQ(g.subgraphs[1].ops.size(), 1u);
  EXPECT_EQ(g.subgraphs[2].ops.size(), 2u);
  // Shapes reach the branches: e_mid is [1,16] float.
  const Subgraph& else_sg = g.subgraphs[2];
  const Tensor& mid = else_sg.tensors[static_cast<std::size_t>(IndexOf(else_sg, "e_mid"))];
  ASSERT_TRUE(mid.bytes.has_value());
  EXPECT_EQ(*mid.bytes, 64u);
  // The branch's view of x takes no memory: x itself lives.
  const Tensor& standin = else_sg.tensors[static_cast<std::size_t>(IndexOf(else_sg, "x"))];
  EXPECT_EQ(standin.bytes, std::optional<Bytes>(0));
}

TEST(OnnxControlFlow, IfIsPlannedWithItsBranchesInsideTheNode) {
  const Workload w = GraphWorkload(Read(IfModel()).graph, "if.onnx", "onnx", LoadOptions{});
  // x, cond, y, z; t_out; e_mid, e_out (the stand-ins of x take nothing).
  EXPECT_EQ(w.problem.size(), 7u);
  Step if_first = -1, x_last = -1;
  Step branch_first = 1 << 30, branch_last = -1;
  for (std::size_t i = 0; i < w.problem.size(); ++i) {
    const std::string name = w.problem.NameOf(i);
    const UsageRecord& r = w.problem.records[i];
    if (name == "y") if_first = r.first;
    if (name == "x") x_last = r.last;
    if (w.origins[i].subgraph > 0) {
      branch_first = std::min(branch_first, r.first);
      branch_last = std::max(branch_last, r.last);
    }
  }
  // The branches run after the If's output exists and before x is last read (by Add).
  EXPECT_LT(if_first, branch_first);
  EXPECT_GT(x_last, branch_last);
}

// v [1,8] carried through a Loop that adds w (an outer tensor) each iteration.
OnnxBuilder LoopModel() {
  OnnxBuilder body;
  body.Input("iter", kOnnxInt64, {})
      .Input("cond_in", kOnnxBool, {})
      .Input("v_in", kOnnxFloat, {"1", "8"});
  body.Output("cond_out").Output("v_out");
  body.Node("Identity", {"cond_in"}, {"cond_out"}, "keep_going");
  body.Node("Add", {"v_in", "w"}, {"v_sum"}, "accumulate");
  body.Node("Relu", {"v_sum"}, {"v_out"}, "clip");
  OnnxBuilder b;
  b.Input("v0", kOnnxFloat, {"1", "8"}).Input("w", kOnnxFloat, {"1", "8"});
  b.Input("trips", kOnnxInt64, {}).Input("go", kOnnxBool, {}).Output("v_final");
  auto& node = b.Node("Loop", {"trips", "go", "v0"}, {"v_final"}, "loop");
  AttachGraph(node, "body", body);
  return b;
}

TEST(OnnxControlFlow, LoopBodyIsASubgraphWithCarriedState) {
  const OnnxModel model = Read(LoopModel());
  const Graph& g = model.graph;
  ASSERT_EQ(g.subgraphs.size(), 2u);
  const Operator& loop = g.subgraphs[0].ops.at(0);
  EXPECT_EQ(loop.called_subgraphs, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(loop.inputs.back(), IndexOf(g.subgraphs[0], "w"));  // implicit input
  const Subgraph& body = g.subgraphs[1];
  EXPECT_EQ(body.inputs.size(), 3u);
  EXPECT_EQ(body.outputs.size(), 2u);
  const Tensor& sum = body.tensors[static_cast<std::size_t>(IndexOf(body, "v_sum"))];
  EXPECT_EQ(sum.bytes, std::optional<Bytes>(32));
  const Tensor& out =
      g.subgraphs[0].tensors[static_cast<std::size_t>(IndexOf(g.subgraphs[0], "v_final"))];
  EXPECT_EQ(out.bytes, std::optional<Bytes>(32));
  const Workload w = GraphWorkload(model.graph, "loop.onnx", "onnx", LoadOptions{});
  EXPECT_GE(w.problem.size(), 8u);
}

// A running sum over the rows of xs [5,4] with Scan.
OnnxBuilder ScanModel() {
  OnnxBuilder body;
  body.Input("sum_in", kOnnxFloat, {"4"}).Input("row", kOnnxFloat, {"4"});
  body.Output("sum_out").Output("seen");
  body.Node("Add", {"sum_in", "row"}, {"sum_out"}, "add_row");
  body.Node("Identity", {"sum_out"}, {"seen"}, "emit");
  OnnxBuilder b(11);
  b.Input("init", kOnnxFloat, {"4"}).Input("xs", kOnnxFloat, {"5", "4"});
  b.Output("total").Output("partials");
  auto& node = b.Node("Scan", {"init", "xs"}, {"total", "partials"}, "scan");
  AttachGraph(node, "body", body);
  testing::SetIntAttribute(node, "num_scan_inputs", 1);
  return b;
}

TEST(OnnxControlFlow, ScanBodyIsPlannedAndItsOutputsSized) {
  const OnnxModel model = Read(ScanModel());
  const Graph& g = model.graph;
  ASSERT_EQ(g.subgraphs.size(), 2u);
  const Subgraph& main = g.subgraphs[0];
  EXPECT_EQ(main.tensors[static_cast<std::size_t>(IndexOf(main, "partials"))].bytes,
            std::optional<Bytes>(80));  // [5,4] float
  EXPECT_EQ(g.subgraphs[1].ops.size(), 2u);
}

TEST(OnnxControlFlow, AnUnsizedTensorInABranchNamesTheSubgraph) {
  const OnnxBuilder b = IfModel("N");
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("subgraph 'then_branch' of node 'branch' (If)"), std::string::npos) << error;
  EXPECT_NE(error.find("bind dimensions"), std::string::npos) << error;
  // Bound, it plans.
  LoadOptions options;
  options.dims = {{"N", 2}};
  EXPECT_EQ(Read(b, options).graph.subgraphs.size(), 3u);
}

TEST(OnnxControlFlow, ABranchReadingAnUndefinedNameIsRefused) {
  OnnxBuilder b = IfModel();
  auto* then_graph = b.graph().mutable_node(0)->mutable_attribute(0)->mutable_g();
  then_graph->mutable_node(0)->set_input(0, "nowhere");
  const std::string error = testing::ErrorMessage<InputError>([&] { Read(b); });
  EXPECT_NE(error.find("subgraph 'then_branch' of node 'branch' (If)"), std::string::npos) << error;
  EXPECT_NE(error.find("'nowhere'"), std::string::npos) << error;
}

// Folding reaches into branches: a Squeeze whose axes come from a Constant inside the
// branch gets its static shape (the pattern of exported voice-activity detectors).
TEST(OnnxControlFlow, ConstantsInsideBranchesFold) {
  OnnxBuilder then_branch, else_branch;
  then_branch.Output("t_out");
  auto& axes = then_branch.Node("Constant", {}, {"axes"}, "axes");
  auto* value = axes.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(kOnnxInt64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(-1);
  then_branch.Node("Squeeze", {"x", "axes"}, {"t_out"}, "squeeze");
  else_branch.Output("e_out");
  else_branch.Node("Shape", {"x"}, {"x_shape"}, "shape");
  else_branch.Node("Slice", {"x_shape", "zero", "two"}, {"kept"}, "slice");
  else_branch.Node("Reshape", {"x", "kept"}, {"e_out"}, "reshape");
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "16", "1"}).Input("cond", kOnnxBool, {}).Output("y");
  b.Int64Initializer("zero", {0}).Int64Initializer("two", {2});
  auto& node = b.Node("If", {"cond"}, {"y"}, "squeeze_if_one");
  AttachGraph(node, "then_branch", then_branch);
  AttachGraph(node, "else_branch", else_branch);
  const OnnxModel model = Read(b);
  const Subgraph& then_sg = model.graph.subgraphs[1];
  const Subgraph& else_sg = model.graph.subgraphs[2];
  EXPECT_EQ(then_sg.tensors[static_cast<std::size_t>(IndexOf(then_sg, "t_out"))].shape,
            (std::vector<std::int64_t>{1, 16}));
  // The else branch folds Shape -> Slice from an outer static shape and outer initializers.
  EXPECT_EQ(else_sg.tensors[static_cast<std::size_t>(IndexOf(else_sg, "e_out"))].shape,
            (std::vector<std::int64_t>{1, 16}));
  EXPECT_EQ(model.graph.subgraphs[0]
                .tensors[static_cast<std::size_t>(IndexOf(model.graph.subgraphs[0], "y"))]
                .bytes,
            std::optional<Bytes>(64));
}

// An If whose condition folds to a known value runs one branch: that branch replaces it (as
// ONNX Runtime's optimizer does), and the other, which these shapes could not even give a
// rank to, is gone. The pattern: squeeze the last axis only when it is 1.
TEST(OnnxControlFlow, AnIfWithAKnownConditionBecomesItsBranch) {
  OnnxBuilder then_branch, else_branch;
  then_branch.Output("t_out");
  then_branch.Node("Squeeze", {"x", "last"}, {"t_out"}, "squeeze");
  else_branch.Output("e_out");
  else_branch.Node("Identity", {"x"}, {"e_out"}, "keep");
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "16", "T"}).Output("y");
  b.Int64Initializer("last", {-1}).Int64Initializer("one", {1}).Int64Initializer("axis2", {2});
  b.Node("Shape", {"x"}, {"x_shape"}, "shape");
  b.Node("Gather", {"x_shape", "axis2"}, {"t"}, "dim2");
  b.Node("Equal", {"t", "one"}, {"is_one_vec"}, "is_one");
  b.Node("Squeeze", {"is_one_vec"}, {"cond"}, "scalar");
  auto& node = b.Node("If", {"cond"}, {"squeezed"}, "squeeze_if_one");
  AttachGraph(node, "then_branch", then_branch);
  AttachGraph(node, "else_branch", else_branch);
  b.Node("Relu", {"squeezed"}, {"y"}, "relu");
  LoadOptions one;
  one.dims = {{"T", 1}};
  const OnnxModel squeezed = Read(b, one);
  ASSERT_EQ(squeezed.graph.subgraphs.size(), 1u);  // the If is gone
  const Subgraph& main = squeezed.graph.subgraphs[0];
  EXPECT_EQ(main.tensors[static_cast<std::size_t>(IndexOf(main, "y"))].shape,
            (std::vector<std::int64_t>{1, 16}));
  EXPECT_EQ(squeezed.file_nodes, 6u);   // as written
  EXPECT_EQ(squeezed.graph_nodes, 7u);  // the If became Squeeze and an Identity
  LoadOptions three;
  three.dims = {{"T", 3}};
  const OnnxModel kept = Read(b, three);
  const Subgraph& main3 = kept.graph.subgraphs[0];
  EXPECT_EQ(main3.tensors[static_cast<std::size_t>(IndexOf(main3, "y"))].shape,
            (std::vector<std::int64_t>{1, 16, 3}));
}

// Malformed control flow is refused with a message or planned, never a crash: a Scan
// claiming more scan inputs than it has, a Loop body without inputs, If branches whose output
// counts differ from the node's.
TEST(OnnxControlFlow, MalformedNodesNeverCrash) {
  const auto read_or_refuse = [](const OnnxBuilder& b) {
    try {
      Read(b);
    } catch (const InputError&) {
    }
  };
  OnnxBuilder scan = ScanModel();
  for (auto& attribute : *scan.graph().mutable_node(0)->mutable_attribute())
    if (attribute.name() == "num_scan_inputs") attribute.set_i(7);
  read_or_refuse(scan);
  for (auto& attribute : *scan.graph().mutable_node(0)->mutable_attribute())
    if (attribute.name() == "num_scan_inputs") attribute.set_i(-3);
  read_or_refuse(scan);

  OnnxBuilder loop = LoopModel();
  for (auto& attribute : *loop.graph().mutable_node(0)->mutable_attribute())
    if (attribute.name() == "body") attribute.mutable_g()->clear_input();
  read_or_refuse(loop);
  OnnxBuilder loop_outputs = LoopModel();
  for (auto& attribute : *loop_outputs.graph().mutable_node(0)->mutable_attribute())
    if (attribute.name() == "body") attribute.mutable_g()->clear_output();
  read_or_refuse(loop_outputs);

  OnnxBuilder branches = IfModel();
  for (auto& attribute : *branches.graph().mutable_node(0)->mutable_attribute())
    if (attribute.name() == "else_branch") attribute.mutable_g()->clear_output();
  read_or_refuse(branches);
  OnnxBuilder no_else = IfModel();
  no_else.graph().mutable_node(0)->mutable_attribute()->RemoveLast();
  read_or_refuse(no_else);
  SUCCEED();
}

}  // namespace
}  // namespace memplan
