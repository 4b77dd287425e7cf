// ResNet-50 v1, 224×224×3 float32 (He et al. 2016, Table 1), with the layer shapes of the
// Keras application as TensorFlow Lite runs it: 7×7/2 convolution, 3×3/2 max pool, four
// stages of [3, 4, 6, 3] bottleneck blocks (stride on the first 1×1 convolution, a 1×1
// projection shortcut in each stage's first block, residual ADD with ReLU fused),
// global average pool (MEAN), FULLY_CONNECTED to 1000, SOFTMAX. Batch norm is folded
// into the convolutions. The stem uses SAME padding where Keras pads explicitly; the
// shapes after each layer are the same. 73 operators.
#include <fmt/format.h>

#include "src/graph/zoo/layers.h"
#include "src/graph/zoo/models.h"

namespace memplan::graph::zoo {

namespace {

// One bottleneck block: 1×1 (stride) → 3×3 → 1×1 to 4·filters, plus the shortcut.
TensorId Bottleneck(GraphBuilder& g, TensorId x, const std::string& name, std::int64_t filters,
                    std::int64_t stride, bool projection) {
  TensorId shortcut = x;
  if (projection) shortcut = Conv2D(g, x, name + "_0_conv", 4 * filters, 1, 1, stride);
  TensorId y = Conv2D(g, x, name + "_1_conv", filters, 1, 1, stride);
  y = Conv2D(g, y, name + "_2_conv", filters, 3, 3, 1);
  y = Conv2D(g, y, name + "_3_conv", 4 * filters, 1, 1, 1);
  return Binary(g, "ADD", shortcut, y, name + "_out");
}

}  // namespace

Graph BuildResNet50() {
  struct Stage {
    std::int64_t filters;  // bottleneck width; the stage outputs 4× as many channels
    int blocks;            // blocks in the stage
    std::int64_t stride;   // of the first block
  };
  static constexpr Stage kStages[] = {{64, 3, 1}, {128, 4, 2}, {256, 6, 2}, {512, 3, 2}};

  GraphBuilder g("resnet50");
  TensorId x = g.Input("input_1", {1, 224, 224, 3});
  x = Conv2D(g, x, "conv1_conv", 64, 7, 7, 2);
  x = Pool2D(g, "MAX_POOL_2D", x, "pool1_pool", 3, 2, Padding::kSame);
  int stage_number = 2;
  for (const Stage& s : kStages) {
    for (int b = 1; b <= s.blocks; ++b) {
      const std::string name = fmt::format("conv{}_block{}", stage_number, b);
      x = Bottleneck(g, x, name, s.filters, b == 1 ? s.stride : 1, b == 1);
    }
    ++stage_number;
  }
  x = KerasClassifier(g, x);
  g.Output(x);
  return std::move(g).Finish();
}

}  // namespace memplan::graph::zoo
