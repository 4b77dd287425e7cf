#pragma once
// Resizing a .tflite model: the dimensions its shape_signature leaves open (-1), the names
// a user binds them by, and shape propagation through subgraph 0 with TensorFlow Lite's
// output-shape rules (docs/tflite-shapes.md).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memplan/tflite.h"

namespace memplan {

// The alias that binds every open dimension at once when all of them are axis 0.
inline constexpr std::string_view kTfliteBatchAlias = "batch";

// One -1 in the shape_signature of a graph input of subgraph 0.
struct TfliteOpenDimension {
  std::string name;         // "INPUT_NAME:AXIS", e.g. "input_1:0" (printable text)
  std::int32_t tensor = 0;  // the input's tensor index in subgraph 0
  std::size_t axis = 0;
  std::int64_t stored = 0;  // the stored shape's size there (what is planned unbound)
};

// The open dimensions of subgraph 0's inputs, input by input, axis by axis.
std::vector<TfliteOpenDimension> TfliteOpenDimensions(const TfliteModel& model);

// Whether `batch` names them: there is at least one, and every one is an axis 0.
bool TfliteHasBatchAlias(const std::vector<TfliteOpenDimension>& open);

// Gives subgraph 0's inputs the shapes listed (tensor index, shape) and recomputes every
// tensor that an op of subgraph 0 writes, in op order, with the rules of
// src/formats/tflite/shape_rules.h; shapes and byte sizes are updated in model.graph.
// InputError naming the model, the op and the tensor for an op without a rule, a value a
// rule needs and cannot know, inputs that break a rule, or a result that contradicts a
// tensor's shape_signature (a fixed dimension, or the rank).
void PropagateTfliteShapes(
    TfliteModel& model,
    const std::vector<std::pair<std::int32_t, std::vector<std::int64_t>>>& input_shapes);

// Binds --dim values to open dimensions by name (or all of them by `batch`) and propagates
// the shapes. nullopt when the model has no open dimension (the caller binds the dims as
// for any model); otherwise the warnings for dims that name no open dimension. Nothing is
// propagated when no dim binds anything.
std::optional<std::vector<std::string>> BindTfliteOpenDimensions(
    TfliteModel& model, const std::vector<std::pair<std::string, std::int64_t>>& dims);

}  // namespace memplan
