#include "src/formats/onnx/onnx_workload.h"

#include "memplan/onnx.h"
#include "memplan/records_io.h"

namespace memplan {

Workload LoadOnnxWorkload(std::string_view spec, const LoadOptions& options) {
  const std::filesystem::path path{std::string(spec)};
  OnnxModel model = ReadOnnx(ReadFileBytes(path), spec, options);
  Workload w = GraphWorkload(std::move(model.graph), spec, "onnx", options);
  w.notes = std::move(model.warnings);
  return w;
}

}  // namespace memplan
