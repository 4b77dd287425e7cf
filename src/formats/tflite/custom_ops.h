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

namespace memplan::tflite_internal {

// The shapes of a known custom op's outputs and where they come from.
struct CustomOutputShapes {
  std::vector<std::vector<std::int64_t>> shapes;  // one per output, in output order
  std::string basis;                              // e.g. "max_detections 10 in its options"
};

// For TFLite_Detection_PostProcess (SSD) and PosenetDecoderOp (Coral PoseNet) with
// readable flexbuffers options; nullopt for other ops or unreadable options.
std::optional<CustomOutputShapes> LikelyCustomOutputShapes(std::string_view op,
                                                           std::span<const std::uint8_t> options);

}  // namespace memplan::tflite_internal
