// `memplan plan` on .onnx files, as a user runs them: figures, bindings, exit codes, and
// nothing written when the model is bad.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/onnx_builder.h"
#include "tests/onnx_sample_models.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::kOnnxFloat;
using testing::OnnxBuilder;
using testing::Quote;
using testing::RunMemplan;
using testing::WriteFile;

// x [N,16] -> Relu -> a -> Sigmoid -> y; weights folded from a ConstantOfShape.
OnnxBuilder Symbolic() {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"N", "16"}).Output("y");
  b.Int64Initializer("shape", {1, 16});
  b.Node("ConstantOfShape", {"shape"}, {"w"});
  b.Node("Mul", {"x", "w"}, {"a"}, "scale");
  b.Node("Sigmoid", {"a"}, {"y"}, "squash");
  return b;
}

TEST(OnnxCli, PlanBindsSymbolicDimensions) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "symbolic.onnx", Symbolic().Bytes());
  const auto unbound = RunMemplan("plan " + Quote(model));
  EXPECT_EQ(unbound.exit_code, 1);
  EXPECT_NE(unbound.err.find("bind dimensions (open: N (x))"), std::string::npos) << unbound.err;
  // The command adds the flags that bind them.
  EXPECT_NE(unbound.err.find("(--dim NAME=VALUE --shape TENSOR=AxBxC)"), std::string::npos)
      << unbound.err;

  const auto r = RunMemplan("plan " + Quote(model) + " --dim N=2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"], 3);  // x, a, y; w and its shape are constants
  EXPECT_EQ(j["ops"], 2);
  EXPECT_EQ(j["naive_bytes"], 3 * 128);

  EXPECT_EQ(RunMemplan("plan " + Quote(model) + " --dim batch=4").exit_code, 0);
  // A mistyped name binds nothing: the model stays unsized and the message says why.
  const auto typo = RunMemplan("plan " + Quote(model) + " --dim M=2");
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("no dimension of the model is called 'M'; its symbolic dimensions: N"),
            std::string::npos)
      << typo.err;
}

// The models issue 15 names, in miniature: a tf2onnx detector plans with no flag, an
// export read with another batch plans with a warning per stored shape it replaces.
TEST(OnnxCli, RealWorldPatternsPlanWithoutHandWork) {
  const auto dir = testing::TempDir();
  const auto detector = WriteFile(dir, "detector.onnx", testing::DetectorUpsampling().Bytes());
  const auto r = RunMemplan("plan " + Quote(detector) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["tensors"], 5);  // image, features, up_a, up_b, out

  const auto exported = WriteFile(dir, "exported.onnx", testing::ExportedWithBatchOne().Bytes());
  const auto w = RunMemplan("plan " + Quote(exported) + " --dim N=2");
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_NE((w.out + w.err)
                .find("warning: tensor 'y': the file stores shape FLOAT [1,4] but the "
                      "graph computes FLOAT [2,4]; using the computed shape"),
            std::string::npos)
      << w.out << w.err;
}

TEST(OnnxCli, BadFilesExitOneAndWriteNothing) {
  const auto dir = testing::TempDir();
  const std::string good = Symbolic().Bytes();
  OnnxBuilder cycle;
  cycle.Input("x", kOnnxFloat, {"1"}).Output("z");
  cycle.Node("Add", {"x", "y"}, {"z"}, "late");
  cycle.Node("Relu", {"z"}, {"y"}, "early");
  const auto out = dir / "plan.json";
  for (const auto& [path, message] : std::vector<std::pair<std::filesystem::path, std::string>>{
           {WriteFile(dir, "text.onnx", "this is not a model\n"), "not an ONNX model"},
           {WriteFile(dir, "cut.onnx", good.substr(0, good.size() - 7)), "not an ONNX model"},
           {WriteFile(dir, "cycle.onnx", cycle.Bytes()),
            "node 'late' (Add) reads 'y' before node 'early' (Relu) produces it"},
       }) {
    const auto r = RunMemplan("plan " + Quote(path) + " --dim N=1 --out " + Quote(out));
    EXPECT_EQ(r.exit_code, 1) << path;
    EXPECT_NE(r.err.find(path.string() + ": " + message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << path;
  }
}

// A shared model through the command: the anchors figures of light_bvlc_alexnet.
TEST(OnnxCli, PlansASharedModelInBothAccountings) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto model = shared / "models" / "light_bvlc_alexnet.onnx";
  const auto r = RunMemplan("plan " + Quote(model) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"], 27);
  EXPECT_EQ(j["ops"], 24);
  EXPECT_EQ(j["naive_bytes"], 7'837'504);
  EXPECT_EQ(j["lower_bound_bytes"], 2'239'488);
  const auto inter = RunMemplan("plan " + Quote(model) + " --intermediates-only --format json");
  ASSERT_EQ(inter.exit_code, 0) << inter.err;
  j = nlohmann::json::parse(inter.out);
  EXPECT_EQ(j["tensors"], 25);
  EXPECT_EQ(j["naive_bytes"], 7'231'392);
  EXPECT_EQ(j["lower_bound_bytes"], 2'239'488);
}

// inspect on a built model: the opset, inputs and outputs with their shapes, nodes folded and
// run, and the same planned tensors and bound as plan.
TEST(OnnxCli, InspectShowsWhatTheModelHolds) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "inspect_symbolic.onnx", Symbolic().Bytes());
  const auto r = RunMemplan("inspect " + Quote(model) + " --dim N=2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ai.onnx"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 in the file, 1 folded from constants (not run), 2 run"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[2, 16]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Mul 1"), std::string::npos) << r.out;
  const auto j = RunMemplan("inspect " + Quote(model) + " --dim N=2 --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto in = nlohmann::json::parse(j.out);
  EXPECT_EQ(in["file_nodes"], 3);
  EXPECT_EQ(in["folded_nodes"], 1);
  EXPECT_EQ(in["ops"], 2);
  EXPECT_EQ(in["inputs"][0]["shape"], nlohmann::json::array({2, 16}));
  EXPECT_EQ(in["inputs"][0]["bytes"], 128);
  // An open dimension left unbound: inspect shows the model all the same, the dimension
  // by name, and says what has no size yet.
  const auto open = RunMemplan("inspect " + Quote(model));
  ASSERT_EQ(open.exit_code, 0) << open.err;
  EXPECT_NE(open.out.find("[N, 16]"), std::string::npos) << open.out;
  EXPECT_NE(open.out.find("3 to plan have no size until the open dimensions are bound"),
            std::string::npos)
      << open.out;
  EXPECT_NE(open.out.find("(open: N (x))"), std::string::npos) << open.out;
  const auto open_json = RunMemplan("inspect " + Quote(model) + " --format json");
  ASSERT_EQ(open_json.exit_code, 0) << open_json.err;
  const auto oj = nlohmann::json::parse(open_json.out);
  EXPECT_EQ(oj["inputs"][0]["open_shape"], "[N, 16]");
  EXPECT_EQ(oj["planned"]["unsized_tensors"], 3);
}

