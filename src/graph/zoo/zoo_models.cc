// The list of built-in models behind zoo:NAME.
#include <fmt/format.h>

#include <array>

#include "memplan/error.h"
#include "memplan/zoo.h"
#include "src/graph/zoo/models.h"

namespace memplan {

std::span<const ZooModel> ZooModels() {
  static constexpr std::array<ZooModel, 5> kModels = {{
      {"mobilenet_v1", "MobileNet v1 1.0, 224x224x3 float32, as TensorFlow Lite runs it",
       zoo::BuildMobileNetV1},
      {"mobilenet_v2", "MobileNet v2 1.0, 224x224x3 float32, as TensorFlow Lite runs it",
       zoo::BuildMobileNetV2},
      {"resnet50", "ResNet-50 v1, 224x224x3 float32, Keras bottleneck layout", zoo::BuildResNet50},
      {"inception_v3", "Inception v3, 299x299x3 float32, Keras layer shapes",
       zoo::BuildInceptionV3},
      {"gpt2", "GPT-2 small decoder, 12 layers, d_model 768, 128 tokens, float32",
       zoo::BuildGpt2Small},
  }};
  return kModels;
}

std::optional<Graph> ZooGraph(std::string_view name) {
  for (const ZooModel& m : ZooModels())
    if (m.name == name) return m.build();
  return std::nullopt;
}

Graph Gpt2WithTokens(std::int64_t tokens) {
  if (tokens < 1 || tokens > (std::int64_t{1} << 20))
    throw UsageError(fmt::format("gpt2 over {} tokens: expected 1 to 2^20", tokens));
  Graph g = zoo::BuildGpt2(tokens);
  g.source = fmt::format("zoo:gpt2 ({} tokens)", tokens);
  return g;
}

}  // namespace memplan
