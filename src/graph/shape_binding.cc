#include "memplan/shape_binding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "memplan/error.h"

namespace memplan {

namespace {

// Recomputes a tensor's byte size after its shape changed.
void Resize(Tensor& tensor, const std::string& binding) {
  const auto elements = ShapeElements(tensor.shape);
  if (!elements) return;  // dimensions still open; the lifetimes will say so
  if (!DataTypeBits(tensor.type))
    throw UsageError(fmt::format("{}: tensor '{}' is of type {}, whose size no shape gives",
                                 binding, tensor.name, DataTypeName(tensor.type)));
  const auto bytes = TensorBytes(tensor.type, *elements);
  if (!bytes || *bytes > (Bytes{1} << 56))
    throw UsageError(fmt::format("{}: tensor '{}' of shape {} would take more than 2^56 bytes",
                                 binding, tensor.name, ShapeText(tensor.shape)));
  tensor.bytes = bytes;
  tensor.why_unsized.clear();
  tensor.likely_shape.clear();
}

}  // namespace

std::vector<std::string> ApplyShapeBindings(
    Graph& graph, const std::vector<std::pair<std::string, std::int64_t>>& dims,
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& shapes) {
  std::vector<std::string> warnings;
  for (const auto& [name, shape] : shapes) {
    const std::string binding = fmt::format("shape {}={}", name, fmt::join(shape, "x"));
    for (const std::int64_t d : shape)
      if (d < 0) throw UsageError(fmt::format("{}: dimension {} is negative", binding, d));
    bool found = false;
    for (Subgraph& sg : graph.subgraphs)
      for (Tensor& t : sg.tensors) {
        if (t.name != name) continue;
        found = true;
        t.shape = shape;
        Resize(t, binding);
      }
    if (!found)
      throw UsageError(
          fmt::format("{}: {} has no tensor called '{}'", binding, graph.source, name));
  }
  for (const auto& [name, value] : dims) {
    const std::string binding = fmt::format("dimension {}={}", name, value);
    if (value < 0) throw UsageError(fmt::format("{}: the size is negative", binding));
    std::size_t bound = 0;
    if (name == "batch")
      for (Subgraph& sg : graph.subgraphs)
        for (Tensor& t : sg.tensors) {
          if (t.shape.empty() || t.shape[0] >= 0) continue;
          t.shape[0] = value;
          Resize(t, binding);
          ++bound;
        }
    if (bound == 0)
      warnings.push_back(fmt::format(
          "warning: {} binds nothing in {}: {}; ignored", binding, graph.source,
          name == "batch" ? "no tensor has an open (-1) leading dimension"
                          : fmt::format("a .tflite model names no dimension '{}' (dimension "
                                        "batch binds a leading -1, a tensor's shape a whole shape)",
                                        name)));
  }
  return warnings;
}

}  // namespace memplan
