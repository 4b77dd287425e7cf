#pragma once
// Output shapes of TensorFlow Lite builtin operators from their input shapes, as the
// kernels' Prepare computes them (docs/tflite-shapes.md). One function per rule family;
// OutputShapes dispatches on the operator's name.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/tflite.h"

namespace memplan::formats {

using Shape = std::vector<std::int64_t>;

// One input as a rule sees it: absent (an omitted optional input), or a shape and, for
// small integer tensors whose contents are known (constants, SHAPE outputs), the values.
struct RuleInput {
  bool present = true;
  Shape shape;
  std::optional<std::vector<std::int64_t>> values;
};

// One output: its shape, and its values when the rule computes them (SHAPE, PACK, ...).
struct RuleOutput {
  Shape shape;
  std::optional<std::vector<std::int64_t>> values;
};

// Whether memplan models the output shapes of the operator called `op`.
bool HasShapeRule(std::string_view op);

// The outputs of `op` (`outputs` of them). InputError with the reason (no op or tensor
// names: the caller adds them) when the op has no rule, a value it needs is unknown, or the
// input shapes break the op's rule (e.g. broadcasting 3 against 4).
std::vector<RuleOutput> OutputShapes(std::string_view op, const TfliteOpOptions& options,
                                     const std::vector<RuleInput>& inputs, std::size_t outputs);

// TensorFlow Lite's output size of a window along one axis: SAME ceil(in / stride), VALID
// ceil((in - effective_filter + 1) / stride), effective_filter = (filter - 1) * dilation + 1.
std::int64_t WindowOutputSize(std::int32_t padding, std::int64_t in, std::int64_t filter,
                              std::int64_t stride, std::int64_t dilation);

// numpy-style broadcasting of two shapes (InputError when they do not broadcast).
Shape BroadcastShapes(const Shape& a, const Shape& b);

}  // namespace memplan::formats
