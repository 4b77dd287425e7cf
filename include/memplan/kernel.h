#pragma once
// Kernels the runtime runs, looked up by op type in a registry (as TFLM's op resolver).
// A kernel is three plain functions: init (once, may allocate persistent memory for its
// op data), prepare (once, may ask for persistent memory and for scratch buffers that
// live while the op runs) and eval (every invocation).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "memplan/graph.h"

namespace memplan {

namespace runtime {
struct InterpreterState;
struct NodeAndKernel;
}  // namespace runtime

// One tensor as a kernel sees it.
struct TensorView {
  const Tensor* tensor = nullptr;  // name, type, shape; nullptr for an absent optional input
  TensorRef ref;                   // where it is in the graph
  // Its bytes: in the arena, in a preallocated buffer, or in the tail (variables). Empty
  // for constants (their data stays in the model, outside the arena), for zero-size
  // tensors, and during init/prepare (nothing is placed yet).
  std::span<std::byte> data;

  bool present() const { return tensor != nullptr; }
};

// What a kernel may ask of the runtime while it runs.
class OpContext {
 public:
  const Graph& graph() const;
  const Operator& op() const;
  std::int32_t subgraph() const;
  std::int32_t op_index() const;  // position in its subgraph
  // Position among the ops of all subgraphs (subgraph 0 first): a stable op identity.
  std::int32_t node_index() const;

  std::size_t num_inputs() const;
  std::size_t num_outputs() const;
  TensorView input(std::size_t i) const;  // not present() for an omitted optional input
  TensorView output(std::size_t i) const;
  // Any tensor of the model: control flow reads and writes the subgraphs it runs.
  TensorView tensor(std::int32_t subgraph, std::int32_t tensor) const;

  // The kernel's op data (what init returned), or nullptr.
  void* op_data() const;

  // Init and prepare: persistent memory from the arena's tail, for the life of the model.
  void* AllocatePersistent(std::size_t bytes, std::size_t alignment = 16);
  // Prepare only: a buffer of `bytes` alive while this op runs (planned in the head with
  // the tensors). Returns its index for Scratch(); at most 12 per op (TFLM's limit).
  int RequestScratch(std::size_t bytes);
  // Eval only: the bytes of this op's scratch buffer `index`.
  std::span<std::byte> Scratch(int index) const;
  int num_scratch() const;
  // Eval only: runs every op of `subgraph` (control flow: IF, WHILE, CALL_ONCE).
  void InvokeSubgraph(std::int32_t subgraph);

 private:
  friend struct runtime::InterpreterState;
  enum class Phase { kInit, kPrepare, kEval };
  OpContext(runtime::InterpreterState& state, runtime::NodeAndKernel& node, Phase phase)
      : state_(state), node_(node), phase_(phase) {}
  void RequirePhase(bool ok, const char* what) const;

  runtime::InterpreterState& state_;  // the model being run
  runtime::NodeAndKernel& node_;      // the op being run
  Phase phase_;                       // what the kernel may do now
};

struct Kernel {
  std::string_view name;  // for messages, e.g. "verify/svdf"
  // Once per op before prepare; returns the op data (usually AllocatePersistent'ed).
  void* (*init)(OpContext& context) = nullptr;
  // Once per op; may request scratch buffers and persistent memory.
  void (*prepare)(OpContext& context) = nullptr;
  // Runs the op; required.
  void (*eval)(OpContext& context) = nullptr;
};

// Op type -> kernel, with an optional fallback for every other type.
class KernelRegistry {
 public:
  void Add(std::string op_type, const Kernel& kernel);
  void SetFallback(const Kernel& kernel);
  // The kernel for `op_type`, the fallback, or nullptr.
  const Kernel* Find(std::string_view op_type) const;

 private:
  std::map<std::string, Kernel, std::less<>> kernels_;  // by op type
  std::optional<Kernel> fallback_;                      // for types not listed
};

}  // namespace memplan
