#include "tests/onnx_sample_models.h"

namespace memplan::testing {

namespace {

constexpr int kOnnxInt32 = 6;
constexpr const char* kMs = "com.microsoft";

onnx::NodeProto& MsNode(OnnxBuilder& b, const std::string& op, const std::vector<std::string>& in,
                        const std::vector<std::string>& out) {
  auto& node = b.Node(op, in, out, op);
  node.set_domain(kMs);
  return node;
}

}  // namespace

OnnxBuilder DetectorUpsampling() {
  OnnxBuilder b(13);
  b.Input("image", kOnnxFloat, {"1", "256", "12", "12"}).Output("out");
  b.Int64Initializer("starts", {2})
      .Int64Initializer("ends", {4})
      .Int64Initializer("head", {1, 256});
  b.Int64Tensor("two", {}, {2});
  b.Node("Relu", {"image"}, {"features"}, "relu");
  for (const std::string stage : {"a", "b"}) {
    const std::string in = stage == "a" ? "features" : "up_a";
    b.Node("Shape", {in}, {"shape_" + stage});
    b.Node("Slice", {"shape_" + stage, "starts", "ends"}, {"hw_" + stage});
    b.Node("Mul", {"hw_" + stage, "two"}, {"hw2_" + stage});
    SetIntAttribute(b.Node("Concat", {"head", "hw2_" + stage}, {"sizes_" + stage}), "axis", 0);
    auto& resize =
        b.Node("Resize", {in, "", "", "sizes_" + stage}, {"up_" + stage}, "resize_" + stage);
    SetStringAttribute(resize, "mode", "nearest");
  }
  b.Node("Sigmoid", {"up_b"}, {"out"});
  return b;
}

OnnxBuilder OptimizedTransformerBlock() {
  OnnxBuilder b(13);
  b.Opset(kMs, 1);
  b.Input("input_ids", kOnnxInt32, {"batch", "seq"});
  b.Input("past", kOnnxFloat, {"2", "batch", "4", "past_seq", "8"});
  b.Output("y").Output("present").Output("mask_index");
  b.FloatInitializer("word", {100, 32}).FloatInitializer("pos", {64, 32});
  b.FloatInitializer("gamma", {32}).FloatInitializer("beta", {32});
  b.FloatInitializer("qkv_w", {32, 96}).FloatInitializer("qkv_b", {96});
  b.FloatInitializer("fc_w", {32, 128}).FloatInitializer("fc_b", {128});
  MsNode(b, "EmbedLayerNormalization", {"input_ids", "", "word", "pos", "", "gamma", "beta"},
         {"embedded", "mask_index"});
  SetIntAttribute(
      MsNode(b, "Attention", {"embedded", "qkv_w", "qkv_b", "", "past"}, {"attended", "present"}),
      "num_heads", 4);
  MsNode(b, "SkipLayerNormalization", {"attended", "embedded", "gamma", "beta"}, {"normed"});
  b.Node("MatMul", {"normed", "fc_w"}, {"fc"});
  MsNode(b, "FastGelu", {"fc", "fc_b"}, {"gelu"});
  MsNode(b, "BiasGelu", {"gelu", "fc_b"}, {"y"});
  return b;
}

OnnxBuilder ExportedWithBatchOne() {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"N", "4"});
  b.ValueInfo("y", kOnnxFloat, {"1", "4"});
  b.TypedOutput("z", kOnnxFloat, {"1", "4"});
  b.Node("Relu", {"x"}, {"y"});
  b.Node("Sigmoid", {"y"}, {"z"});
  return b;
}

OnnxBuilder Opset18Model() {
  OnnxBuilder b(18);
  b.Input("img", kOnnxFloat, {"1", "3", "20", "30"}).Input("seq", kOnnxFloat, {"2", "7", "6"});
  b.Output("smooth").Output("fit").Output("mean").Output("p0").Output("p1").Output("p2");
  b.Output("padded");
  b.Int64Initializer("sizes", {1, 3, 40, 60}).Int64Initializer("box", {10, 10});
  b.Int64Initializer("axis1", {1}).Int64Initializer("pads", {1, 2}).Int64Initializer("axis2", {2});
  auto& smooth = b.Node("Resize", {"img", "", "", "sizes"}, {"smooth"}, "antialiased");
  SetStringAttribute(smooth, "mode", "linear");
  SetIntAttribute(smooth, "antialias", 1);
  auto& fit = b.Node("Resize", {"img", "", "", "box"}, {"fit"}, "fit");
  SetIntsAttribute(fit, "axes", {2, 3});
  SetStringAttribute(fit, "keep_aspect_ratio_policy", "not_larger");
  SetIntAttribute(b.Node("ReduceMean", {"seq", "axis1"}, {"mean"}), "keepdims", 0);
  SetIntAttribute(b.Node("Split", {"seq"}, {"p0", "p1", "p2"}), "num_outputs", 3);
  b.Node("Pad", {"seq", "pads", "", "axis2"}, {"padded"});
  return b;
}

