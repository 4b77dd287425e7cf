#pragma once
// `memplan plan model.tflite`: read, bind open sizes, derive the records.
#include <string_view>

#include "memplan/workload.h"

namespace memplan {

// The workload of a .tflite file (kind "tflite"). InputError for a bad model, an
// unusable offline plan, or tensors left without a size; UsageError for bindings that
// name nothing.
Workload LoadTfliteWorkload(std::string_view spec, const LoadOptions& options);

}  // namespace memplan
