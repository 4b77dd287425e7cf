// .tflite resizing: the open dimensions of the inputs, their names, and shape propagation
// through subgraph 0 (docs/tflite-shapes.md). The shape_signature of every tensor that has
// one checks each computed shape, so a wrong rule stops the resize instead of planning a
// wrong size.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/text.h"
#include "memplan/tflite_shapes.h"
#include "src/formats/tflite/shape_rules.h"

namespace memplan {

namespace {

using formats::RuleInput;
using formats::Shape;

// A computed shape agrees with a signature when the ranks match and, while the stored input
// sizes the signature was computed from still hold, every fixed size does.
bool Agrees(const Shape& shape, const std::vector<std::int64_t>& signature, bool fixed_sizes_hold) {
  if (signature.size() != shape.size()) return false;
  if (!fixed_sizes_hold) return true;
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (signature[k] >= 0 && signature[k] != shape[k]) return false;
  return true;
}

void SetShape(Tensor& t, Shape shape, const std::string& where) {
  if (t.shape == shape && t.bytes) return;
  t.shape = std::move(shape);
  if (!DataTypeBits(t.type)) return;  // strings and resources stay sized at run time
  if (std::any_of(t.shape.begin(), t.shape.end(), [](std::int64_t d) { return d < 0; })) {
    t.bytes.reset();
    t.why_unsized =
        fmt::format("shape {} has dimensions known only at run time", ShapeText(t.shape));
    return;
  }
  const auto elements = ShapeElements(t.shape);
  const auto bytes = elements ? TensorBytes(t.type, *elements) : std::nullopt;
  if (!bytes || *bytes > (Bytes{1} << 56))
    throw InputError(fmt::format("{}: tensor '{}' of shape {} would take more than 2^56 bytes",
                                 where, t.name, ShapeText(t.shape)));
  t.bytes = bytes;
  t.why_unsized.clear();
  t.likely_shape.clear();
}

// What `batch` binds: the open dimensions when every one is an axis 0 (the signature says
// which axes are the batch), else every axis 0 that is open or stored as 1: converters store a
// batch of one, and an axis 0 of another size (a model's frames) is no batch, so a folder
// planned with --dim batch=1 keeps such a model as stored.
std::vector<std::size_t> BatchAxes(const std::vector<TfliteInputDimension>& axes,
                                   const std::vector<TfliteInputDimension>& open) {
  const bool alias = TfliteHasBatchAlias(open);
  std::vector<std::size_t> batch;
  for (std::size_t k = 0; k < axes.size(); ++k)
    if (axes[k].axis == 0 && (axes[k].open || (!alias && axes[k].stored == 1))) batch.push_back(k);
  return batch;
}

// A stored shape with a -1 (no signature says more): such models bind --dim batch=N on the
// stored shapes, as any graph does.
bool StoresOpenSizes(const Graph& graph) {
  for (const Subgraph& sg : graph.subgraphs)
    for (const Tensor& t : sg.tensors)
      if (std::any_of(t.shape.begin(), t.shape.end(), [](std::int64_t d) { return d < 0; }))
        return true;
  return false;
}

// What a --dim may name, for the message when it names nothing.
std::string NamesText(const std::vector<TfliteInputDimension>& axes,
                      const std::vector<TfliteInputDimension>& open) {
  std::vector<std::string> open_names;
  for (const TfliteInputDimension& d : open) open_names.push_back(d.name);
  std::vector<std::string> all;
  for (const TfliteInputDimension& a : axes) all.push_back(a.name);
  const std::string batch_text =
      TfliteHasBatchAlias(open)
          ? fmt::format("{} binds them all", kTfliteBatchAlias)
          : fmt::format("{} binds every axis 0 stored as 1", kTfliteBatchAlias);
  if (all.empty()) return "its subgraph 0 has no input with a dimension";
  if (open.empty())
    return fmt::format("it has no open dimension; its inputs' dimensions are {} ({})",
                       fmt::join(all, ", "), batch_text);
  return fmt::format("its open dimensions are {} ({}); its inputs' dimensions are {}",
                     fmt::join(open_names, ", "), batch_text, fmt::join(all, ", "));
}

}  // namespace

std::vector<TfliteInputDimension> TfliteInputDimensions(const TfliteModel& model) {
  std::vector<TfliteInputDimension> dims;
  if (model.graph.subgraphs.empty() || model.shape_signatures.empty()) return dims;
  const Subgraph& sg = model.graph.subgraphs[0];
  const auto& signatures = model.shape_signatures[0];
  for (const std::int32_t t : sg.inputs) {
    if (t < 0 || static_cast<std::size_t>(t) >= sg.tensors.size()) continue;
    const Tensor& tensor = sg.tensors[static_cast<std::size_t>(t)];
    if (tensor.is_constant) continue;
    // Only a signature of the stored rank describes the stored shape's dimensions.
    const auto& signature = signatures[static_cast<std::size_t>(t)];
    const bool signed_shape = signature.size() == tensor.shape.size();
    for (std::size_t axis = 0; axis < tensor.shape.size(); ++axis)
      dims.push_back({PrintableText(fmt::format("{}:{}", tensor.name, axis)), t, axis,
                      tensor.shape[axis], signed_shape && signature[axis] == -1});
  }
  return dims;
}

std::vector<TfliteInputDimension> TfliteOpenDimensions(const TfliteModel& model) {
  std::vector<TfliteInputDimension> open = TfliteInputDimensions(model);
  std::erase_if(open, [](const TfliteInputDimension& d) { return !d.open; });
  return open;
}

bool TfliteHasBatchAlias(const std::vector<TfliteInputDimension>& open) {
  return !open.empty() && std::all_of(open.begin(), open.end(),
                                      [](const TfliteInputDimension& d) { return d.axis == 0; });
}

void PropagateTfliteShapes(
    TfliteModel& model,
    const std::vector<std::pair<std::int32_t, std::vector<std::int64_t>>>& input_shapes,
    bool fixed_sizes_hold) {
  Subgraph& sg = model.graph.subgraphs.at(0);
  const std::string& source = model.graph.source;
  const auto& signatures = model.shape_signatures.at(0);
  const auto& options = model.op_options.at(0);
  std::vector<Shape> shapes;
  shapes.reserve(sg.tensors.size());
  for (const Tensor& t : sg.tensors) shapes.push_back(t.shape);
  std::vector<std::optional<std::vector<std::int64_t>>> values = model.small_int_constants.at(0);
  for (const auto& [t, shape] : input_shapes) {
    shapes.at(static_cast<std::size_t>(t)) = shape;
    values.at(static_cast<std::size_t>(t)).reset();
  }
  for (std::size_t i = 0; i < sg.ops.size(); ++i) {
    const Operator& op = sg.ops[i];
    const auto label = [&](std::size_t output) {
      const std::int32_t t = output < op.outputs.size() ? op.outputs[output] : -1;
      return fmt::format("{}: cannot resize: op {} ({}), output tensor {}{}", source, i, op.type, t,
                         t >= 0 ? fmt::format(" '{}'", sg.tensors[static_cast<std::size_t>(t)].name)
                                : std::string());
    };
    std::vector<RuleInput> inputs;
    for (const std::int32_t t : op.inputs) {
      if (t < 0) {
        inputs.push_back(RuleInput{false, {}, std::nullopt});
        continue;
      }
      inputs.push_back(RuleInput{true, shapes[static_cast<std::size_t>(t)],
                                 values[static_cast<std::size_t>(t)]});
    }
    std::vector<formats::RuleOutput> outs;
    try {
      outs = formats::OutputShapes(op.type, options.at(i), inputs, op.outputs.size());
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", label(0), e.what()));
    }
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      const std::int32_t t = op.outputs[k];
      if (t < 0) continue;
      for (const std::int64_t d : outs[k].shape)
        if (d < -1 || d > (std::int64_t{1} << 56))
          throw InputError(fmt::format("{}: the rule gives shape {}, which is absurd", label(k),
                                       ShapeText(outs[k].shape)));
      const auto& signature = signatures[static_cast<std::size_t>(t)];
      if (!signature.empty() && !Agrees(outs[k].shape, signature, fixed_sizes_hold))
        throw InputError(
            fmt::format("{}: the rule gives shape {}, which contradicts its shape_signature {}",
                        label(k), ShapeText(outs[k].shape), ShapeText(signature)));
      shapes[static_cast<std::size_t>(t)] = std::move(outs[k].shape);
      values[static_cast<std::size_t>(t)] = std::move(outs[k].values);
    }
  }
  for (std::size_t t = 0; t < sg.tensors.size(); ++t)
    if (!sg.tensors[t].is_constant) SetShape(sg.tensors[t], std::move(shapes[t]), source);
}

