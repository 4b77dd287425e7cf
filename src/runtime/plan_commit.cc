// AllocateTensors, step 3: TFLM's CommitStaticMemoryPlan. Scratch handles and variables
// go to the tail; the allocation-info array and the planner's working memory to temp;
// the buffers that need allocating become a Problem, planned with the chosen strategy
// around the offline offsets, verified, and committed as data pointers into the head.
// With in place, the records of outputs that share an input's memory merge into that
// input's record first (ApplyInPlace), and the plan of the merged records is expanded.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/offsets.h"
#include "src/runtime/interpreter_state.h"

namespace memplan::runtime {

namespace {

// The offline offsets to use, or nullptr.
const std::vector<std::int64_t>* OfflineOffsets(const InterpreterState& state) {
  const InterpreterOptions& o = state.options;
  if (o.offline == OfflinePlanUse::kIgnore) return nullptr;
  const std::vector<std::int64_t>& offsets = EffectiveOfflineOffsets(state.graph, o);
  if (offsets.empty()) {
    if (o.offline == OfflinePlanUse::kRequire)
      throw InputError(
          fmt::format("{}: the model has no OfflineMemoryAllocation metadata", state.graph.source));
    return nullptr;
  }
  if (offsets.size() != state.TensorCount())
    throw InputError(
        fmt::format("{}: Nbr of offline buffer offsets ({}) in metadata not equal nbr tensors ({})",
                    state.graph.source, offsets.size(), state.TensorCount()));
  return &offsets;
}

// A scope or an offline offset as the 32-bit value TFLM keeps; InputError beyond that.
std::int32_t Narrow(const InterpreterState& state, std::int64_t value, const char* what) {
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max())
    throw InputError(
        fmt::format("{}: {} {} does not fit in 32 bits", state.graph.source, what, value));
  return static_cast<std::int32_t>(value);
}

struct PlanInput {
  Problem problem;                     // planned buffers
  std::vector<PlannedBuffer> buffers;  // what each stands for
  std::vector<std::size_t> entries;    // the allocation-info entry of each record
};

// The records of the entries that need allocating (and, with `with_preallocated`, of
// the preallocated tensors as if they did), in entry order.
PlanInput BuildProblem(const InterpreterState& state, std::span<const AllocationInfo> infos,
                       const std::vector<bool>& preallocated, bool with_preallocated) {
  PlanInput in;
  in.problem.alignment = state.arena.alignment();
  const std::size_t n_tensors = state.TensorCount();
  std::vector<std::size_t> chosen;
  bool any_unset = false;
  for (std::size_t k = 0; k < infos.size(); ++k) {
    const bool take =
        infos[k].needs_allocating || (with_preallocated && k < n_tensors && preallocated[k]);
    if (!take) continue;
    chosen.push_back(k);
    any_unset = any_unset || infos[k].first < 0 || infos[k].last < 0;
  }
  // TFLM hands -1 ("never set") to its planner as a time; records start at 0, so every
  // step moves up by one, which keeps exactly the same conflicts.
  const Step shift = any_unset ? 1 : 0;
  bool any_fixed = false;
  for (std::size_t k : chosen) any_fixed = any_fixed || infos[k].offline >= 0;
  for (std::size_t k : chosen) {
    const AllocationInfo& info = infos[k];
    const Step first = Step{info.first} + shift;
    in.problem.records.push_back({AlignUp(info.bytes, in.problem.alignment), first,
                                  std::max(first, Step{info.last} + shift)});
    PlannedBuffer buffer;
    if (k < n_tensors) {
      buffer.tensor = state.RefOf(k);
      const Tensor& tensor = *state.Eval(buffer.tensor).tensor;
      in.problem.names.push_back(tensor.name.empty() ? fmt::format("t{}", k) : tensor.name);
    } else {
      const std::size_t handle = k - n_tensors;
      const std::int32_t node = state.scratch_node[handle];
      buffer.scratch_op = node;
      in.problem.names.push_back(fmt::format("scratch{}@op{}", handle, node));
    }
    buffer.offline = info.offline >= 0;
    if (any_fixed)
      in.problem.fixed_offsets.push_back(
          info.offline >= 0 ? std::optional<Bytes>(static_cast<Bytes>(info.offline))
                            : std::nullopt);
    in.buffers.push_back(buffer);
    in.entries.push_back(k);
  }
  return in;
}

struct PlannedBuffers {
  OffsetPlan plan;                  // one offset per record of the input
  std::vector<BufferShare> shares;  // in place: the shares applied
};

// Plans the records with the strategy; with in place, plans the merged records and
// expands the plan back (both checked).
PlannedBuffers PlanBuffers(const InterpreterState& state, const PlanInput& in) {
  const InterpreterOptions& o = state.options;
  if (o.planner) {
    OffsetPlan plan = o.planner(in.problem, in.buffers);
    VerifyOrThrow(in.problem, plan);
    return {std::move(plan), {}};
  }
  if (!o.inplace || o.inplace->empty()) return {PlanOffsets(in.problem, o.strategy), {}};
  GraphRecords records;
  records.problem = in.problem;
  for (std::size_t r = 0; r < in.buffers.size(); ++r) {
    const PlannedBuffer& b = in.buffers[r];
    // A scratch buffer stands for no tensor: an origin no share names.
    records.origins.push_back(b.scratch_op >= 0 ? TensorRef{-1, static_cast<std::int32_t>(r)}
                                                : b.tensor);
  }
  InPlaceRecords merged = ApplyInPlace(state.graph, records, *o.inplace);
  const OffsetPlan merged_plan = PlanOffsets(merged.problem, o.strategy);
  OffsetPlan plan = ExpandPlan(in.problem, merged, merged_plan);
  VerifyExpandedOrThrow(in.problem, merged, merged_plan, plan);
  return {std::move(plan), std::move(merged.shares)};
}

// The scratch handles, in the tail, each with the size its op asked for.
void AllocateScratchHandles(InterpreterState& state) {
  state.scratch = nullptr;
  if (state.scratch_count == 0) return;
  std::byte* memory = state.arena.AllocatePersistent(sizeof(ScratchHandle) * state.scratch_count,
                                                     16, ArenaAllocation::kPersistentBufferData);
  state.scratch = reinterpret_cast<ScratchHandle*>(memory);
  for (std::size_t k = 0; k < state.scratch_count; ++k)
    std::construct_at(state.scratch + k, ScratchHandle{nullptr, state.requests[k].bytes});
}

// Variables without an offline offset live in the tail for the model's whole life.
void AllocateTailVariables(InterpreterState& state, const std::vector<std::int64_t>* offline) {
  for (std::size_t s = 0; s < state.graph.subgraphs.size(); ++s)
    for (std::int32_t t = 0; t < state.subgraphs[s].tensor_count; ++t) {
      EvalTensor& e = state.subgraphs[s].tensors[t];
      const std::size_t g = state.scopes.tensor_base[s] + t;
      if (!e.tensor->is_variable || e.bytes == 0 || (offline && (*offline)[g] >= 0)) continue;
      e.data = state.arena.AllocatePersistent(e.bytes, state.arena.alignment(),
                                              ArenaAllocation::kVariableBufferData);
      ++state.stats.tail_variables;
      state.stats.variable_bytes += e.bytes;
    }
}

// Which global tensor indices the application preallocated.
std::vector<bool> PreallocatedTensors(const InterpreterState& state) {
  std::vector<bool> is_preallocated(state.TensorCount(), false);
  for (const auto& [ref, buffer] : state.preallocated)
    is_preallocated[state.scopes.tensor_base[ref.subgraph] + ref.tensor] = true;
  return is_preallocated;
}

// An op's intermediate tensor with a size is refused, as TFLM refuses it.
void RefuseSizedIntermediates(const Graph& graph) {
  for (const Subgraph& sg : graph.subgraphs)
    for (const Operator& op : sg.ops)
      for (std::int32_t t : op.intermediates)
        if (sg.tensors[t].bytes.value_or(0) != 0)
          throw InputError(
              fmt::format("{}: Does not support intermediate tensor with non-zero "
                          "size: {} (tensor '{}' of op {})",
                          graph.source, *sg.tensors[t].bytes, sg.tensors[t].name, op.type));
}

// Fills the allocation-info entries of the tensors (global tensor index order).
void FillTensorInfos(InterpreterState& state, const std::vector<std::int64_t>* offline,
                     AllocationInfo* infos) {
  for (std::size_t s = 0; s < state.graph.subgraphs.size(); ++s)
    for (std::int32_t t = 0; t < state.subgraphs[s].tensor_count; ++t) {
      EvalTensor& e = state.subgraphs[s].tensors[t];
      const std::size_t g = state.scopes.tensor_base[s] + t;
      AllocationInfo info;
      info.bytes = e.bytes;
      info.target = &e.data;
      info.first = Narrow(state, state.scopes.first[g], "scope");
      info.last = Narrow(state, state.scopes.last[g], "scope");
      info.offline = offline ? Narrow(state, (*offline)[g], "offline offset") : -1;
      info.needs_allocating =
          e.data == nullptr && !e.tensor->is_constant && !e.tensor->is_variable && e.bytes != 0;
      if (e.tensor->is_variable && info.offline >= 0 && e.bytes != 0) info.needs_allocating = true;
      std::construct_at(infos + g, info);
    }
}

// Fills the allocation-info entries of the scratch buffers, after the tensors'.
void FillScratchInfos(InterpreterState& state, AllocationInfo* infos) {
  const std::size_t n_tensors = state.TensorCount();
  for (std::size_t s = 0; s < state.graph.subgraphs.size(); ++s)
    for (std::int32_t i = 0; i < state.subgraphs[s].op_count; ++i) {
      const NodeAndKernel& node = state.subgraphs[s].nodes[i];
      for (std::int32_t k = 0; k < node.scratch_count; ++k) {
        AllocationInfo info;
        info.bytes = state.scratch[node.first_scratch + k].bytes;
        info.target = &state.scratch[node.first_scratch + k].data;
        info.first = Narrow(state, state.scopes.op_first[node.node], "scope");
        info.last = Narrow(state, state.scopes.op_last[node.node], "scope");
        info.needs_allocating = true;
        std::construct_at(infos + n_tensors + node.first_scratch + k, info);
      }
    }
}

void CheckOfflineAlignment(const InterpreterState& state, const AllocationInfo* infos) {
  for (std::size_t g = 0; g < state.TensorCount(); ++g)
    if (infos[g].needs_allocating && infos[g].offline >= 0 &&
        static_cast<Bytes>(infos[g].offline) % state.arena.alignment() != 0) {
      const TensorRef ref = state.RefOf(g);
      throw InputError(
          fmt::format("{}: offline offset {} of tensor {} '{}' (subgraph {}) is not "
                      "a multiple of the arena alignment {}",
                      state.graph.source, infos[g].offline, ref.tensor,
                      state.Eval(ref).tensor->name, ref.subgraph, state.arena.alignment()));
    }
}

// The plan of `in`: the unchecked one the options give, or the strategy's (verified).
void ChoosePlan(InterpreterState& state, const PlanInput& in) {
  const InterpreterOptions& o = state.options;
  if (o.unchecked_plan) {
    if (o.unchecked_plan->offsets.size() != in.problem.size())
      throw UsageError(fmt::format("the unchecked plan has {} offsets for {} buffers",
                                   o.unchecked_plan->offsets.size(), in.problem.size()));
    state.plan = *o.unchecked_plan;
    state.plan.arena_bytes = ArenaBytes(in.problem, state.plan.offsets);
    return;
  }
  PlannedBuffers planned = PlanBuffers(state, in);
  state.plan = std::move(planned.plan);
  state.shares = std::move(planned.shares);
  if (o.inplace) {
    state.stats.inplace_shares = state.shares.size();
    state.stats.head_without_inplace = PlanOffsets(in.problem, o.strategy).arena_bytes;
  }
}

// The figures of the committed plan; with preallocated tensors, also what the head would
// need with them in the arena (planned on the host).
void CountPlanStats(InterpreterState& state, const PlanInput& in,
                    std::span<const AllocationInfo> entries,
                    const std::vector<bool>& is_preallocated) {
  InterpreterStats& stats = state.stats;
  stats.head_bytes = state.plan.arena_bytes;
  stats.planned_buffers = in.problem.size();
  for (const PlannedBuffer& b : in.buffers) {
    stats.scratch_buffers += b.scratch_op >= 0 ? 1 : 0;
    stats.offline_buffers += b.offline ? 1 : 0;
  }
  stats.preallocated = state.preallocated.size();
  if (state.preallocated.empty()) return;
  for (const auto& [ref, buffer] : state.preallocated)
    stats.preallocated_bytes += state.Eval(ref).bytes;
  const PlanInput without = BuildProblem(state, entries, is_preallocated, true);
  stats.head_without_preallocation =
      state.options.unchecked_plan ? 0 : PlanBuffers(state, without).plan.arena_bytes;
}

}  // namespace

