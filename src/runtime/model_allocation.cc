// AllocateTensors, steps 1, 2 and 4: the model's structs in the tail, each op's init and
// prepare (scratch requests collected in the head), and what follows the plan.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "memplan/error.h"
#include "src/runtime/interpreter_state.h"

namespace memplan::runtime {

namespace {

// Placement-constructs `count` default T's in the tail.
template <typename T>
T* TailArray(Arena& arena, std::size_t count, ArenaAllocation kind, std::uint64_t tally_count) {
  std::byte* memory = arena.AllocatePersistent(sizeof(T) * count, alignof(T) < 16 ? 16 : alignof(T),
                                               kind, tally_count);
  T* first = reinterpret_cast<T*>(memory);
  for (std::size_t i = 0; i < count; ++i) std::construct_at(first + i);
  return first;
}

std::string TensorLabel(const Graph& graph, std::size_t subgraph, std::size_t t) {
  const Tensor& tensor = graph.subgraphs[subgraph].tensors[t];
  return fmt::format("tensor {} '{}' (subgraph {})", t, tensor.name, subgraph);
}

}  // namespace

TensorView InterpreterState::View(std::int32_t subgraph, std::int32_t tensor) const {
  if (tensor < 0) return {};
  const EvalTensor& e = subgraphs[subgraph].tensors[tensor];
  TensorView view{e.tensor, {subgraph, tensor}, {}};
  if (e.data != nullptr) view.data = {e.data, static_cast<std::size_t>(e.bytes)};
  return view;
}

void InterpreterState::StartModelAllocation() {
  scopes = MarkScopes(graph);
  // The scratch-request list lives in the head while ops are prepared.
  arena.ResizeHead(sizeof(ScratchRequest) * kMaxScratchPerOp);
  requests = reinterpret_cast<ScratchRequest*>(arena.head_start());

  const std::size_t n_subgraphs = graph.subgraphs.size();
  subgraphs =
      TailArray<SubgraphTable>(arena, n_subgraphs, ArenaAllocation::kPersistentBufferData, 1);
  tensors = nullptr;
  nodes = nullptr;
  for (std::size_t s = 0; s < n_subgraphs; ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    SubgraphTable& table = subgraphs[s];
    table.tensor_count = static_cast<std::int32_t>(sg.tensors.size());
    table.op_count = static_cast<std::int32_t>(sg.ops.size());
    table.tensors = TailArray<EvalTensor>(arena, sg.tensors.size(),
                                          ArenaAllocation::kEvalTensorData, sg.tensors.size());
    table.nodes = TailArray<NodeAndKernel>(arena, sg.ops.size(),
                                           ArenaAllocation::kNodeAndRegistration, sg.ops.size());
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      const Tensor& tensor = sg.tensors[t];
      EvalTensor& e = table.tensors[t];
      e.tensor = &tensor;
      const std::size_t global = scopes.tensor_base[s] + t;
      const bool used = scopes.first[global] >= 0 || scopes.last[global] >= 0;
      if (!tensor.bytes && !tensor.is_constant && used) {
        throw InputError(
            fmt::format("{}: {} has no static size ({}); the runtime cannot place it", graph.source,
                        TensorLabel(graph, s, t),
                        tensor.why_unsized.empty() ? "unknown shape" : tensor.why_unsized));
      }
      e.bytes = tensor.bytes.value_or(0);
    }
  }
  for (const auto& [ref, buffer] : preallocated) Eval(ref).data = buffer.data();
}

void InterpreterState::PrepareOps() {
  std::int32_t node_index = 0;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      NodeAndKernel& node = subgraphs[s].nodes[i];
      node.op = &sg.ops[i];
      node.subgraph = static_cast<std::int32_t>(s);
      node.index = static_cast<std::int32_t>(i);
      node.node = node_index++;
      node.kernel = kernels.Find(node.op->type);
      if (node.kernel == nullptr || node.kernel->eval == nullptr)
        throw InputError(fmt::format("{}: no kernel for op {} ({}) in subgraph {}", graph.source, i,
                                     node.op->type, s));
    }
  }
  // As TFLM: every op's init, then every op's prepare.
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
    for (std::int32_t i = 0; i < subgraphs[s].op_count; ++i) {
      NodeAndKernel& node = subgraphs[s].nodes[i];
      if (node.kernel->init == nullptr) continue;
      OpContext context(*this, node, OpContext::Phase::kInit);
      node.op_data = node.kernel->init(context);
    }
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
    for (std::int32_t i = 0; i < subgraphs[s].op_count; ++i) {
      NodeAndKernel& node = subgraphs[s].nodes[i];
      node.first_scratch = static_cast<std::int32_t>(scratch_count);
      // The kernel's views of the op's tensors live in temp while it prepares.
      const std::size_t n_views = node.op->inputs.size() + node.op->outputs.size();
      std::byte* views = arena.AllocateTemp(std::max<std::size_t>(1, n_views) * sizeof(TensorView),
                                            alignof(TensorView) < 16 ? 16 : alignof(TensorView));
      prepare_views = reinterpret_cast<TensorView*>(views);
      for (std::size_t v = 0; v < node.op->inputs.size(); ++v)
        std::construct_at(prepare_views + v, View(node.subgraph, node.op->inputs[v]));
      for (std::size_t v = 0; v < node.op->outputs.size(); ++v)
        std::construct_at(prepare_views + node.op->inputs.size() + v,
                          View(node.subgraph, node.op->outputs[v]));
      if (node.kernel->prepare != nullptr) {
        OpContext context(*this, node, OpContext::Phase::kPrepare);
        node.kernel->prepare(context);
      }
      prepare_views = nullptr;
      arena.DeallocateTemp(views);
      arena.ResetTemp();
      // Room for the next op's requests, as TFLM keeps kMaxScratchBuffersPerOp ahead.
      arena.ResizeHead(sizeof(ScratchRequest) * (scratch_count + kMaxScratchPerOp));
    }
}

void InterpreterState::FinishModelAllocation() {
  // The application's views of subgraph 0's inputs and outputs.
  const Subgraph& main = graph.subgraphs[0];
  const std::size_t n_io = main.inputs.size() + main.outputs.size();
  if (n_io > 0) {
    io_views = TailArray<TensorView>(arena, n_io, ArenaAllocation::kPersistentTensorData, n_io);
    for (std::size_t i = 0; i < main.inputs.size(); ++i) io_views[i] = View(0, main.inputs[i]);
    for (std::size_t i = 0; i < main.outputs.size(); ++i)
      io_views[main.inputs.size() + i] = View(0, main.outputs[i]);
  }
  // Variables start from zero, as TFLM resets them.
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
    for (std::int32_t t = 0; t < subgraphs[s].tensor_count; ++t) {
      const EvalTensor& e = subgraphs[s].tensors[t];
      if (e.tensor->is_variable && e.data != nullptr) std::memset(e.data, 0, e.bytes);
    }
}

}  // namespace memplan::runtime
