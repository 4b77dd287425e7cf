// MobileNet v1 1.0, 224×224×3 float32 (Howard et al. 2017, Table 1), as the TensorFlow
// Lite model runs it: a stride-2 convolution, 13 depthwise-separable pairs, average
// pool, 1×1 convolution to 1001 classes, reshape, softmax. 31 operators.
#include <fmt/format.h>

#include "src/graph/zoo/layers.h"
#include "src/graph/zoo/models.h"

namespace memplan::graph::zoo {

Graph BuildMobileNetV1() {
  struct Pair {
    std::int64_t stride;    // of the depthwise convolution
    std::int64_t channels;  // out of the pointwise convolution
  };
  static constexpr Pair kPairs[] = {{1, 64},  {2, 128},  {1, 128}, {2, 256}, {1, 256},
                                    {2, 512}, {1, 512},  {1, 512}, {1, 512}, {1, 512},
                                    {1, 512}, {2, 1024}, {1, 1024}};

  GraphBuilder g("mobilenet_v1");
  TensorId x = g.Input("input", {1, 224, 224, 3});
  x = Conv2D(g, x, "MobilenetV1/Conv2d_0", 32, 3, 3, 2);
  int layer = 1;
  for (const Pair& p : kPairs) {
    const std::string prefix = fmt::format("MobilenetV1/Conv2d_{}", layer++);
    x = DepthwiseConv2D(g, x, prefix + "_depthwise", 3, p.stride);
    x = Conv2D(g, x, prefix + "_pointwise", p.channels, 1, 1, 1);
  }
  x = SlimClassifier(g, x, "MobilenetV1", "AvgPool_1a", 2, "SpatialSqueeze");
  g.Output(x);
  return std::move(g).Finish();
}

}  // namespace memplan::graph::zoo
