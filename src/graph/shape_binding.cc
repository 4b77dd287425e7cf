#include "memplan/shape_binding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>

#include "memplan/error.h"

namespace memplan {

namespace {

std::int64_t ParseSize(std::string_view text, std::string_view flag, std::string_view whole) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0)
    throw UsageError(
        fmt::format("{} {}: '{}' is not a size (a whole number >= 0)", flag, whole, text));
  return value;
}

// Recomputes a tensor's byte size after its shape changed.
void Resize(Tensor& tensor, const std::string& flag) {
  const auto elements = ShapeElements(tensor.shape);
  if (!elements) return;  // dimensions still open; the lifetimes will say so
  if (!DataTypeBits(tensor.type))
    throw UsageError(fmt::format("{}: tensor '{}' is of type {}, whose size no shape gives", flag,
                                 tensor.name, DataTypeName(tensor.type)));
  const auto bytes = TensorBytes(tensor.type, *elements);
  if (!bytes || *bytes > (Bytes{1} << 56))
    throw UsageError(fmt::format("{}: tensor '{}' of shape {} would take more than 2^56 bytes",
                                 flag, tensor.name, ShapeText(tensor.shape)));
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
    const std::string flag = fmt::format("--shape {}={}", name, fmt::join(shape, "x"));
    for (const std::int64_t d : shape)
      if (d < 0) throw UsageError(fmt::format("{}: dimension {} is negative", flag, d));
    bool found = false;
    for (Subgraph& sg : graph.subgraphs)
      for (Tensor& t : sg.tensors) {
        if (t.name != name) continue;
        found = true;
        t.shape = shape;
        Resize(t, flag);
      }
    if (!found)
      throw UsageError(fmt::format("{}: {} has no tensor called '{}'", flag, graph.source, name));
  }
  for (const auto& [name, value] : dims) {
    const std::string flag = fmt::format("--dim {}={}", name, value);
    if (value < 0) throw UsageError(fmt::format("{}: the size is negative", flag));
    std::size_t bound = 0;
    if (name == "batch")
      for (Subgraph& sg : graph.subgraphs)
        for (Tensor& t : sg.tensors) {
          if (t.shape.empty() || t.shape[0] >= 0) continue;
          t.shape[0] = value;
          Resize(t, flag);
          ++bound;
        }
    if (bound == 0)
      warnings.push_back(fmt::format(
          "warning: {} binds nothing in {}: {}; ignored", flag, graph.source,
          name == "batch" ? "no tensor has an open (-1) leading dimension"
                          : fmt::format("a .tflite model names no dimension '{}' (--dim batch=N "
                                        "binds a leading -1, --shape TENSOR=1x10x4 a whole shape)",
                                        name)));
  }
  return warnings;
}

std::pair<std::string, std::int64_t> ParseDimBinding(std::string_view text) {
  const auto eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UsageError(fmt::format("--dim {}: expected NAME=VALUE, e.g. --dim batch=1", text));
  return {std::string(text.substr(0, eq)), ParseSize(text.substr(eq + 1), "--dim", text)};
}

std::pair<std::string, std::vector<std::int64_t>> ParseShapeBinding(std::string_view text) {
  const auto eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UsageError(
        fmt::format("--shape {}: expected TENSOR=DIMS, e.g. --shape input=1x224x224x3", text));
  std::vector<std::int64_t> shape;
  std::string_view dims = text.substr(eq + 1);
  while (!dims.empty()) {
    const auto x = dims.find('x');
    shape.push_back(ParseSize(dims.substr(0, x), "--shape", text));
    if (x == std::string_view::npos) break;
    dims.remove_prefix(x + 1);
    if (dims.empty()) throw UsageError(fmt::format("--shape {}: a dimension is missing", text));
  }
  return {std::string(text.substr(0, eq)), std::move(shape)};
}

}  // namespace memplan