// The issue-30 crash through the command: exit 1 with a message naming the file, never a
// signal; with the decoded image's shape given, it plans.
TEST(OnnxCli, ExtensionsWrappedModelNeverCrashes) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "wrapped.onnx", testing::ExtensionsWrappedModel().Bytes());
  const auto r = RunMemplan("plan " + Quote(model));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(model.string() + ": "), std::string::npos) << r.err;
  const auto given = RunMemplan("plan " + Quote(model) +
                                " --dim num_bytes=150000 --shape bgr=240x320x3 --shape png=200000");
  EXPECT_EQ(given.exit_code, 0) << given.err;
  const auto in = RunMemplan("inspect " + Quote(model));
  EXPECT_EQ(in.exit_code, 0) << in.err;
}

// A model whose work sits in If branches: planned, and inspect shows the subgraphs.
TEST(OnnxCli, PlansAndInspectsIfBranches) {
  OnnxBuilder then_branch, else_branch;
  then_branch.Output("t_out");
  then_branch.Node("Relu", {"x"}, {"t_out"}, "then_relu");
  else_branch.Output("e_out");
  else_branch.Node("Sigmoid", {"x"}, {"e_out"}, "else_sigmoid");
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "16"}).Input("cond", testing::kOnnxBool, {}).Output("y");
  auto& node = b.Node("If", {"cond"}, {"y"}, "branch");
  for (auto* branch : {&then_branch, &else_branch}) {
    auto* attribute = node.add_attribute();
    attribute->set_name(branch == &then_branch ? "then_branch" : "else_branch");
    attribute->set_type(onnx::AttributeProto::GRAPH);
    *attribute->mutable_g() = branch->graph();
  }
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "if.onnx", b.Bytes());
  const auto plan = RunMemplan("plan " + Quote(model) + " --format json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const auto p = nlohmann::json::parse(plan.out);
  EXPECT_EQ(p["tensors"], 5);  // x, cond, y, and each branch's output
  EXPECT_EQ(p["ops"], 3);      // If, Relu, Sigmoid
  const auto in = RunMemplan("inspect " + Quote(model));
  ASSERT_EQ(in.exit_code, 0) << in.err;
  EXPECT_NE(in.out.find("If 'branch' in subgraph 0"), std::string::npos) << in.out;
  EXPECT_NE(in.out.find("Relu 1"), std::string::npos) << in.out;  // ops of the branches
}

// Every shared ONNX model: inspect agrees with plan on tensors, ops and the lower bound.
TEST(OnnxCli, InspectAgreesWithPlanOnEverySharedModel) {
  MEMPLAN_REQUIRE_SHARED(shared);
  std::size_t models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared / "models")) {
    if (entry.path().extension() != ".onnx") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::string dims;
    if (entry.path().filename() == "tiny_random_lfm2_decoder.onnx")
      dims =
          " --dim batch_size=1 --dim sequence_length=16 --dim past_sequence_length=16 "
          "--dim total_sequence_length=32";
    const auto in = RunMemplan("inspect " + Quote(entry.path()) + dims + " --format json");
    ASSERT_EQ(in.exit_code, 0) << in.err;
    const auto plan =
        RunMemplan("plan " + Quote(entry.path()) + dims + " -s offsets/naive --format json");
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    const auto i = nlohmann::json::parse(in.out);
    const auto p = nlohmann::json::parse(plan.out);
    EXPECT_EQ(i["planned"]["tensors"], p["tensors"]);
    EXPECT_EQ(i["ops"], p["ops"]);
    EXPECT_EQ(i["planned"]["lower_bound_bytes"], p["lower_bound_bytes"]);
    EXPECT_EQ(i["format"], "onnx");
    EXPECT_FALSE(i["opset_imports"].empty());
    ++models;
  }
  EXPECT_GE(models, 10u);
}

}  // namespace
}  // namespace memplan
