#pragma once
// Custom ops whose output sizes the kernel sets at run time (their outputs are stored
// with shape []): what the sizes will most likely be, read from the op's options, so a
// message can offer the exact --shape flags.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace memplan::formats {

// The shapes of a known custom op's outputs and where they come from.
struct CustomOutputShapes {
  std::vector<std::vector<std::int64_t>> shapes;  // one per output, in output order
  std::string basis;                              // e.g. "max_detections 10 in its options"
};

// For TFLite_Detection_PostProcess (SSD) and PosenetDecoderOp (Coral PoseNet), from their
// flexbuffers options; for MediaPipe's Convolution2DTransposeBias, MaxPoolingWithArgmax2D
// and MaxUnpooling2D, from the parameter struct in their options and their input's shape;
// for Landmarks2TransformMatrix and TransformLandmarks, from their kernels' fixed rules
// (docs/import.md). `inputs`: the static shapes of the op's inputs (empty where unknown).
// nullopt for other ops, unreadable options or inputs the rule cannot use.
std::optional<CustomOutputShapes> LikelyCustomOutputShapes(
    std::string_view op, std::span<const std::uint8_t> options,
    const std::vector<std::vector<std::int64_t>>& inputs = {});

}  // namespace memplan::formats
