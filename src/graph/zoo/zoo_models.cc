// The list of built-in models behind zoo:NAME.
#include <fmt/format.h>

#include <array>

#include "memplan/error.h"
#include "memplan/zoo.h"
#include "src/graph/zoo/models.h"

namespace memplan {

namespace zoo = graph::zoo;  // the builders (src/graph/zoo/models.h)

std::span<const ZooModel> ZooModels() {
  static constexpr std::array<ZooModel, 6> kModels = {{
      {"mobilenet_v1", "MobileNet v1 1.0, 224x224x3 float32, as TensorFlow Lite runs it",
       zoo::BuildMobileNetV1},
      {"mobilenet_v2", "MobileNet v2 1.0, 224x224x3 float32, as TensorFlow Lite runs it",
       zoo::BuildMobileNetV2},
      {"resnet50", "ResNet-50 v1, 224x224x3 float32, Keras bottleneck layout", zoo::BuildResNet50},
      {"inception_v3", "Inception v3, 299x299x3 float32, Keras layer shapes",
       zoo::BuildInceptionV3},
      {"gpt2", "GPT-2 small decoder, 12 layers, d_model 768, 128 tokens by default, float32",
       zoo::BuildGpt2Small, "tokens", 1, zoo::BuildGpt2},
      {"conformer_s",
       "Conformer (S) speech encoder, 16 blocks, d_model 144, 80 log-mels over 400 frames "
       "by default, float32",
       zoo::BuildConformerS, "frames", 7, zoo::BuildConformerS},
  }};
  return kModels;
}

std::optional<Graph> ZooGraph(std::string_view name) {
  for (const ZooModel& m : ZooModels())
    if (m.name == name) return m.build();
  return std::nullopt;
}

std::optional<Graph> ZooGraphWith(std::string_view name, std::string_view dimension,
                                  std::int64_t value) {
  for (const ZooModel& m : ZooModels()) {
    if (m.name != name) continue;
    if (m.open_dimension.empty() || m.open_dimension != dimension)
      throw UsageError(
          m.open_dimension.empty()
              ? fmt::format("zoo:{} has fixed shapes; it leaves no dimension open", name)
              : fmt::format("zoo:{} leaves '{}' open, not '{}'", name, m.open_dimension,
                            dimension));
    constexpr std::int64_t kMax = std::int64_t{1} << 20;
    if (value < m.open_min || value > kMax)
      throw UsageError(fmt::format("zoo:{} over {} {}: expected {} to 2^20", name, value, dimension,
                                   m.open_min));
    Graph g = m.build_with(value);
    g.source = fmt::format("zoo:{} ({} {})", name, value, dimension);
    return g;
  }
  return std::nullopt;
}

Graph Gpt2WithTokens(std::int64_t tokens) {
  return *ZooGraphWith("gpt2", "tokens", tokens);
}

}  // namespace memplan
