#pragma once
// memplan inspect MODEL.onnx: what an ONNX model holds and how memplan reads it.
#include <string>

#include "memplan/workload.h"

namespace memplan::cli {

// Prints the inspection of an .onnx file as a table ("table") or JSON ("json"): IR version,
// producer and operator sets; graph inputs and outputs with their types and shapes (after
// --dim/--shape and inference); nodes in the file, folded from constants, and run, by type
// and domain; constant tensors; the tensors `plan` plans, their bytes and lower bound.
void InspectOnnx(const std::string& input, const LoadOptions& load, const std::string& format);

}  // namespace memplan::cli
