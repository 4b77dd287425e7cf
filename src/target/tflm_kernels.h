#pragma once
// What each kernel of TensorFlow Lite Micro (the target's kernel set) allocates, derived from the
// op's tensors and options: the builtin options struct its parser allocates, its persistent buffers
// in Init and Prepare, and the tensors it views as temporary TfLiteTensors while it is prepared.
// docs/tflm.md restates the facts per op.

#include <optional>
#include <string>
#include <vector>

#include "memplan/graph.h"
#include "src/target/layout.h"

namespace memplan::target {

struct KernelMemory {
  bool has_builtin_data = false;    // the parser allocates an options struct
  Layout builtin_data;              // its layout (allocated at its own alignment)
  std::vector<Bytes> init;          // Init's persistent buffers (16-aligned), in order
  std::vector<Bytes> prepare;       // Prepare's persistent buffers (16-aligned), in order
  std::vector<std::int32_t> temps;  // tensors Prepare views as temp TfLiteTensors, in order
  // How many of `temps` come before the `prepare` buffers (the rest after them); all of
  // them when unset. Matters where the tail and temp sections meet.
  std::optional<std::size_t> temps_before_prepare;
  // Prepare does not check that its persistent buffers were granted (TFLM's float conv
  // and depthwise conv per-channel arrays, which float never uses): an allocation that
  // does not fit fails silently and the model still runs.
  bool prepare_unchecked = false;
  // Scratch requests in Prepare, in order, where the runtime's verification kernels do not
  // make them already (CMSIS-NN's kernels, ADD_N, MIRROR_PAD, REDUCE_ALL, TRANSPOSE_CONV).
  std::vector<Bytes> scratch;
  bool known = true;        // false: the kernel's memory is not modelled
  std::string unsupported;  // non-empty: the kernel cannot run the op on the target
};

KernelMemory DescribeKernel(const TargetAbi& abi, const Subgraph& subgraph, const Operator& op);

}  // namespace memplan::target
