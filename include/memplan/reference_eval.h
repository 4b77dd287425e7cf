#pragma once
// A small reference evaluator for .tflite models: runs subgraph 0 op by op with the
// arithmetic of TensorFlow Lite Micro's reference kernels (float32 and int8), for the
// ops a patch rewrite touches (CONV_2D, DEPTHWISE_CONV_2D, ADD, MAX_POOL_2D,
// AVERAGE_POOL_2D, RELU, RELU6, PAD, PADV2, SLICE, STRIDED_SLICE, CONCATENATION, RESHAPE,
// TRANSPOSE).
// It exists to prove rewrites exact: the original and the rewritten model run on the
// same inputs and their bytes are compared (docs/below-the-bound.md).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace memplan {

struct EvalOptions {
  // Stop at the first op the evaluator does not support (recorded in EvalResult) instead
  // of refusing the model; the tensors computed so far stay valid.
  bool stop_at_unsupported = false;
  // Stop once the tensor of this name is computed (empty: run every op). A rewrite that
  // leaves the ops after a tensor unchanged is exact when that tensor is.
  std::string until_tensor;
};

struct EvalResult {
  // Per tensor of subgraph 0: its bytes once known (constants, inputs, op outputs);
  // empty for tensors not computed.
  std::vector<std::vector<std::uint8_t>> tensors;
  std::size_t ops_run = 0;  // ops evaluated, in order
  // "op N (TYPE): why" for the op evaluation stopped at; empty when every op ran.
  std::string stopped_at;
};

// Runs subgraph 0 of the model `bytes` on `inputs` (one byte vector per subgraph input,
// each exactly the tensor's size). InputError naming `source`, the op and the tensor for
// a malformed model, a wrong input, or (unless stop_at_unsupported) an unsupported op or
// type.
EvalResult EvaluateTflite(std::string_view bytes, std::string_view source,
                          const std::vector<std::vector<std::uint8_t>>& inputs,
                          const EvalOptions& options = {});

// The names of subgraph 0's tensors, in order (to match tensors across two models).
std::vector<std::string> TfliteTensorNames(std::string_view bytes, std::string_view source);

}  // namespace memplan
