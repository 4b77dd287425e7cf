// What kernels may ask of the runtime, checked against the phase they run in.
#include <fmt/format.h>

#include <memory>

#include "memplan/error.h"
#include "memplan/kernel.h"
#include "src/runtime/interpreter_state.h"

namespace memplan {

void OpContext::RequirePhase(bool ok, const char* what) const {
  if (!ok)
    throw UsageError(fmt::format("kernel '{}' of op {} ({}): {}", node_.kernel->name, node_.node,
                                 node_.op->type, what));
}

const Graph& OpContext::graph() const {
  return state_.graph;
}
const Operator& OpContext::op() const {
  return *node_.op;
}
std::int32_t OpContext::subgraph() const {
  return node_.subgraph;
}
std::int32_t OpContext::op_index() const {
  return node_.index;
}
std::int32_t OpContext::node_index() const {
  return node_.node;
}
std::size_t OpContext::num_inputs() const {
  return node_.op->inputs.size();
}
std::size_t OpContext::num_outputs() const {
  return node_.op->outputs.size();
}
void* OpContext::op_data() const {
  return node_.op_data;
}

TensorView OpContext::input(std::size_t i) const {
  RequirePhase(i < num_inputs(), "input index out of range");
  if (phase_ == Phase::kPrepare && state_.prepare_views != nullptr) return state_.prepare_views[i];
  return state_.View(node_.subgraph, node_.op->inputs[i]);
}

TensorView OpContext::output(std::size_t i) const {
  RequirePhase(i < num_outputs(), "output index out of range");
  if (phase_ == Phase::kPrepare && state_.prepare_views != nullptr)
    return state_.prepare_views[num_inputs() + i];
  return state_.View(node_.subgraph, node_.op->outputs[i]);
}

TensorView OpContext::tensor(std::int32_t subgraph, std::int32_t tensor) const {
  const Graph& g = state_.graph;
  RequirePhase(subgraph >= 0 && static_cast<std::size_t>(subgraph) < g.subgraphs.size() &&
                   tensor >= 0 &&
                   static_cast<std::size_t>(tensor) < g.subgraphs[subgraph].tensors.size(),
               "no such tensor");
  return state_.View(subgraph, tensor);
}

void* OpContext::AllocatePersistent(std::size_t bytes, std::size_t alignment) {
  RequirePhase(phase_ != Phase::kEval, "AllocatePersistent() is for init and prepare");
  return state_.arena.AllocatePersistent(bytes, alignment, ArenaAllocation::kPersistentBufferData);
}

int OpContext::RequestScratch(std::size_t bytes) {
  RequirePhase(phase_ == Phase::kPrepare, "RequestScratch() is for prepare");
  if (static_cast<std::size_t>(node_.scratch_count) >= runtime::kMaxScratchPerOp)
    throw UsageError(
        fmt::format("op {} ({}): Scratch buffer request exceeds limit per operator ({})",
                    node_.node, node_.op->type, runtime::kMaxScratchPerOp));
  std::construct_at(state_.requests + state_.scratch_count,
                    runtime::ScratchRequest{bytes, node_.node, 0});
  state_.scratch_node.push_back(node_.node);
  ++state_.scratch_count;
  return node_.scratch_count++;
}

int OpContext::num_scratch() const {
  return node_.scratch_count;
}

std::span<std::byte> OpContext::Scratch(int index) const {
  RequirePhase(phase_ == Phase::kEval, "Scratch() is for eval");
  RequirePhase(index >= 0 && index < node_.scratch_count, "scratch index out of range");
  const runtime::ScratchHandle& h = state_.scratch[node_.first_scratch + index];
  return {h.data, static_cast<std::size_t>(h.bytes)};
}

void OpContext::InvokeSubgraph(std::int32_t subgraph) {
  RequirePhase(phase_ == Phase::kEval, "InvokeSubgraph() is for eval");
  RequirePhase(subgraph > 0 && static_cast<std::size_t>(subgraph) < state_.graph.subgraphs.size(),
               "no such subgraph");
  state_.RunSubgraph(subgraph);
}

void KernelRegistry::Add(std::string op_type, const Kernel& kernel) {
  kernels_.insert_or_assign(std::move(op_type), kernel);
}

void KernelRegistry::SetFallback(const Kernel& kernel) {
  fallback_ = kernel;
}

const Kernel* KernelRegistry::Find(std::string_view op_type) const {
  if (auto it = kernels_.find(op_type); it != kernels_.end()) return &it->second;
  return fallback_ ? &*fallback_ : nullptr;
}

}  // namespace memplan
