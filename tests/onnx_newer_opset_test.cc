// Models at opsets newer than ONNX 1.12 knows (18 to 24): checked against memplan's
// schemas for the operators and attributes added since, and shaped by their rules; an
// operator with no rule is named with its opset.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "tests/onnx_sample_models.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using Shape = std::vector<std::int64_t>;

const Tensor& Named(const Subgraph& s, const std::string& name) {
  for (const Tensor& t : s.tensors)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

TEST(OnnxNewerOpsets, Opset18ResizeReduceSplitPad) {
  const Subgraph s = ReadOnnx(testing::Opset18Model().Bytes(), "opset18.onnx").graph.subgraphs[0];
  EXPECT_EQ(Named(s, "smooth").shape, (Shape{1, 3, 40, 60}));
  // not_larger: the scale that fits both 10x10 limits is 10/30, so 20x30 -> 7x10.
  EXPECT_EQ(Named(s, "fit").shape, (Shape{1, 3, 7, 10}));
  EXPECT_EQ(Named(s, "mean").shape, (Shape{2, 6}));
  EXPECT_EQ(Named(s, "p0").shape, (Shape{1, 7, 6}));  // 2 into 3: ceil(2/3) = 1, 1, 0
  EXPECT_EQ(Named(s, "p1").shape, (Shape{1, 7, 6}));
  EXPECT_EQ(Named(s, "p2").shape, (Shape{0, 7, 6}));
  EXPECT_EQ(Named(s, "padded").shape, (Shape{2, 7, 9}));
}

TEST(OnnxNewerOpsets, Opset23AttentionRmsNormAndRotaryEmbedding) {
  const Subgraph s = ReadOnnx(testing::Opset23Model().Bytes(), "opset23.onnx").graph.subgraphs[0];
  EXPECT_EQ(Named(s, "normed").shape, (Shape{1, 5, 64}));
  EXPECT_EQ(Named(s, "q").shape, (Shape{1, 5, 64}));
  EXPECT_EQ(Named(s, "y").shape, (Shape{1, 5, 64}));              // 4 heads x 16
  EXPECT_EQ(Named(s, "present_k").shape, (Shape{1, 2, 16, 16}));  // past 11 + 5
  EXPECT_EQ(Named(s, "present_v").bytes, Bytes{2 * 16 * 16 * 4});
}

TEST(OnnxNewerOpsets, AnOperatorWithNoRuleIsNamedWithItsOpset) {
  testing::OnnxBuilder b(24);
  b.Input("x", testing::kOnnxFloat, {"4"}).Output("y");
  b.Node("FutureOp", {"x"}, {"y"}, "future");
  const std::string error =
      testing::ErrorMessage<InputError>([&] { ReadOnnx(b.Bytes(), "future.onnx"); });
  EXPECT_NE(error.find("FutureOp is an operator memplan has no shape rule for (domain 'ai.onnx', "
                       "opset 24)"),
            std::string::npos)
      << error;
}

TEST(OnnxNewerOpsets, NewAttributesAreCheckedAgainstTheirOwnOpset) {
  // antialias exists from Resize-18 on: at opset 13 it is not part of the schema.
  testing::OnnxBuilder b(13);
  b.Input("x", testing::kOnnxFloat, {"1", "1", "4", "4"}).Output("y");
  b.FloatValues("scales", {1, 1, 2, 2});
  testing::SetIntAttribute(b.Node("Resize", {"x", "", "scales"}, {"y"}, "r"), "antialias", 1);
  const std::string error =
      testing::ErrorMessage<InputError>([&] { ReadOnnx(b.Bytes(), "old.onnx"); });
  EXPECT_NE(error.find("antialias"), std::string::npos) << error;
}

TEST(OnnxNewerOpsets, AnAttributeNewerThanMemplanKnowsNamesBothVersions) {
  // GridSample gained nothing memplan models after opset 16: a made-up attribute at opset 22
  // is reported with the opset the model imports and the newest schema memplan has.
  testing::OnnxBuilder b(22);
  b.Input("x", testing::kOnnxFloat, {"1", "1", "4", "4"});
  b.Input("grid", testing::kOnnxFloat, {"1", "4", "4", "2"}).Output("y");
  testing::SetIntAttribute(b.Node("GridSample", {"x", "grid"}, {"y"}, "g"), "future_flag", 1);
  const std::string error =
      testing::ErrorMessage<InputError>([&] { ReadOnnx(b.Bytes(), "new.onnx"); });
  EXPECT_NE(error.find("(the model imports opset 22 of domain 'ai.onnx'; the newest GridSample "
                       "memplan knows there is version 16)"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace memplan
