#include "src/formats/tflite/custom_ops.h"

#include <fmt/format.h>

#include <flatbuffers/flexbuffers.h>

namespace memplan::tflite_internal {

namespace {

// Detections beyond this are not a real configuration; no guess is offered.
constexpr std::int64_t kMaxDetections = 1'000'000;
// PoseNet's keypoints per pose (COCO).
constexpr std::int64_t kPoseKeypoints = 17;

std::optional<flexbuffers::Map> OptionsMap(std::span<const std::uint8_t> options) {
  if (options.empty()) return std::nullopt;
  // The flexbuffers verifier proves every offset lies inside the options first.
  if (!flexbuffers::VerifyBuffer(options.data(), options.size())) return std::nullopt;
  const flexbuffers::Reference root = flexbuffers::GetRoot(options.data(), options.size());
  if (!root.IsMap()) return std::nullopt;
  return root.AsMap();
}

// An integer option, or nullopt when missing or not a plain number.
std::optional<std::int64_t> IntOption(const flexbuffers::Map& map, const char* key) {
  const flexbuffers::Reference value = map[key];
  if (!value.IsInt() && !value.IsUInt()) return std::nullopt;
  return value.AsInt64();
}

}  // namespace

std::optional<CustomOutputShapes> LikelyCustomOutputShapes(std::string_view op,
                                                           std::span<const std::uint8_t> options) {
  const auto map = OptionsMap(options);
  if (!map) return std::nullopt;
  const auto max_detections = IntOption(*map, "max_detections");
  if (!max_detections || *max_detections <= 0 || *max_detections > kMaxDetections)
    return std::nullopt;
  const std::int64_t n = *max_detections;
  if (op == "TFLite_Detection_PostProcess") {
    // Boxes [1, N, 4], classes [1, N], scores [1, N], count [1], where N = max_detections
    // x max_classes_per_detection (the kernel's Prepare).
    const std::int64_t per = IntOption(*map, "max_classes_per_detection").value_or(1);
    if (per <= 0 || per > kMaxDetections) return std::nullopt;
    const std::int64_t boxes = n * per;
    return CustomOutputShapes{
        {{1, boxes, 4}, {1, boxes}, {1, boxes}, {1}},
        fmt::format("max_detections {} x max_classes_per_detection {} in its options", n, per)};
  }
  if (op == "PosenetDecoderOp") {
    // Keypoints [1, N, 17, 2], keypoint scores [1, N, 17], pose scores [1, N], count [1].
    return CustomOutputShapes{{{1, n, kPoseKeypoints, 2}, {1, n, kPoseKeypoints}, {1, n}, {1}},
                              fmt::format("max_detections {} in its options", n)};
  }
  return std::nullopt;
}

}  // namespace memplan::tflite_internal