std::optional<TfliteBinding> BindTfliteDimensions(
    TfliteModel& model, const std::vector<std::pair<std::string, std::int64_t>>& dims) {
  if (model.graph.subgraphs.empty() || model.shape_signatures.empty()) return std::nullopt;
  const std::vector<TfliteInputDimension> open = TfliteOpenDimensions(model);
  if (open.empty() && StoresOpenSizes(model.graph)) return std::nullopt;
  const std::vector<TfliteInputDimension> axes = TfliteInputDimensions(model);
  const std::vector<std::size_t> batch = BatchAxes(axes, open);
  std::vector<std::optional<std::int64_t>> bound(axes.size());
  TfliteBinding binding;
  for (const auto& [name, value] : dims) {
    if (value < 0)
      throw UsageError(fmt::format("dimension {}={}: the size is negative", name, value));
    bool used = false;
    for (std::size_t k = 0; k < axes.size(); ++k)
      if (axes[k].name == name) {
        bound[k] = value;
        used = true;
      }
    if (!used && name == kTfliteBatchAlias)
      for (const std::size_t k : batch) {
        bound[k] = value;
        used = true;
      }
    if (!used)
      binding.warnings.push_back(
          fmt::format("warning: dimension {}={} binds nothing in {}: {}; ignored", name, value,
                      model.graph.source, NamesText(axes, open)));
  }
  std::vector<std::pair<std::int32_t, std::vector<std::int64_t>>> inputs;
  bool open_bound = false;
  bool fixed_changed = false;
  bool changed = false;
  const Subgraph& sg = model.graph.subgraphs[0];
  for (std::size_t k = 0; k < axes.size(); ++k) {
    if (!bound[k]) continue;
    const TfliteInputDimension& a = axes[k];
    const Shape& stored = sg.tensors[static_cast<std::size_t>(a.tensor)].shape;
    open_bound = open_bound || a.open;
    changed = changed || *bound[k] != stored[a.axis];
    fixed_changed = fixed_changed || (!a.open && *bound[k] != stored[a.axis]);
    auto it = std::find_if(inputs.begin(), inputs.end(),
                           [&](const auto& in) { return in.first == a.tensor; });
    if (it == inputs.end()) {
      inputs.emplace_back(a.tensor, stored);
      it = inputs.end() - 1;
    }
    it->second[a.axis] = *bound[k];
  }
  if (!open_bound && !fixed_changed) return binding;
  PropagateTfliteShapes(model, inputs, !fixed_changed);
  binding.resized = changed;
  return binding;
}

}  // namespace memplan
