// Outputs a custom op's kernel sizes at run time (stored as shape []): sized from the op's
// options by default, or read as stored, as TensorFlow Lite Micro does (docs/import.md).
#include <fmt/format.h>

#include "memplan/shape_binding.h"

namespace memplan {

std::string SizeKernelSizedOutputs(Graph& graph, KernelSizedOutputs how) {
  std::vector<std::string> sized;
  for (Subgraph& sg : graph.subgraphs)
    for (Tensor& t : sg.tensors) {
      if (t.bytes || t.likely_shape.empty()) continue;
      // kAsStored: the stored [] read literally, one element (a float32 output is 4 bytes).
      const std::vector<std::int64_t> shape =
          how == KernelSizedOutputs::kFromOptions ? t.likely_shape : std::vector<std::int64_t>{};
      const auto elements = ShapeElements(shape);
      const auto bytes = elements ? TensorBytes(t.type, *elements) : std::nullopt;
      if (!bytes) continue;  // no static size for its type: the lifetimes say so
      t.shape = shape;
      t.bytes = bytes;
      t.why_unsized.clear();
      t.likely_shape.clear();
      sized.push_back(fmt::format("'{}' {}", t.name, ShapeText(shape)));
    }
  if (sized.empty()) return {};
  return how == KernelSizedOutputs::kFromOptions
             ? fmt::format(
                   "{} custom-op output{} sized from the op's options: {} (a tensor's shape "
                   "overrides them; planned as stored, they take one element each, as TFLM "
                   "reads them)",
                   sized.size(), sized.size() == 1 ? "" : "s", fmt::join(sized, ", "))
             : fmt::format(
                   "{} custom-op output{} planned as stored, one element each, as "
                   "TensorFlow Lite Micro reads them: {}",
                   sized.size(), sized.size() == 1 ? "" : "s", fmt::join(sized, ", "));
}

}  // namespace memplan
