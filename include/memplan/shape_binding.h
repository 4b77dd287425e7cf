#pragma once
// Binding the sizes a model leaves open, as the user gives them on the command line:
// --dim batch=N for a leading -1, --shape TENSOR=1x10x4 for a whole tensor.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memplan/graph.h"

namespace memplan {

// Applies the bindings to every tensor they name, recomputing byte sizes:
// - ("batch", N): every tensor whose first dimension is -1 gets N there;
// - (TENSOR, shape): every tensor called TENSOR (any subgraph) gets that shape, even one
//   the model sizes itself (custom-op outputs stored as [] are the usual case).
// A --dim binding the model does not use (another name, or batch on a model without a
// leading -1) binds nothing: it comes back as a warning, so one set of flags serves a
// whole folder of models. UsageError for a --shape naming no tensor, a negative size, or a
// shape whose byte size overflows.
std::vector<std::string> ApplyShapeBindings(
    Graph& graph, const std::vector<std::pair<std::string, std::int64_t>>& dims,
    const std::vector<std::pair<std::string, std::vector<std::int64_t>>>& shapes);

// How outputs that a custom op's kernel sizes at run time (stored with shape []) are sized
// when nothing binds them.
enum class KernelSizedOutputs {
  kFromOptions,  // the shape the reader read from the op's options (Tensor::likely_shape)
  kAsStored,     // the stored [] read literally, one element, as TensorFlow Lite Micro does
};

// Sizes every tensor still without a size that has a likely shape (after --shape bindings,
// which win). Returns one line saying which tensors were sized and how, empty when none.
std::string SizeKernelSizedOutputs(Graph& graph, KernelSizedOutputs how);

}  // namespace memplan
