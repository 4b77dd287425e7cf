// Conformer (S) (Gulati et al. 2020, "Conformer: Convolution-augmented Transformer for
// Speech Recognition"): a speech encoder of 16 blocks, d_model 144, 4 attention heads,
// depthwise convolution kernel 32, feed-forward width 576, over 80 log-mel features of an
// open number of frames (400 = 4 s at a 10 ms hop by default), float32, written with
// TensorFlow Lite operators as a converted model runs it.
// - Subsampling: two CONV_2D 3×3 stride 2 VALID (ReLU fused) on [1, frames, 80, 1], the
//   result flattened per frame and projected to 144 by FULLY_CONNECTED: frames/4 steps.
// - Each block, macaron style: half a feed-forward module (LayerNorm, FC 576, swish as
//   LOGISTIC·MUL, FC 144, MUL 0.5, residual ADD); self-attention (LayerNorm, one FC for
//   Q, K and V, SPLIT, heads by RESHAPE/TRANSPOSE, BATCH_MATMUL, scale, SOFTMAX,
//   BATCH_MATMUL, back, FC, residual ADD); the convolution module (LayerNorm, pointwise
//   FC to 288, GLU as SPLIT·LOGISTIC·MUL, DEPTHWISE_CONV_2D 32×1 SAME over time with the
//   batch norm folded in, swish, pointwise FC, residual ADD); the second half
//   feed-forward; a final LayerNorm.
// The relative positional encoding of the paper's attention is left out (its extra
// matmul adds one [heads, T, T] tensor per block); the tensors' shapes otherwise follow
// the paper's small model.
#include <fmt/format.h>

#include "src/graph/zoo/layers.h"
#include "src/graph/zoo/models.h"

namespace memplan::graph::zoo {

namespace {

constexpr std::int64_t kBlocks = 16;
constexpr std::int64_t kModel = 144;  // d_model
constexpr std::int64_t kHeads = 4;    // attention heads
constexpr std::int64_t kFeedForward = 576;
constexpr std::int64_t kConvKernel = 32;  // depthwise kernel over time
constexpr std::int64_t kMels = 80;        // log-mel features per frame
constexpr std::int64_t kFrames = 400;     // frames per run of zoo:conformer_s

// x·sigmoid(x), as the converter writes Swish.
TensorId Swish(GraphBuilder& g, TensorId x, const std::string& n) {
  return Binary(g, "MUL", x, Unary(g, "LOGISTIC", x, n + "/sigmoid"), n + "/swish");
}

// Half a feed-forward module, added to x.
TensorId FeedForward(GraphBuilder& g, TensorId x, const std::string& n) {
  TensorId h = FullyConnected(g, LayerNorm(g, x, n + "/ln"), n + "/fc1", kFeedForward);
  h = FullyConnected(g, Swish(g, h, n), n + "/fc2", kModel);
  h = Binary(g, "MUL", h, g.Constant(n + "/half", {}), n + "/halved");
  return Binary(g, "ADD", x, h, n + "/residual");
}

TensorId Attention(GraphBuilder& g, TensorId x, const std::string& n) {
  const TensorId attended =
      SelfAttention(g, LayerNorm(g, x, n + "/ln"), n, kHeads, -1, {"/qkv", "/qkv_split", "/out"});
  return Binary(g, "ADD", x, attended, n + "/residual");
}

TensorId ConvModule(GraphBuilder& g, TensorId x, const std::string& n, std::int64_t t) {
  const TensorId wide =
      FullyConnected(g, LayerNorm(g, x, n + "/ln"), n + "/pointwise1", 2 * kModel);
  const std::vector<TensorId> halves = Split(g, wide, n + "/glu_split", -1, 2);
  const TensorId gate = Unary(g, "LOGISTIC", halves[1], n + "/glu_gate");
  TensorId h = Binary(g, "MUL", halves[0], gate, n + "/glu");
  h = Reshape(g, h, n + "/as_image", {1, t, 1, kModel});
  h = TemporalDepthwiseConv(g, h, n + "/depthwise", kConvKernel);
  h = Swish(g, h, n + "/depthwise");
  h = Reshape(g, h, n + "/as_sequence", {1, t, kModel});
  h = FullyConnected(g, h, n + "/pointwise2", kModel);
  return Binary(g, "ADD", x, h, n + "/residual");
}

}  // namespace

Graph BuildConformerS() {
  return BuildConformerS(kFrames);
}

Graph BuildConformerS(std::int64_t frames) {
  GraphBuilder g("conformer_s");
  const TensorId mels = g.Input("log_mel", {1, frames, kMels, 1});
  TensorId x = Conv2D(g, mels, "subsample/conv1", kModel, 3, 3, 2, Padding::kValid);
  x = Conv2D(g, x, "subsample/conv2", kModel, 3, 3, 2, Padding::kValid);
  const Shape s = g.ShapeOf(x);  // [1, T, F, 144]
  const std::int64_t t = s[1];
  x = Reshape(g, x, "subsample/flatten", {1, t, s[2] * s[3]});
  x = FullyConnected(g, x, "subsample/project", kModel);
  for (std::int64_t block = 0; block < kBlocks; ++block) {
    const std::string n = fmt::format("block{}", block);
    x = FeedForward(g, x, n + "/ff1");
    x = Attention(g, x, n + "/attention");
    x = ConvModule(g, x, n + "/conv", t);
    x = FeedForward(g, x, n + "/ff2");
    x = LayerNorm(g, x, n + "/ln_out");
  }
  g.Output(x);
  return std::move(g).Finish();
}

}  // namespace memplan::graph::zoo
