// Inception v3, 299×299×3 float32 (Szegedy et al. 2016), with the layer shapes of the
// Keras application (the TF-slim network without the auxiliary head) as TensorFlow Lite
// runs it: a VALID-padded stem, three 35×35 blocks (mixed0-2), a grid reduction
// (mixed3), four 17×17 blocks with factorised 7×7 convolutions (mixed4-7), a grid
// reduction (mixed8), two 8×8 blocks with split 1×3/3×1 branches (mixed9-10), global
// average pool (MEAN), FULLY_CONNECTED to 1000, SOFTMAX. Every branch ends in a
// CONCATENATION; batch norm is folded and ReLU fused. 94 convolutions, 125 operators.
#include <fmt/format.h>

#include "src/graph/zoo/layers.h"
#include "src/graph/zoo/models.h"

namespace memplan::graph::zoo {

namespace {

constexpr Padding kValid = Padding::kValid;

// A convolution with a kh×kw kernel, stride 1 and SAME padding unless told.
TensorId Conv(GraphBuilder& g, TensorId x, const std::string& name, std::int64_t filters,
              std::int64_t kh, std::int64_t kw, std::int64_t stride = 1,
              Padding padding = Padding::kSame) {
  return Conv2D(g, x, name, filters, kh, kw, stride, padding);
}

// mixed0-2 (35×35): 1×1 | 1×1→5×5 | 1×1→3×3→3×3 | avg pool→1×1 (`pool_filters`).
TensorId Block35(GraphBuilder& g, TensorId x, const std::string& n, std::int64_t pool_filters) {
  const TensorId b1 = Conv(g, x, n + "/branch1x1", 64, 1, 1);
  TensorId b5 = Conv(g, x, n + "/branch5x5_1", 48, 1, 1);
  b5 = Conv(g, b5, n + "/branch5x5_2", 64, 5, 5);
  TensorId b3 = Conv(g, x, n + "/branch3x3dbl_1", 64, 1, 1);
  b3 = Conv(g, b3, n + "/branch3x3dbl_2", 96, 3, 3);
  b3 = Conv(g, b3, n + "/branch3x3dbl_3", 96, 3, 3);
  TensorId bp = Pool2D(g, "AVERAGE_POOL_2D", x, n + "/branch_pool_avg", 3, 1, Padding::kSame);
  bp = Conv(g, bp, n + "/branch_pool", pool_filters, 1, 1);
  return ConcatChannels(g, {b1, b5, b3, bp}, n);
}

// mixed3 (35→17): 3×3/2 | 1×1→3×3→3×3/2 | max pool/2.
TensorId Reduction17(GraphBuilder& g, TensorId x, const std::string& n) {
  const TensorId b3 = Conv(g, x, n + "/branch3x3", 384, 3, 3, 2, kValid);
  TensorId bd = Conv(g, x, n + "/branch3x3dbl_1", 64, 1, 1);
  bd = Conv(g, bd, n + "/branch3x3dbl_2", 96, 3, 3);
  bd = Conv(g, bd, n + "/branch3x3dbl_3", 96, 3, 3, 2, kValid);
  const TensorId bp = Pool2D(g, "MAX_POOL_2D", x, n + "/branch_pool", 3, 2, kValid);
  return ConcatChannels(g, {b3, bd, bp}, n);
}

// mixed4-7 (17×17): 1×1 | 1×1→1×7→7×1 | 1×1→7×1→1×7→7×1→1×7 | avg pool→1×1; the inner
// branches are `width` wide.
TensorId Block17(GraphBuilder& g, TensorId x, const std::string& n, std::int64_t width) {
  const TensorId b1 = Conv(g, x, n + "/branch1x1", 192, 1, 1);
  TensorId b7 = Conv(g, x, n + "/branch7x7_1", width, 1, 1);
  b7 = Conv(g, b7, n + "/branch7x7_2", width, 1, 7);
  b7 = Conv(g, b7, n + "/branch7x7_3", 192, 7, 1);
  TensorId bd = Conv(g, x, n + "/branch7x7dbl_1", width, 1, 1);
  bd = Conv(g, bd, n + "/branch7x7dbl_2", width, 7, 1);
  bd = Conv(g, bd, n + "/branch7x7dbl_3", width, 1, 7);
  bd = Conv(g, bd, n + "/branch7x7dbl_4", width, 7, 1);
  bd = Conv(g, bd, n + "/branch7x7dbl_5", 192, 1, 7);
  TensorId bp = Pool2D(g, "AVERAGE_POOL_2D", x, n + "/branch_pool_avg", 3, 1, Padding::kSame);
  bp = Conv(g, bp, n + "/branch_pool", 192, 1, 1);
  return ConcatChannels(g, {b1, b7, bd, bp}, n);
}

// mixed8 (17→8): 1×1→3×3/2 | 1×1→1×7→7×1→3×3/2 | max pool/2.
TensorId Reduction8(GraphBuilder& g, TensorId x, const std::string& n) {
  TensorId b3 = Conv(g, x, n + "/branch3x3_1", 192, 1, 1);
  b3 = Conv(g, b3, n + "/branch3x3_2", 320, 3, 3, 2, kValid);
  TensorId b7 = Conv(g, x, n + "/branch7x7x3_1", 192, 1, 1);
  b7 = Conv(g, b7, n + "/branch7x7x3_2", 192, 1, 7);
  b7 = Conv(g, b7, n + "/branch7x7x3_3", 192, 7, 1);
  b7 = Conv(g, b7, n + "/branch7x7x3_4", 192, 3, 3, 2, kValid);
  const TensorId bp = Pool2D(g, "MAX_POOL_2D", x, n + "/branch_pool", 3, 2, kValid);
  return ConcatChannels(g, {b3, b7, bp}, n);
}

// mixed9-10 (8×8): 1×1 | 1×1→(1×3, 3×1) | 1×1→3×3→(1×3, 3×1) | avg pool→1×1.
TensorId Block8(GraphBuilder& g, TensorId x, const std::string& n) {
  const TensorId b1 = Conv(g, x, n + "/branch1x1", 320, 1, 1);
  const TensorId b3 = Conv(g, x, n + "/branch3x3_1", 384, 1, 1);
  const TensorId b3a = Conv(g, b3, n + "/branch3x3_2a", 384, 1, 3);
  const TensorId b3b = Conv(g, b3, n + "/branch3x3_2b", 384, 3, 1);
  const TensorId b3cat = ConcatChannels(g, {b3a, b3b}, n + "/branch3x3");
  TensorId bd = Conv(g, x, n + "/branch3x3dbl_1", 448, 1, 1);
  bd = Conv(g, bd, n + "/branch3x3dbl_2", 384, 3, 3);
  const TensorId bda = Conv(g, bd, n + "/branch3x3dbl_3a", 384, 1, 3);
  const TensorId bdb = Conv(g, bd, n + "/branch3x3dbl_3b", 384, 3, 1);
  const TensorId bdcat = ConcatChannels(g, {bda, bdb}, n + "/branch3x3dbl");
  TensorId bp = Pool2D(g, "AVERAGE_POOL_2D", x, n + "/branch_pool_avg", 3, 1, Padding::kSame);
  bp = Conv(g, bp, n + "/branch_pool", 192, 1, 1);
  return ConcatChannels(g, {b1, b3cat, bdcat, bp}, n);
}

}  // namespace

Graph BuildInceptionV3() {
  GraphBuilder g("inception_v3");
  TensorId x = g.Input("input_1", {1, 299, 299, 3});
  x = Conv(g, x, "conv_1a_3x3", 32, 3, 3, 2, kValid);            // 149×149×32
  x = Conv(g, x, "conv_2a_3x3", 32, 3, 3, 1, kValid);            // 147×147×32
  x = Conv(g, x, "conv_2b_3x3", 64, 3, 3);                       // 147×147×64
  x = Pool2D(g, "MAX_POOL_2D", x, "max_pool_3a", 3, 2, kValid);  // 73×73×64
  x = Conv(g, x, "conv_3b_1x1", 80, 1, 1, 1, kValid);            // 73×73×80
  x = Conv(g, x, "conv_4a_3x3", 192, 3, 3, 1, kValid);           // 71×71×192
  x = Pool2D(g, "MAX_POOL_2D", x, "max_pool_5a", 3, 2, kValid);  // 35×35×192
  x = Block35(g, x, "mixed0", 32);                               // 35×35×256
  x = Block35(g, x, "mixed1", 64);                               // 35×35×288
  x = Block35(g, x, "mixed2", 64);                               // 35×35×288
  x = Reduction17(g, x, "mixed3");                               // 17×17×768
  x = Block17(g, x, "mixed4", 128);
  x = Block17(g, x, "mixed5", 160);
  x = Block17(g, x, "mixed6", 160);
  x = Block17(g, x, "mixed7", 192);  // 17×17×768
  x = Reduction8(g, x, "mixed8");    // 8×8×1280
  x = Block8(g, x, "mixed9");        // 8×8×2048
  x = Block8(g, x, "mixed10");       // 8×8×2048
  x = KerasClassifier(g, x);
  g.Output(x);
  return std::move(g).Finish();
}

}  // namespace memplan::graph::zoo
