#include "src/formats/tflite/custom_ops.h"

#include <fmt/format.h>

#include <flatbuffers/flexbuffers.h>

#include <algorithm>
#include <cstring>

namespace memplan::formats {

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

// Strides, filters and sizes beyond this are not a real configuration.
constexpr std::int32_t kMaxWindow = 1 << 16;
constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;
// TfLitePadding.
constexpr std::int32_t kPaddingSame = 1;
constexpr std::int32_t kPaddingValid = 2;

// Field `index` of a C struct of 32-bit fields stored as the op's options (MediaPipe's ops
// keep TfLitePoolParams / TfLiteTransposeConvParams there, little-endian).
std::optional<std::int32_t> StructField(std::span<const std::uint8_t> options, std::size_t index) {
  if (options.size() < (index + 1) * 4) return std::nullopt;
  std::uint32_t bits = 0;
  for (std::size_t b = 0; b < 4; ++b)
    bits |= static_cast<std::uint32_t>(options[index * 4 + b]) << (8 * b);
  std::int32_t value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The padding, stride and filter fields a pooling or transposed convolution reads:
// TfLitePoolParams {padding, stride_width, stride_height, filter_width, filter_height, ...};
// TfLiteTransposeConvParams {padding, stride_width, stride_height, ...}.
struct Window {
  std::int32_t padding = 0, stride_w = 1, stride_h = 1, filter_w = 1, filter_h = 1;
};

std::optional<Window> ReadWindow(std::span<const std::uint8_t> options, bool with_filter) {
  Window w;
  const auto padding = StructField(options, 0), sw = StructField(options, 1),
             sh = StructField(options, 2);
  if (!padding || !sw || !sh) return std::nullopt;
  w.padding = *padding;
  w.stride_w = *sw;
  w.stride_h = *sh;
  if (with_filter) {
    const auto fw = StructField(options, 3), fh = StructField(options, 4);
    if (!fw || !fh) return std::nullopt;
    w.filter_w = *fw;
    w.filter_h = *fh;
  }
  for (std::int32_t v : {w.stride_w, w.stride_h, w.filter_w, w.filter_h})
    if (v < 1 || v > kMaxWindow) return std::nullopt;
  if (w.padding != kPaddingSame && w.padding != kPaddingValid) return std::nullopt;
  return w;
}

bool IsNhwc(const std::vector<std::int64_t>& shape) {
  if (shape.size() != 4) return false;
  for (std::int64_t d : shape)
    if (d < 1 || d > kMaxDim) return false;
  return true;
}

// MediaPipe's kernels that resize their outputs in Prepare from their input's shape.
std::optional<CustomOutputShapes> MediaPipeOutputShapes(
    std::string_view op, std::span<const std::uint8_t> options,
    const std::vector<std::vector<std::int64_t>>& inputs) {
  if (op == "Landmarks2TransformMatrix")
    return CustomOutputShapes{{{1, 4, 4}}, "its kernel's fixed 4x4 matrix"};
  if (inputs.empty() || inputs[0].empty()) return std::nullopt;
  const std::vector<std::int64_t>& in = inputs[0];
  if (op == "TransformLandmarks") return CustomOutputShapes{{in}, "its landmarks input's shape"};
  if (!IsNhwc(in)) return std::nullopt;
  if (op == "MaxPoolingWithArgmax2D") {
    // Pooled values and their indices: [N, out_h, out_w, C], TensorFlow's windowed size.
    const auto w = ReadWindow(options, /*with_filter=*/true);
    if (!w) return std::nullopt;
    const auto out = [&](std::int64_t size, std::int32_t filter, std::int32_t stride) {
      return w->padding == kPaddingSame ? (size + stride - 1) / stride
                                        : (size - filter + stride) / stride;
    };
    const std::int64_t h = out(in[1], w->filter_h, w->stride_h);
    const std::int64_t wd = out(in[2], w->filter_w, w->stride_w);
    if (h < 1 || wd < 1) return std::nullopt;
    std::vector<std::int64_t> shape = {in[0], h, wd, in[3]};
    return CustomOutputShapes{{shape, shape}, "the pooling parameters in its options"};
  }
  if (op == "MaxUnpooling2D") {
    // The input grown by the filter size in each direction.
    const auto w = ReadWindow(options, /*with_filter=*/true);
    if (!w) return std::nullopt;
    return CustomOutputShapes{{{in[0], in[1] * w->filter_h, in[2] * w->filter_w, in[3]}},
                              "the pooling parameters in its options"};
  }
  if (op == "Convolution2DTransposeBias") {
    // [N, stride*(in-1) + filter - padding, ..., output channels]; weights are OHWI.
    const auto w = ReadWindow(options, /*with_filter=*/false);
    if (!w || inputs.size() < 2 || !IsNhwc(inputs[1])) return std::nullopt;
    const std::vector<std::int64_t>& weights = inputs[1];
    const auto out = [&](std::int64_t size, std::int64_t filter, std::int32_t stride) {
      const std::int64_t pad = w->padding == kPaddingSame
                                   ? std::max<std::int64_t>(0, filter - (size - 1) % stride - 1)
                                   : 0;
      return stride * (size - 1) + filter - pad;
    };
    return CustomOutputShapes{{{in[0], out(in[1], weights[1], w->stride_h),
                                out(in[2], weights[2], w->stride_w), weights[0]}},
                              "the stride and padding in its options and its weights' shape"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<CustomOutputShapes> LikelyCustomOutputShapes(
    std::string_view op, std::span<const std::uint8_t> options,
    const std::vector<std::vector<std::int64_t>>& inputs) {
  if (auto mediapipe = MediaPipeOutputShapes(op, options, inputs)) return mediapipe;
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

}  // namespace memplan::formats
