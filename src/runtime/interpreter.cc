// The Interpreter's public face: registration checks, the AllocateTensors sequence, the
// arena-size diagnosis on failure, and Invoke.
#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/runtime.h"
#include "memplan/vela.h"
#include "src/runtime/arena_need.h"
#include "src/runtime/interpreter_state.h"

namespace memplan {

namespace runtime {

TensorRef InterpreterState::RefOf(std::size_t g) const {
  const auto& base = scopes.tensor_base;
  const auto it = std::upper_bound(base.begin(), base.end(), g);
  const auto s = static_cast<std::size_t>(it - base.begin()) - 1;
  return {static_cast<std::int32_t>(s), static_cast<std::int32_t>(g - base[s])};
}

void InterpreterState::Allocate() {
  allocation_started = true;
  StartModelAllocation();
  PrepareOps();
  CommitPlan();
  FinishModelAllocation();
  allocated = true;
}

void InterpreterState::RunSubgraph(std::int32_t subgraph) {
  const SubgraphTable& table = subgraphs[subgraph];
  for (std::int32_t i = 0; i < table.op_count; ++i) {
    NodeAndKernel& node = table.nodes[i];
    OpContext context(*this, node, OpContext::Phase::kEval);
    node.kernel->eval(context);
  }
}

}  // namespace runtime

Interpreter::Interpreter(const Graph& graph, Arena& arena, const KernelRegistry& kernels,
                         InterpreterOptions options)
    : state_(
          std::make_unique<runtime::InterpreterState>(graph, arena, kernels, std::move(options))) {}

Interpreter::~Interpreter() = default;

namespace {

std::string Label(const Graph& graph, TensorRef ref) {
  return fmt::format("tensor {} '{}' (subgraph {})", ref.tensor,
                     graph.subgraphs[ref.subgraph].tensors[ref.tensor].name, ref.subgraph);
}

}  // namespace

void Interpreter::RegisterPreallocatedTensor(TensorRef ref, std::span<std::byte> buffer) {
  auto& s = *state_;
  const Graph& graph = s.graph;
  if (s.allocation_started)
    throw UsageError("RegisterPreallocatedTensor() must come before AllocateTensors()");
  if (ref.subgraph < 0 || static_cast<std::size_t>(ref.subgraph) >= graph.subgraphs.size() ||
      ref.tensor < 0 ||
      static_cast<std::size_t>(ref.tensor) >= graph.subgraphs[ref.subgraph].tensors.size())
    throw UsageError(
        fmt::format("{}: no tensor {} in subgraph {}", graph.source, ref.tensor, ref.subgraph));
  const Tensor& tensor = graph.subgraphs[ref.subgraph].tensors[ref.tensor];
  const std::string label = Label(graph, ref);
  if (tensor.is_constant)
    throw UsageError(
        fmt::format("{}: {} is a constant; its data stays in the model", graph.source, label));
  if (tensor.is_variable)
    throw UsageError(
        fmt::format("{}: {} is a variable; the runtime keeps its state", graph.source, label));
  if (!tensor.bytes)
    throw UsageError(fmt::format("{}: {} has no static size", graph.source, label));
  if (buffer.size() < *tensor.bytes)
    throw UsageError(fmt::format("{}: the buffer for {} has {} bytes; the tensor needs {}",
                                 graph.source, label, buffer.size(), *tensor.bytes));
  const auto& offline = runtime::EffectiveOfflineOffsets(graph, s.options);
  if (s.options.offline != OfflinePlanUse::kIgnore && !offline.empty()) {
    std::size_t g = static_cast<std::size_t>(ref.tensor);
    for (std::int32_t i = 0; i < ref.subgraph; ++i) g += graph.subgraphs[i].tensors.size();
    if (g < offline.size() && offline[g] >= 0)
      throw UsageError(
          fmt::format("{}: {} is placed by the offline plan (offset {}); it cannot "
                      "be preallocated",
                      graph.source, label, offline[g]));
  }
  for (const auto& [other, b] : s.preallocated)
    if (other == ref)
      throw UsageError(fmt::format("{}: {} is already preallocated", graph.source, label));
  s.preallocated.emplace_back(ref, buffer);
}

void Interpreter::AllocateTensors() {
  auto& s = *state_;
  if (s.allocated) return;
  if (s.allocation_started)
    throw UsageError("AllocateTensors() failed before; make a new Interpreter and Arena");
  s.allocation_started = true;
  const runtime::ArenaState before = runtime::ArenaState::Of(s.arena);
  try {
    s.Allocate();
  } catch (const ArenaTooSmall& e) {
    throw ArenaTooSmall(e, runtime::ExplainArenaNeed(s, before));
  }
  s.allocated = true;
}

void Interpreter::Invoke() {
  AllocateTensors();
  state_->RunSubgraph(0);
  ++state_->invocations;
}

bool Interpreter::allocated() const {
  return state_->allocated;
}
std::uint64_t Interpreter::invocations() const {
  return state_->invocations;
}

namespace {

void RequireAllocated(const runtime::InterpreterState& s) {
  if (!s.allocated) throw UsageError("call AllocateTensors() first");
}

}  // namespace

std::span<std::byte> Interpreter::TensorData(TensorRef ref) const {
  RequireAllocated(*state_);
  return state_->View(ref.subgraph, ref.tensor).data;
}

std::span<std::byte> Interpreter::input(std::size_t i) const {
  RequireAllocated(*state_);
  if (i >= state_->graph.subgraphs[0].inputs.size()) throw UsageError("no such input");
  return state_->io_views[i].data;
}

std::span<std::byte> Interpreter::output(std::size_t i) const {
  RequireAllocated(*state_);
  const auto& main = state_->graph.subgraphs[0];
  if (i >= main.outputs.size()) throw UsageError("no such output");
  return state_->io_views[main.inputs.size() + i].data;
}

std::vector<TensorRef> Interpreter::ExternalTensors() const {
  const Graph& graph = state_->graph;
  std::vector<TensorRef> out;
  for (std::int32_t t : graph.subgraphs[0].inputs) {
    const Tensor& tensor = graph.subgraphs[0].tensors[t];
    if (!tensor.is_constant && !tensor.is_variable) out.push_back({0, t});
  }
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    std::vector<char> written(sg.tensors.size(), 0), read(sg.tensors.size(), 0);
    for (std::int32_t t : sg.inputs) written[t] = 1;
    for (const Operator& op : sg.ops) {
      for (std::int32_t t : op.outputs) written[t] = 1;
      // Vela's ethos-u op reads its scratch tensors (inputs 2 and 3) as working memory it
      // writes itself; nobody provides them.
      if (op.type == kEthosUOp)
        for (std::size_t i = 2; i < std::min<std::size_t>(op.inputs.size(), 4); ++i)
          if (op.inputs[i] >= 0) written[op.inputs[i]] = 1;
      for (std::int32_t t : op.inputs)
        if (t >= 0) read[t] = 1;
    }
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      const Tensor& tensor = sg.tensors[t];
      if (read[t] && !written[t] && !tensor.is_constant && !tensor.is_variable)
        out.push_back({static_cast<std::int32_t>(s), static_cast<std::int32_t>(t)});
    }
  }
  return out;
}

std::vector<TensorRef> Interpreter::VariableTensors() const {
  const Graph& graph = state_->graph;
  std::vector<TensorRef> out;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
    for (std::size_t t = 0; t < graph.subgraphs[s].tensors.size(); ++t)
      if (graph.subgraphs[s].tensors[t].is_variable)
        out.push_back({static_cast<std::int32_t>(s), static_cast<std::int32_t>(t)});
  return out;
}

const Problem& Interpreter::problem() const {
  return state_->problem;
}
const std::vector<PlannedBuffer>& Interpreter::buffers() const {
  return state_->buffers;
}
const OffsetPlan& Interpreter::plan() const {
  return state_->plan;
}
const std::vector<BufferShare>& Interpreter::shares() const {
  return state_->shares;
}
const InterpreterStats& Interpreter::stats() const {
  return state_->stats;
}
const Graph& Interpreter::graph() const {
  return state_->graph;
}
Arena& Interpreter::arena() const {
  return state_->arena;
}

}  // namespace memplan