void InterpreterState::CommitPlan() {
  const auto* offline = OfflineOffsets(*this);
  AllocateScratchHandles(*this);
  const std::vector<bool> is_preallocated = PreallocatedTensors(*this);
  AllocateTailVariables(*this, offline);
  RefuseSizedIntermediates(graph);

  // The allocation-info array, in temp as in TFLM.
  const std::size_t n_entries = TensorCount() + scratch_count;
  std::byte* info_memory =
      arena.AllocateTemp(std::max<std::size_t>(1, n_entries) * sizeof(AllocationInfo), 16);
  auto* infos = reinterpret_cast<AllocationInfo*>(info_memory);
  FillTensorInfos(*this, offline, infos);
  FillScratchInfos(*this, infos);
  const std::span<const AllocationInfo> entries(infos, n_entries);
  CheckOfflineAlignment(*this, infos);

  PlanInput in = BuildProblem(*this, entries, is_preallocated, false);
  // The planner's working memory, as TFLM's greedy planner takes it from the arena.
  std::byte* planner_memory =
      arena.AllocateTemp(std::max<Bytes>(1, kPlannerBytesPerBuffer * in.problem.size()), 16);
  ChoosePlan(*this, in);
  for (std::size_t r = 0; r < in.entries.size(); ++r)
    *infos[in.entries[r]].target = arena.head_start() + plan.offsets[r];
  CountPlanStats(*this, in, entries, is_preallocated);
  problem = std::move(in.problem);
  buffers = std::move(in.buffers);

  arena.DeallocateTemp(planner_memory);
  arena.DeallocateTemp(info_memory);
  arena.ResetTemp();
  arena.ReserveHead(plan.arena_bytes);
}

}  // namespace memplan::runtime
