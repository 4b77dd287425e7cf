// Shape rules for ONNX Runtime's com.microsoft operators and for operators newer than
// ONNX 1.12: each on a tiny built model, with the output shapes and types ONNX Runtime's
// contrib operator documentation and the ONNX specification give.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "tests/onnx_builder.h"
#include "tests/onnx_sample_models.h"

namespace memplan {
namespace {

using testing::kOnnxFloat;
using testing::kOnnxInt64;
using testing::OnnxBuilder;
using testing::SetIntAttribute;
using testing::SetIntsAttribute;
using testing::SetStringAttribute;

constexpr int kOnnxInt32 = 6;
constexpr int kOnnxUInt8 = 2;
constexpr const char* kMs = "com.microsoft";

const Tensor& Named(const Subgraph& s, const std::string& name) {
  for (const Tensor& t : s.tensors)
    if (t.name == name) return t;
  throw std::out_of_range(name);
}

using Shape = std::vector<std::int64_t>;

OnnxBuilder Contrib(std::int64_t opset = 13) {
  OnnxBuilder b(opset);
  b.Opset(kMs, 1);
  return b;
}

onnx::NodeProto& MsNode(OnnxBuilder& b, const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
  auto& node = b.Node(op, in, out, op);
  node.set_domain(kMs);
  return node;
}

// The fused BERT/GPT-2 block ONNX Runtime's transformer optimizer writes
// (testing::OptimizedTransformerBlock).
TEST(OnnxContrib, OptimizedTransformerBlockIsSized) {
  const OnnxBuilder b = testing::OptimizedTransformerBlock();
  LoadOptions options;
  options.dims = {{"batch", 1}, {"seq", 16}, {"past_seq", 16}};
  const Subgraph s = ReadOnnx(b.Bytes(), "gpt2.onnx", options).graph.subgraphs[0];
  EXPECT_EQ(Named(s, "embedded").shape, (Shape{1, 16, 32}));
  EXPECT_EQ(Named(s, "mask_index").shape, (Shape{1}));
  EXPECT_EQ(Named(s, "mask_index").type, DataType::kInt32);
  EXPECT_EQ(Named(s, "attended").shape, (Shape{1, 16, 32}));
  EXPECT_EQ(Named(s, "present").shape, (Shape{2, 1, 4, 32, 8}));  // past 16 + 16 new
  EXPECT_EQ(Named(s, "normed").shape, (Shape{1, 16, 32}));
  EXPECT_EQ(Named(s, "y").shape, (Shape{1, 16, 128}));
  EXPECT_EQ(Named(s, "y").bytes, Bytes{16 * 128 * 4});
}

TEST(OnnxContrib, MultiHeadAndGroupQueryAttentionWithPastState) {
  OnnxBuilder b = Contrib();
  b.Input("q", kOnnxFloat, {"1", "4", "64"}).Input("k", kOnnxFloat, {"1", "4", "64"});
  b.Input("v", kOnnxFloat, {"1", "4", "64"});
  b.Input("past_k", kOnnxFloat, {"1", "8", "10", "8"})
      .Input("past_v", kOnnxFloat, {"1", "8", "10", "8"});
  b.Input("kv", kOnnxFloat, {"1", "4", "32"});
  b.Input("gpast_k", kOnnxFloat, {"1", "4", "10", "8"})
      .Input("gpast_v", kOnnxFloat, {"1", "4", "10", "8"});
  b.Input("seqlens", kOnnxInt32, {"1"});
  b.Output("mha").Output("pk").Output("pv").Output("gqa").Output("gk").Output("gv");
  auto* total = b.graph().add_initializer();
  total->set_name("total");
  total->set_data_type(kOnnxInt32);
  total->add_int32_data(14);
  SetIntAttribute(MsNode(b, "MultiHeadAttention", {"q", "k", "v", "", "", "", "past_k", "past_v"},
                         {"mha", "pk", "pv"}),
                  "num_heads", 8);
  auto& gqa =
      MsNode(b, "GroupQueryAttention", {"q", "kv", "kv", "gpast_k", "gpast_v", "seqlens", "total"},
             {"gqa", "gk", "gv"});
  SetIntAttribute(gqa, "num_heads", 8);
  SetIntAttribute(gqa, "kv_num_heads", 4);
  const Subgraph s = ReadOnnx(b.Bytes(), "attention.onnx").graph.subgraphs[0];
  EXPECT_EQ(Named(s, "mha").shape, (Shape{1, 4, 64}));
  EXPECT_EQ(Named(s, "pk").shape, (Shape{1, 8, 14, 8}));
  EXPECT_EQ(Named(s, "pv").shape, (Shape{1, 8, 14, 8}));
  EXPECT_EQ(Named(s, "gqa").shape, (Shape{1, 4, 64}));
  EXPECT_EQ(Named(s, "gk").shape, (Shape{1, 4, 14, 8}));  // max(past 10, total 14)
  EXPECT_EQ(Named(s, "gv").shape, (Shape{1, 4, 14, 8}));
}

TEST(OnnxContrib, NormalizationAndActivationFusionsKeepShapes) {
  OnnxBuilder b = Contrib(13);
  b.Input("x", kOnnxFloat, {"2", "5", "16"});
  b.FloatInitializer("g", {16}).FloatInitializer("bias", {16}).FloatInitializer("half", {32});
  b.Output("ln").Output("ln_mean").Output("sln").Output("ssln").Output("sum").Output("rms");
  b.Output("quick").Output("added").Output("split");
  MsNode(b, "LayerNormalization", {"x", "g", "bias"}, {"ln", "ln_mean"});
  MsNode(b, "SkipLayerNormalization", {"x", "x", "g", "bias"}, {"sln", "", "", "sum"});
  MsNode(b, "SkipSimplifiedLayerNormalization", {"x", "x", "g"}, {"ssln"});
  b.Node("SimplifiedLayerNormalization", {"x", "g"}, {"rms"});  // ONNX Runtime's, default domain
  MsNode(b, "QuickGelu", {"x"}, {"quick"});
  MsNode(b, "BiasAdd", {"x", "g", "x"}, {"added"});
  b.Input("wide", kOnnxFloat, {"2", "5", "32"});
  MsNode(b, "BiasSplitGelu", {"wide", "half"}, {"split"});
  const Subgraph s = ReadOnnx(b.Bytes(), "norms.onnx").graph.subgraphs[0];
  for (const char* name : {"ln", "sln", "ssln", "sum", "rms", "quick", "added"})
    EXPECT_EQ(Named(s, name).shape, (Shape{2, 5, 16})) << name;
  EXPECT_EQ(Named(s, "ln_mean").shape, (Shape{2, 5, 1}));
  EXPECT_EQ(Named(s, "ln_mean").type, DataType::kFloat32);
  EXPECT_EQ(Named(s, "split").shape, (Shape{2, 5, 16}));
}

TEST(OnnxContrib, FusedConvNhwcConvFusedMatMulAndMatMulNBits) {
  OnnxBuilder b = Contrib();
  b.Input("img", kOnnxFloat, {"1", "3", "8", "8"}).Input("nhwc", kOnnxFloat, {"1", "8", "8", "3"});
  b.Input("a", kOnnxFloat, {"2", "6", "4"}).Input("tokens", kOnnxFloat, {"1", "7", "64"});
  b.FloatInitializer("w", {16, 3, 3, 3}).FloatInitializer("bt", {5, 4});
  b.Output("conv").Output("nconv").Output("fmm").Output("nbits");
  auto& conv = MsNode(b, "FusedConv", {"img", "w"}, {"conv"});
  SetStringAttribute(conv, "activation", "Relu");
  SetIntsAttribute(conv, "strides", {2, 2});
  SetIntsAttribute(conv, "pads", {1, 1, 1, 1});
  SetIntsAttribute(MsNode(b, "NhwcConv", {"nhwc", "w"}, {"nconv"}), "pads", {1, 1, 1, 1});
  SetIntAttribute(MsNode(b, "FusedMatMul", {"a", "bt"}, {"fmm"}), "transB", 1);
  auto& max_pool = MsNode(b, "NhwcMaxPool", {"nhwc"}, {"npool"});
  SetIntsAttribute(max_pool, "kernel_shape", {2, 2});
  SetIntsAttribute(max_pool, "strides", {2, 2});
  b.Output("npool");
  auto* packed = b.graph().add_initializer();  // [N, blocks, blob] uint8
  packed->set_name("packed");
  packed->set_data_type(kOnnxUInt8);
  for (const std::int64_t d : {32, 2, 16}) packed->add_dims(d);
  packed->set_raw_data(std::string(32 * 2 * 16, '\0'));
  b.FloatInitializer("scales", {64});
  auto& nbits = MsNode(b, "MatMulNBits", {"tokens", "packed", "scales"}, {"nbits"});
  SetIntAttribute(nbits, "K", 64);
  SetIntAttribute(nbits, "N", 32);
  SetIntAttribute(nbits, "bits", 4);
  SetIntAttribute(nbits, "block_size", 32);
  const Subgraph s = ReadOnnx(b.Bytes(), "fused.onnx").graph.subgraphs[0];
  EXPECT_EQ(Named(s, "conv").shape, (Shape{1, 16, 4, 4}));
  EXPECT_EQ(Named(s, "nconv").shape, (Shape{1, 8, 8, 16}));
  EXPECT_EQ(Named(s, "fmm").shape, (Shape{2, 6, 5}));
  EXPECT_EQ(Named(s, "npool").shape, (Shape{1, 4, 4, 3}));
  EXPECT_EQ(Named(s, "nbits").shape, (Shape{1, 7, 32}));
}

TEST(OnnxContrib, QLinearOperatorsKeepQuantizedTypes) {
  OnnxBuilder b = Contrib();
  b.Input("a", kOnnxUInt8, {"1", "8", "6", "6"}).Input("c", kOnnxUInt8, {"1", "8", "1", "1"});
  b.FloatValues("s", {0.1f});
  auto* zp = b.graph().add_initializer();
  zp->set_name("zp");
  zp->set_data_type(kOnnxUInt8);
  zp->add_int32_data(128);
  b.Output("add").Output("cat").Output("pool").Output("gpool").Output("sig");
  MsNode(b, "QLinearAdd", {"a", "s", "zp", "c", "s", "zp", "s", "zp"}, {"add"});
  SetIntAttribute(MsNode(b, "QLinearConcat", {"s", "zp", "a", "s", "zp", "a", "s", "zp"}, {"cat"}),
                  "axis", 1);
  auto& pool = MsNode(b, "QLinearAveragePool", {"a", "s", "zp", "s", "zp"}, {"pool"});
  SetIntsAttribute(pool, "kernel_shape", {2, 2});
  SetIntsAttribute(pool, "strides", {2, 2});
  MsNode(b, "QLinearGlobalAveragePool", {"a", "s", "zp", "s", "zp"}, {"gpool"});
  MsNode(b, "QLinearSigmoid", {"a", "s", "zp", "s", "zp"}, {"sig"});
  const Subgraph s = ReadOnnx(b.Bytes(), "qlinear.onnx").graph.subgraphs[0];
  EXPECT_EQ(Named(s, "add").shape, (Shape{1, 8, 6, 6}));
  EXPECT_EQ(Named(s, "add").type, DataType::kUInt8);
  EXPECT_EQ(Named(s, "cat").shape, (Shape{1, 16, 6, 6}));
  EXPECT_EQ(Named(s, "pool").shape, (Shape{1, 8, 3, 3}));
  EXPECT_EQ(Named(s, "gpool").shape, (Shape{1, 8, 1, 1}));
  EXPECT_EQ(Named(s, "sig").bytes, Bytes{8 * 36});
}

TEST(OnnxContrib, DynamicQuantizedMatMulsAreFloat) {
  OnnxBuilder b = Contrib();
  b.Input("a", kOnnxFloat, {"3", "4"}).Input("qa", kOnnxUInt8, {"3", "4"});
  auto* w = b.graph().add_initializer();
  w->set_name("w");
  w->set_data_type(kOnnxUInt8);
  w->add_dims(4);
  w->add_dims(5);
  w->set_raw_data(std::string(20, '\0'));
  b.FloatValues("s", {0.5f});
  b.Output("dq").Output("itf");
  MsNode(b, "DynamicQuantizeMatMul", {"a", "w", "s"}, {"dq"});
  MsNode(b, "MatMulIntegerToFloat", {"qa", "w", "s", "s"}, {"itf"});
  const Subgraph s = ReadOnnx(b.Bytes(), "dq.onnx").graph.subgraphs[0];
  EXPECT_EQ(Named(s, "dq").shape, (Shape{3, 5}));
  EXPECT_EQ(Named(s, "itf").shape, (Shape{3, 5}));
  EXPECT_EQ(Named(s, "itf").type, DataType::kFloat32);
}

TEST(OnnxContrib, UnknownDomainStopsWithOpDomainAndFlags) {
  OnnxBuilder b;
  b.Opset("com.example", 1);
  b.Input("x", kOnnxFloat, {"1", "4"}).Output("y");
  auto& node = b.Node("Mystery", {"x"}, {"y"}, "mystery");
  node.set_domain("com.example");
  try {
    ReadOnnx(b.Bytes(), "custom.onnx");
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("Mystery"), std::string::npos) << message;
    EXPECT_NE(message.find("com.example"), std::string::npos) << message;
    EXPECT_NE(message.find("shape of y: AxBxC"), std::string::npos) << message;
  }
  LoadOptions options;
  options.shapes = {{"y", {1, 4}}};  // the flag the message offers; the type is x's
  const OnnxModel m = ReadOnnx(b.Bytes(), "custom.onnx", options);
  EXPECT_EQ(Named(m.graph.subgraphs[0], "y").bytes, Bytes{16});
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0],
            "warning: tensor 'y': element type FLOAT taken from input 'x' of node 'mystery' "
            "(Mystery), which memplan has no shape rule for");
}

}  // namespace
}  // namespace memplan
