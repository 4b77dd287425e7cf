#pragma once
// Resizing a .tflite model: the dimensions its shape_signature leaves open (-1), the names
// a user binds them (or any other input dimension) by, and shape propagation through
// subgraph 0 with TensorFlow Lite's output-shape rules (docs/tflite-shapes.md).

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

// One axis of a non-constant graph input of subgraph 0, which --dim binds by its name. It is
// open when the input's shape_signature holds -1 there.
struct TfliteInputDimension {
  std::string name;         // "INPUT_NAME:AXIS", e.g. "input_1:0" (printable text)
  std::int32_t tensor = 0;  // the input's tensor index in subgraph 0
  std::size_t axis = 0;
  std::int64_t stored = 0;  // the stored shape's size there (what is planned unbound)
  bool open = false;
};

// Every axis of subgraph 0's inputs, input by input, axis by axis.
std::vector<TfliteInputDimension> TfliteInputDimensions(const TfliteModel& model);

// The open ones among them.
std::vector<TfliteInputDimension> TfliteOpenDimensions(const TfliteModel& model);

// Whether `batch` names them: there is at least one, and every one is an axis 0.
bool TfliteHasBatchAlias(const std::vector<TfliteInputDimension>& open);

// Gives subgraph 0's inputs the shapes listed (tensor index, shape) and recomputes every
// tensor that an op of subgraph 0 writes, in op order, with the rules of
// src/formats/tflite/shape_rules.h; shapes and byte sizes are updated in model.graph.
// InputError naming the model, the op and the tensor for an op without a rule, a value a
// rule needs and cannot know, inputs that break a rule, or a result that contradicts a
// tensor's shape_signature. With `fixed_sizes_hold` false (a dimension the signature fixes
// was resized) only the signature's rank is checked: its fixed sizes were computed from
// the stored input sizes.
void PropagateTfliteShapes(
    TfliteModel& model,
    const std::vector<std::pair<std::int32_t, std::vector<std::int64_t>>>& input_shapes,
    bool fixed_sizes_hold = true);

// What binding --dim values to a .tflite model did.
struct TfliteBinding {
  std::vector<std::string> warnings;  // one per --dim that binds nothing
  bool resized = false;               // some input's shape is no longer the stored one
};

// Binds --dim values to dimensions of subgraph 0's inputs and propagates the shapes, as
// TensorFlow Lite's ResizeInputTensor then AllocateTensors do. A name is an open dimension's
// (INPUT:AXIS), any other axis of a non-constant input by the same INPUT:AXIS name (a size
// the file stores fixed), or `batch`: the open dimensions when all of them are axis 0, else
// every axis 0 of an input that is open or stored as 1. nullopt for a model whose stored
// shapes hold a -1 and whose inputs have no open dimension (the caller binds the dims as for
// any model). Nothing is propagated when no dim binds anything, nor when only stored sizes
// are bound to themselves.
std::optional<TfliteBinding> BindTfliteDimensions(
    TfliteModel& model, const std::vector<std::pair<std::string, std::int64_t>>& dims);

}  // namespace memplan
