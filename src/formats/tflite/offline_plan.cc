#include "src/formats/tflite/offline_plan.h"

#include <fmt/format.h>

namespace memplan {

namespace formats {

namespace {

constexpr std::size_t kWord = 4;
constexpr std::size_t kHeaderWords = 3;

std::uint32_t Word(std::span<const std::uint8_t> data, std::size_t index) {
  const std::size_t at = index * kWord;
  return static_cast<std::uint32_t>(data[at]) | static_cast<std::uint32_t>(data[at + 1]) << 8 |
         static_cast<std::uint32_t>(data[at + 2]) << 16 |
         static_cast<std::uint32_t>(data[at + 3]) << 24;
}

}  // namespace

OfflinePlan ParseOfflinePlan(std::span<const std::uint8_t> data, std::size_t tensor_count) {
  OfflinePlan plan;
  if (data.size() < kHeaderWords * kWord) {
    plan.problem = fmt::format(
        "its buffer holds {} bytes, fewer than the 12-byte header [version, subgraphs, count]",
        data.size());
    return plan;
  }
  plan.version = Word(data, 0);
  plan.subgraphs = Word(data, 1);
  const std::uint64_t count = Word(data, 2);
  const std::size_t available = data.size() / kWord - kHeaderWords;
  if (count > available) {
    plan.problem =
        fmt::format("it announces {} offsets but its buffer holds only {}", count, available);
    return plan;
  }
  plan.offsets.reserve(count);
  for (std::size_t k = 0; k < count; ++k)
    plan.offsets.push_back(static_cast<std::int32_t>(Word(data, kHeaderWords + k)));
  if (count != tensor_count) {
    plan.problem = fmt::format(
        "it lists {} offsets but the model has {} tensors (TFLM: \"Nbr of offline buffer offsets "
        "({}) in metadata not equal nbr tensors ({})\")",
        count, tensor_count, count, tensor_count);
    return plan;
  }
  for (std::size_t k = 0; k < count; ++k)
    if (plan.offsets[k] < -1) {
      plan.problem = fmt::format("offset {} is {} (offsets are bytes, or -1 to plan online)", k,
                                 plan.offsets[k]);
      return plan;
    }
  return plan;
}

}  // namespace formats

std::vector<std::uint8_t> EncodeOfflinePlan(std::uint32_t version, std::uint32_t subgraphs,
                                            const std::vector<std::int32_t>& offsets) {
  std::vector<std::uint8_t> out;
  out.reserve((3 + offsets.size()) * 4);
  auto put = [&](std::uint32_t w) {
    for (int shift = 0; shift < 32; shift += 8)
      out.push_back(static_cast<std::uint8_t>(w >> shift));
  };
  put(version);
  put(subgraphs);
  put(static_cast<std::uint32_t>(offsets.size()));
  for (const std::int32_t o : offsets) put(static_cast<std::uint32_t>(o));
  return out;
}

}  // namespace memplan