OnnxBuilder Opset23Model() {
  OnnxBuilder b(23);
  b.Input("x", kOnnxFloat, {"1", "5", "64"}).Input("past_k", kOnnxFloat, {"1", "2", "11", "16"});
  b.Input("past_v", kOnnxFloat, {"1", "2", "11", "16"});
  b.Input("cos", kOnnxFloat, {"32", "8"}).Input("sin", kOnnxFloat, {"32", "8"});
  b.Input("pos", kOnnxInt64, {"1", "5"});
  b.Output("y").Output("present_k").Output("present_v");
  b.FloatInitializer("scale", {64}).FloatInitializer("wk", {64, 32});
  b.Node("RMSNormalization", {"x", "scale"}, {"normed"});
  SetIntAttribute(b.Node("RotaryEmbedding", {"normed", "cos", "sin", "pos"}, {"q"}), "num_heads",
                  4);
  b.Node("MatMul", {"normed", "wk"}, {"kv"});
  auto& attention = b.Node("Attention", {"q", "kv", "kv", "", "past_k", "past_v"},
                           {"y", "present_k", "present_v"});
  SetIntAttribute(attention, "q_num_heads", 4);
  SetIntAttribute(attention, "kv_num_heads", 2);
  return b;
}

OnnxBuilder ExtensionsWrappedModel() {
  OnnxBuilder b(18);
  b.Opset("com.microsoft.extensions", 1);
  b.Input("image", kOnnxUint8, {"num_bytes"}).Output("png");
  b.Int64Initializer("box", {224, 224}).Int64Initializer("zero", {0});
  b.Int64Initializer("sizes", {1, 3, 112, 112});
  auto& decode = b.Node("DecodeImage", {"image"}, {"bgr"}, "decode");
  decode.set_domain("com.microsoft.extensions");
  SetStringAttribute(decode, "color_space", "BGR");
  // Pre-processing's resize: HWC, the longer side to 224, antialiased.
  auto& fit = b.Node("Resize", {"bgr", "", "", "box"}, {"fitted"}, "fit");
  SetIntsAttribute(fit, "axes", {0, 1});
  SetStringAttribute(fit, "keep_aspect_ratio_policy", "not_larger");
  SetIntAttribute(fit, "antialias", 1);
  SetStringAttribute(fit, "mode", "linear");
  SetIntsAttribute(b.Node("Transpose", {"fitted"}, {"chw"}), "perm", {2, 0, 1});
  SetIntAttribute(b.Node("Cast", {"chw"}, {"pixels"}), "to", kOnnxFloat);
  b.Node("Unsqueeze", {"pixels", "zero"}, {"batch"});
  // The model's own resize: every axis, antialiased (ONNX's opset-13 rule with antialias).
  auto& smooth = b.Node("Resize", {"batch", "", "", "sizes"}, {"small"}, "smooth");
  SetIntAttribute(smooth, "antialias", 1);
  SetStringAttribute(smooth, "mode", "linear");
  b.Node("Squeeze", {"small", "zero"}, {"planes"});
  SetIntsAttribute(b.Node("Transpose", {"planes"}, {"hwc"}), "perm", {1, 2, 0});
  SetIntAttribute(b.Node("Cast", {"hwc"}, {"bytes"}), "to", kOnnxUint8);
  auto& encode = b.Node("EncodeImage", {"bytes"}, {"png"}, "encode");
  encode.set_domain("com.microsoft.extensions");
  SetStringAttribute(encode, "format", "png");
  return b;
}

std::vector<std::pair<std::string, OnnxBuilder>> SampleOnnxModels() {
  return {{"detector_upsampling.onnx", DetectorUpsampling()},
          {"ort_transformer_block.onnx", OptimizedTransformerBlock()},
          {"exported_with_batch_one.onnx", ExportedWithBatchOne()},
          {"opset18_ops.onnx", Opset18Model()},
          {"opset23_decoder.onnx", Opset23Model()},
          {"extensions_wrapped.onnx", ExtensionsWrappedModel()}};
}

}  // namespace memplan::testing
