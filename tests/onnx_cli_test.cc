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
  EXPECT_NE(unbound.err.find("--dim NAME=VALUE (open: N (x))"), std::string::npos) << unbound.err;

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
  OnnxBuilder misordered;
  misordered.Input("x", kOnnxFloat, {"1"}).Output("z");
  misordered.Node("Relu", {"y"}, {"z"}, "late");
  misordered.Node("Relu", {"x"}, {"y"}, "early");
  const auto out = dir / "plan.json";
  for (const auto& [path, message] : std::vector<std::pair<std::filesystem::path, std::string>>{
           {WriteFile(dir, "text.onnx", "this is not a model\n"), "not an ONNX model"},
           {WriteFile(dir, "cut.onnx", good.substr(0, good.size() - 7)), "not an ONNX model"},
           {WriteFile(dir, "order.onnx", misordered.Bytes()),
            "node 'late' (Relu) reads 'y' before node 'early' (Relu) produces it"},
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

}  // namespace
}  // namespace memplan
