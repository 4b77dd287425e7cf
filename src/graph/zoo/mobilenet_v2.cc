// MobileNet v2 1.0, 224×224×3 float32 (Sandler et al. 2018, Table 2), as the TensorFlow
// Lite model runs it: a stride-2 convolution, 17 inverted-residual blocks (1×1 expand,
// 3×3 depthwise, 1×1 project, ADD of the block input when the shapes allow), a 1×1
// convolution to 1280, average pool, 1×1 convolution to 1001 classes, reshape,
// softmax. 66 operators.
#include <fmt/format.h>

#include "src/graph/zoo/layers.h"
#include "src/graph/zoo/models.h"

namespace memplan::graph::zoo {

Graph BuildMobileNetV2() {
  struct Stage {
    std::int64_t expansion;  // t: expanded channels = t × input channels
    std::int64_t channels;   // c: output channels of every block
    int repeats;             // n: blocks in the stage
    std::int64_t stride;     // s: of the first block's depthwise convolution
  };
  static constexpr Stage kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                      {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

  GraphBuilder g("mobilenet_v2");
  TensorId x = g.Input("input", {1, 224, 224, 3});
  x = Conv2D(g, x, "MobilenetV2/Conv", 32, 3, 3, 2);
  int block = 0;
  for (const Stage& s : kStages) {
    for (int r = 0; r < s.repeats; ++r) {
      const std::string prefix = block == 0 ? std::string("MobilenetV2/expanded_conv")
                                            : fmt::format("MobilenetV2/expanded_conv_{}", block);
      ++block;
      const std::int64_t in_channels = g.ShapeOf(x)[3];
      const std::int64_t stride = r == 0 ? s.stride : 1;
      TensorId y = x;
      if (s.expansion != 1)
        y = Conv2D(g, y, prefix + "/expand", s.expansion * in_channels, 1, 1, 1);
      y = DepthwiseConv2D(g, y, prefix + "/depthwise", 3, stride);
      y = Conv2D(g, y, prefix + "/project", s.channels, 1, 1, 1);
      if (stride == 1 && in_channels == s.channels) y = Binary(g, "ADD", x, y, prefix + "/add");
      x = y;
    }
  }
  x = Conv2D(g, x, "MobilenetV2/Conv_1", 1280, 1, 1, 1);
  x = SlimClassifier(g, x, "MobilenetV2", "AvgPool", 1, "Squeeze");
  g.Output(x);
  return std::move(g).Finish();
}

}  // namespace memplan::graph::zoo
