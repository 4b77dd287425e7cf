#pragma once
// `memplan plan model.onnx`: read (binding open dimensions), derive the records.
#include <string_view>

#include "memplan/workload.h"

namespace memplan {

// The workload of a .onnx file (kind "onnx"). InputError for a bad model or tensors left
// without a size; UsageError for bindings that name nothing.
Workload LoadOnnxWorkload(std::string_view spec, const LoadOptions& options);

}  // namespace memplan
