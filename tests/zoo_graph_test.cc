// The built-in models as graphs: well formed, the published operator mix, and layer
// shapes worked out by hand from the papers' architecture tables.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "memplan/error.h"
#include "memplan/zoo.h"

namespace memplan {
namespace {

using Shape = std::vector<std::int64_t>;

Graph Build(std::string_view name) {
  auto g = ZooGraph(name);
  if (!g) throw std::runtime_error("no zoo model " + std::string(name));
  return std::move(*g);
}

const Tensor& Named(const Graph& g, const std::string& name) {
  for (const Tensor& t : g.subgraphs.at(0).tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name + " in " + g.source);
}

std::map<std::string, int> OpTypes(const Graph& g) {
  std::map<std::string, int> counts;
  for (const Operator& op : g.subgraphs.at(0).ops) ++counts[op.type];
  return counts;
}

// Activations: tensors that are neither constants nor graph inputs/outputs (what the
// intermediates-only accounting plans).
std::vector<const Tensor*> Intermediates(const Graph& g) {
  const Subgraph& s = g.subgraphs.at(0);
  std::set<std::int32_t> io(s.inputs.begin(), s.inputs.end());
  io.insert(s.outputs.begin(), s.outputs.end());
  std::vector<const Tensor*> out;
  for (std::size_t i = 0; i < s.tensors.size(); ++i)
    if (!s.tensors[i].is_constant && !io.count(static_cast<std::int32_t>(i)))
      out.push_back(&s.tensors[i]);
  return out;
}

Bytes SumBytes(const std::vector<const Tensor*>& tensors) {
  Bytes sum = 0;
  for (const Tensor* t : tensors) sum += *t->bytes;
  return sum;
}

Bytes LargestBytes(const std::vector<const Tensor*>& tensors) {
  Bytes largest = 0;
  for (const Tensor* t : tensors) largest = std::max(largest, *t->bytes);
  return largest;
}

// Elements of the float32 constants (weights and biases).
Bytes FloatConstants(const Graph& g) {
  Bytes n = 0;
  for (const Tensor& t : g.subgraphs.at(0).tensors)
    if (t.is_constant && t.type == DataType::kFloat32) n += *t.bytes / 4;
  return n;
}

Shape OutputShape(const Graph& g) {
  const Subgraph& s = g.subgraphs.at(0);
  return s.tensors.at(static_cast<std::size_t>(s.outputs.at(0))).shape;
}

TEST(ZooGraph, UnknownNameIsNullopt) {
  EXPECT_FALSE(ZooGraph("nope").has_value());
  EXPECT_FALSE(ZooGraph("").has_value());
  EXPECT_FALSE(ZooGraph("zoo:mobilenet_v2").has_value());  // the prefix is the caller's
}

// Every model: one subgraph; every op input is a graph input, a constant, an earlier
// op's output or absent (-1); every activation is written by exactly one op; every
// tensor has a static size; names are unique.
TEST(ZooGraph, EveryModelIsWellFormed) {
  ASSERT_EQ(ZooModels().size(), 6u);
  for (const ZooModel& m : ZooModels()) {
    SCOPED_TRACE(std::string(m.name));
    const Graph g = m.build();
    EXPECT_EQ(g.source, "zoo:" + std::string(m.name));
    EXPECT_EQ(g.format, "zoo");
    ASSERT_EQ(g.subgraphs.size(), 1u);
    const Subgraph& s = g.subgraphs[0];
    ASSERT_EQ(s.inputs.size(), 1u);
    ASSERT_EQ(s.outputs.size(), 1u);
    std::vector<int> writers(s.tensors.size(), 0);
    std::vector<bool> ready(s.tensors.size(), false);
    for (std::int32_t in : s.inputs) ready[static_cast<std::size_t>(in)] = true;
    for (std::size_t i = 0; i < s.tensors.size(); ++i)
      if (s.tensors[i].is_constant) ready[i] = true;
    for (const Operator& op : s.ops) {
      for (std::int32_t in : op.inputs) {
        if (in == -1) continue;
        ASSERT_GE(in, 0);
        ASSERT_LT(static_cast<std::size_t>(in), s.tensors.size());
        EXPECT_TRUE(ready[static_cast<std::size_t>(in)])
            << op.name << " reads " << s.tensors[static_cast<std::size_t>(in)].name
            << " before it is written";
      }
      for (std::int32_t out : op.outputs) {
        const auto o = static_cast<std::size_t>(out);
        EXPECT_FALSE(s.tensors[o].is_constant) << s.tensors[o].name;
        ++writers[o];
        ready[o] = true;
      }
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < s.tensors.size(); ++i) {
      const Tensor& t = s.tensors[i];
      EXPECT_TRUE(names.insert(t.name).second) << "duplicate name " << t.name;
      ASSERT_TRUE(t.bytes.has_value()) << t.name;
      const bool is_input = std::find(s.inputs.begin(), s.inputs.end(), i) != s.inputs.end();
      if (!t.is_constant && !is_input) EXPECT_EQ(writers[i], 1) << t.name;
      for (std::int64_t d : t.shape) EXPECT_GT(d, 0) << t.name;
    }
  }
}

TEST(ZooGraph, BuildsAreDeterministic) {
  for (const ZooModel& m : ZooModels()) {
    const Graph a = m.build();
    const Graph b = m.build();
    ASSERT_EQ(a.TensorCount(), b.TensorCount());
    for (std::size_t i = 0; i < a.subgraphs[0].tensors.size(); ++i) {
      EXPECT_EQ(a.subgraphs[0].tensors[i].name, b.subgraphs[0].tensors[i].name);
      EXPECT_EQ(a.subgraphs[0].tensors[i].shape, b.subgraphs[0].tensors[i].shape);
    }
  }
}

// The reference "float MobileNets" (docs/testing.md): 31 ops; conv, 13
// depthwise/pointwise pairs, average pool, 1×1 conv to 1001, reshape, softmax; 30 intermediates,
// naive 20,182,856 B.
TEST(ZooGraph, MobileNetV1) {
  const Graph g = Build("mobilenet_v1");
  EXPECT_EQ(g.OpCount(), 31u);
  const std::map<std::string, int> want = {{"CONV_2D", 15},
                                           {"DEPTHWISE_CONV_2D", 13},
                                           {"AVERAGE_POOL_2D", 1},
                                           {"RESHAPE", 1},
                                           {"SOFTMAX", 1}};
  EXPECT_EQ(OpTypes(g), want);
  EXPECT_EQ(OutputShape(g), (Shape{1, 1001}));
  EXPECT_EQ(Named(g, "MobilenetV1/Conv2d_0").shape, (Shape{1, 112, 112, 32}));
  EXPECT_EQ(Named(g, "MobilenetV1/Conv2d_13_pointwise").shape, (Shape{1, 7, 7, 1024}));
  EXPECT_EQ(Named(g, "MobilenetV1/Conv2d_0/weights").shape, (Shape{32, 3, 3, 3}));
  const auto inter = Intermediates(g);
  EXPECT_EQ(inter.size(), 30u);
  EXPECT_EQ(SumBytes(inter), 20'182'856u);
  // The largest: 112×112×64 floats out of the first pointwise convolution.
  EXPECT_EQ(LargestBytes(inter), 112u * 112 * 64 * 4);
}

// The reference "float MobileNets" (docs/testing.md): 66 ops, 17 blocks, 10
// residual ADDs; 65 intermediates, naive 27,591,112 B (the TensorFlow Lite blog's "~26 MB").
TEST(ZooGraph, MobileNetV2) {
  const Graph g = Build("mobilenet_v2");
  EXPECT_EQ(g.OpCount(), 66u);
  const std::map<std::string, int> want = {{"CONV_2D", 36}, {"DEPTHWISE_CONV_2D", 17},
                                           {"ADD", 10},     {"AVERAGE_POOL_2D", 1},
                                           {"RESHAPE", 1},  {"SOFTMAX", 1}};
  EXPECT_EQ(OpTypes(g), want);
  EXPECT_EQ(OutputShape(g), (Shape{1, 1001}));
  EXPECT_EQ(Named(g, "MobilenetV2/expanded_conv_1/expand").shape, (Shape{1, 112, 112, 96}));
  EXPECT_EQ(Named(g, "MobilenetV2/expanded_conv_1/depthwise").shape, (Shape{1, 56, 56, 96}));
  EXPECT_EQ(Named(g, "MobilenetV2/expanded_conv_16/project").shape, (Shape{1, 7, 7, 320}));
  EXPECT_EQ(Named(g, "MobilenetV2/Conv_1").shape, (Shape{1, 7, 7, 1280}));
  const auto inter = Intermediates(g);
  EXPECT_EQ(inter.size(), 65u);
  EXPECT_EQ(SumBytes(inter), 27'591'112u);
  // The reference "float MobileNets": the peak at operator 4 is its input and output, 4,816,896 +
  // 1,204,224 B.
  EXPECT_EQ(*Named(g, "MobilenetV2/expanded_conv_1/expand").bytes, 4'816'896u);
  EXPECT_EQ(*Named(g, "MobilenetV2/expanded_conv_1/depthwise").bytes, 1'204'224u);
}

// He et al. Table 1 (Keras layout): 53 convolutions (49 in the bottlenecks' paths plus 4
// projection shortcuts), 16 residual ADDs.
TEST(ZooGraph, ResNet50) {
  const Graph g = Build("resnet50");
  EXPECT_EQ(g.OpCount(), 73u);
  const std::map<std::string, int> want = {{"CONV_2D", 53},        {"ADD", 16},
                                           {"MAX_POOL_2D", 1},     {"MEAN", 1},
                                           {"FULLY_CONNECTED", 1}, {"SOFTMAX", 1}};
  EXPECT_EQ(OpTypes(g), want);
  EXPECT_EQ(OutputShape(g), (Shape{1, 1000}));
  EXPECT_EQ(Named(g, "conv1_conv").shape, (Shape{1, 112, 112, 64}));
  EXPECT_EQ(Named(g, "pool1_pool").shape, (Shape{1, 56, 56, 64}));
  EXPECT_EQ(Named(g, "conv2_block3_out").shape, (Shape{1, 56, 56, 256}));
  // Keras v1 strides the first 1×1 convolution of a stage.
  EXPECT_EQ(Named(g, "conv3_block1_1_conv").shape, (Shape{1, 28, 28, 128}));
  EXPECT_EQ(Named(g, "conv4_block6_out").shape, (Shape{1, 14, 14, 1024}));
  EXPECT_EQ(Named(g, "conv5_block3_out").shape, (Shape{1, 7, 7, 2048}));
  EXPECT_EQ(Named(g, "avg_pool").shape, (Shape{1, 2048}));
  EXPECT_EQ(Named(g, "predictions/weights").shape, (Shape{1000, 2048}));
  // By hand: the largest activation is 112×112×64 floats = 3,211,264 B (conv1; stage 2's
  // 56×56×256 outputs are as large).
  EXPECT_EQ(LargestBytes(Intermediates(g)), 3'211'264u);
  // Keras reports 25,636,712 parameters of which 53,120 are non-trainable (moving mean
  // and variance, 2 per batch-norm channel, so 26,560 channels); folding batch norm
  // removes its 4 values per channel and leaves 25,530,472 weights and biases.
  EXPECT_EQ(FloatConstants(g), 25'636'712u - 4 * 26'560u);
}

// Szegedy et al. 2016 / Keras: 94 convolutions, 11 mixed blocks plus 4 inner
// concatenations, 35→17→8 grids.
TEST(ZooGraph, InceptionV3) {
  const Graph g = Build("inception_v3");
  EXPECT_EQ(g.OpCount(), 125u);
  const std::map<std::string, int> want = {
      {"CONV_2D", 94}, {"CONCATENATION", 15},  {"AVERAGE_POOL_2D", 9}, {"MAX_POOL_2D", 4},
      {"MEAN", 1},     {"FULLY_CONNECTED", 1}, {"SOFTMAX", 1}};
  EXPECT_EQ(OpTypes(g), want);
  EXPECT_EQ(OutputShape(g), (Shape{1, 1000}));
  EXPECT_EQ(Named(g, "conv_1a_3x3").shape, (Shape{1, 149, 149, 32}));
  EXPECT_EQ(Named(g, "conv_4a_3x3").shape, (Shape{1, 71, 71, 192}));
  EXPECT_EQ(Named(g, "mixed0").shape, (Shape{1, 35, 35, 256}));
  EXPECT_EQ(Named(g, "mixed2").shape, (Shape{1, 35, 35, 288}));
  EXPECT_EQ(Named(g, "mixed3").shape, (Shape{1, 17, 17, 768}));
  EXPECT_EQ(Named(g, "mixed7").shape, (Shape{1, 17, 17, 768}));
  EXPECT_EQ(Named(g, "mixed8").shape, (Shape{1, 8, 8, 1280}));
  EXPECT_EQ(Named(g, "mixed9/branch3x3").shape, (Shape{1, 8, 8, 768}));
  EXPECT_EQ(Named(g, "mixed10").shape, (Shape{1, 8, 8, 2048}));
  // By hand: the largest activation is conv_2b's 147×147×64 floats = 5,531,904 B.
  EXPECT_EQ(LargestBytes(Intermediates(g)), 5'531'904u);
  // Keras reports 23,851,784 parameters, 23,817,352 trainable. Its convolutions have no
  // bias and batch norm no scale: each channel has β (trainable) and a moving mean and
  // variance (non-trainable). Folding leaves the kernels, one bias per channel (as many
  // as the βs) and the classifier: exactly the trainable count.
  EXPECT_EQ(FloatConstants(g), 23'817'352u);
}

// Radford et al. 2019, GPT-2 small over 128 tokens.
TEST(ZooGraph, Gpt2Small) {
  const Graph g = Build("gpt2");
  // 2 (embedding) + 12 × 39 (9 LayerNorm ×2, 17 attention, 4 MLP) + 9 + 1 (LM head).
  EXPECT_EQ(g.OpCount(), 480u);
  const std::map<std::string, int> want = {{"GATHER", 1},
                                           {"ADD", 87},
                                           {"MEAN", 50},
                                           {"SUB", 25},
                                           {"MUL", 87},
                                           {"RSQRT", 25},
                                           {"FULLY_CONNECTED", 49},
                                           {"SPLIT", 12},
                                           {"RESHAPE", 48},
                                           {"TRANSPOSE", 48},
                                           {"BATCH_MATMUL", 24},
                                           {"SOFTMAX", 12},
                                           {"GELU", 12}};
  EXPECT_EQ(OpTypes(g), want);
  EXPECT_EQ(OutputShape(g), (Shape{1, 128, 50257}));
  EXPECT_EQ(g.subgraphs[0].tensors[static_cast<std::size_t>(g.subgraphs[0].inputs[0])].type,
            DataType::kInt32);
  EXPECT_EQ(Named(g, "h0/attn/c_attn").shape, (Shape{1, 128, 2304}));
  EXPECT_EQ(Named(g, "h0/attn/k/transposed").shape, (Shape{1, 12, 64, 128}));
  EXPECT_EQ(Named(g, "h11/mlp/gelu").shape, (Shape{1, 128, 3072}));
  // By hand: one head block of attention scores is 12×128×128 floats = 786,432 B; the
  // largest intermediate is the 128×3072 MLP hidden state, 1,572,864 B (the logits,
  // 128×50257×4 = 25,731,584 B, are the graph output).
  EXPECT_EQ(*Named(g, "h5/attn/probs").bytes, 786'432u);
  EXPECT_EQ(LargestBytes(Intermediates(g)), 1'572'864u);
  const Subgraph& s = g.subgraphs[0];
  EXPECT_EQ(*s.tensors[static_cast<std::size_t>(s.outputs[0])].bytes, 25'731'584u);
  // The published 124,439,808 parameters (wte tied to the LM head) hold 1024 learned
  // positions; 128 of them are used here. The ε, scale and mask constants are no
  // parameters.
  const Bytes extras = 25 + 12 + 128 * 128;  // ε per LayerNorm, scale per layer, the mask
  EXPECT_EQ(FloatConstants(g) - extras, 124'439'808u - (1024 - 128) * 768u);
}

// Gulati et al. 2020, Conformer (S): 16 blocks of d_model 144 over 400 frames of 80
// log-mels; two 3×3 stride-2 VALID convolutions subsample time by 4.
TEST(ZooGraph, ConformerS) {
  const Graph g = Build("conformer_s");
  // 4 (subsampling) + 16 × 84 (two feed-forward halves of 15, attention 25, convolution
  // module 20, final LayerNorm 9).
  EXPECT_EQ(g.OpCount(), 1348u);
  const std::map<std::string, int> want = {{"CONV_2D", 2},    {"RESHAPE", 97},
                                           {"TRANSPOSE", 64}, {"FULLY_CONNECTED", 129},
                                           {"SPLIT", 32},     {"LOGISTIC", 64},
                                           {"MUL", 352},      {"ADD", 224},
                                           {"MEAN", 160},     {"SUB", 80},
                                           {"RSQRT", 80},     {"BATCH_MATMUL", 32},
                                           {"SOFTMAX", 16},   {"DEPTHWISE_CONV_2D", 16}};
  EXPECT_EQ(OpTypes(g), want);
  // VALID 3×3 stride 2: 400 → 199 → 99 frames, 80 → 39 → 19 features.
  EXPECT_EQ(Named(g, "subsample/conv1").shape, (Shape{1, 199, 39, 144}));
  EXPECT_EQ(Named(g, "subsample/conv2").shape, (Shape{1, 99, 19, 144}));
  EXPECT_EQ(Named(g, "subsample/flatten").shape, (Shape{1, 99, 2736}));
  EXPECT_EQ(Named(g, "block0/attention/scores").shape, (Shape{1, 4, 99, 99}));
  EXPECT_EQ(Named(g, "block7/conv/depthwise").shape, (Shape{1, 99, 1, 144}));
  EXPECT_EQ(Named(g, "block15/ff2/fc1").shape, (Shape{1, 99, 576}));
  EXPECT_EQ(OutputShape(g), (Shape{1, 99, 144}));
  // The first convolution's output is the largest activation: 199×39×144 floats.
  EXPECT_EQ(LargestBytes(Intermediates(g)), 4'470'336u);
}

TEST(ZooGraph, OpenDimensions) {
  // 1000 frames: 499 after the first convolution, 249 after the second.
  const auto g = ZooGraphWith("conformer_s", "frames", 1000);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->source, "zoo:conformer_s (1000 frames)");
  EXPECT_EQ(Named(*g, "block3/attention/probs").shape, (Shape{1, 4, 249, 249}));
  EXPECT_EQ(OutputShape(*g), (Shape{1, 249, 144}));
  EXPECT_EQ(Named(*ZooGraphWith("gpt2", "tokens", 16), "h0/attn/probs").shape,
            (Shape{1, 12, 16, 16}));
  EXPECT_FALSE(ZooGraphWith("nope", "frames", 10));
  EXPECT_THROW(ZooGraphWith("conformer_s", "frames", 6), UsageError);  // too short to subsample
  EXPECT_THROW(ZooGraphWith("conformer_s", "tokens", 100), UsageError);
  EXPECT_THROW(ZooGraphWith("resnet50", "batch", 2), UsageError);
  EXPECT_THROW(ZooGraphWith("gpt2", "tokens", (std::int64_t{1} << 20) + 1), UsageError);
}

}  // namespace
}  // namespace memplan
