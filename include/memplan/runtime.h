#pragma once
// The arena runtime: loads a model graph into an Arena the way TensorFlow Lite Micro's
// MicroInterpreter + MicroAllocator do (docs/tflm-facts.md), plans its
// tensors with any memplan offsets strategy and/or the model's offline plan, verifies
// and commits the plan, and runs the ops with kernels from a registry.
//
// Lifecycle (AllocateTensors):
//  1. tail <- subgraph tables, one EvalTensor per tensor, one NodeAndKernel per op;
//     head <- the scratch-request list (grown 12 requests ahead after each op).
//  2. every op: init, then prepare (temp <- the op's tensor views, released after);
//     scratch requests become planned buffers alive for that op only.
//  3. tail <- scratch handles; variables without an offline offset <- tail;
//     temp <- the allocation-info array and the planner's working memory (TFLM's
//     greedy planner needs 40 bytes per buffer: modelled, so the arena is sized as a
//     device needs it; memplan's strategies themselves run on the host heap);
//     plan -> verify -> every data pointer resolved; temp released (with in place:
//     merge the records of shared outputs first, plan, expand, verify);
//     head <- the largest plan of all models sharing the arena.
//  4. tail <- persistent views of the graph's inputs and outputs; variables zeroed.
// Several Interpreters may share one Arena: the head is shared (models take turns).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "memplan/arena.h"
#include "memplan/graph.h"
#include "memplan/inplace.h"
#include "memplan/kernel.h"
#include "memplan/plan.h"

namespace memplan {

// Whether the model's OfflineMemoryAllocation offsets are used.
enum class OfflinePlanUse {
  kWhenPresent,  // as TFLM: offline tensors fixed, the others planned around them
  kIgnore,       // plan every buffer with the strategy
  kRequire,      // as kWhenPresent, but a model without offline offsets is an error
};

// What one planned buffer stands for.
struct PlannedBuffer {
  TensorRef tensor;              // the tensor, when scratch_op < 0
  std::int32_t scratch_op = -1;  // node index of the op whose scratch buffer this is
  bool offline = false;          // its offset came from the offline plan
};

struct InterpreterOptions {
  // Offsets strategy for the buffers the offline plan leaves open (all of them when
  // there is none). Any name memplan::PlanOffsets knows.
  std::string strategy = "tflm_greedy";
  OfflinePlanUse offline = OfflinePlanUse::kWhenPresent;
  // OfflineMemoryAllocation offsets that replace the model's own (Graph::fixed_offsets):
  // one per tensor of every subgraph (subgraph 0 first), -1 = plan online. Empty: the
  // model's.
  std::vector<std::int64_t> offline_offsets;
  // In-place outputs (include/memplan/inplace.h): the buffers' records are merged as
  // ApplyInPlace merges them for the ops' own order, the merged records planned, and the
  // plan expanded, so an output that shares an input's memory gets its address. Kernels
  // must honour the shares (VerificationKernels do). Empty or absent: nothing shares.
  std::optional<InPlaceRuleSet> inplace;
  // For tests only: commit this plan (over problem() of an identical interpreter)
  // instead of planning, and do not verify it (in place is not applied). Shows that a
  // broken plan is caught.
  std::optional<OffsetPlan> unchecked_plan;
  // An engine's own planner in place of `strategy` (e.g. a CpuArenaPlanner, as
  // `memplan run --resize` uses one): given the problem and what each record stands for,
  // it returns the offsets, which are verified like any plan. In place is not applied.
  std::function<OffsetPlan(const Problem&, const std::vector<PlannedBuffer>&)> planner;
};

// Figures of one loaded model.
struct InterpreterStats {
  Bytes head_bytes = 0;                  // this model's plan (max offset + size)
  std::size_t planned_buffers = 0;       // buffers the plan placed (tensors + scratch)
  std::size_t scratch_buffers = 0;       // of which scratch requests
  std::size_t offline_buffers = 0;       // of which placed by the offline plan
  std::size_t tail_variables = 0;        // variable tensors kept in the tail
  Bytes variable_bytes = 0;              // their bytes
  std::size_t preallocated = 0;          // tensors in application buffers
  Bytes preallocated_bytes = 0;          // their bytes (outside the arena)
  Bytes head_without_preallocation = 0;  // the plan if they were in the arena (0: none)
  std::size_t inplace_shares = 0;        // outputs living in an input's buffer (in place)
  Bytes head_without_inplace = 0;        // the plan if none shared (0: in place not asked)
};

class Interpreter {
 public:
  // `graph` and `kernels` must outlive the interpreter; the arena may be shared.
  Interpreter(const Graph& graph, Arena& arena, const KernelRegistry& kernels,
              InterpreterOptions options = {});
  // The interpreter keeps references: a temporary graph or registry would dangle.
  Interpreter(const Graph&& graph, Arena& arena, const KernelRegistry& kernels,
              InterpreterOptions options = {}) = delete;
  Interpreter(const Graph& graph, Arena& arena, const KernelRegistry&& kernels,
              InterpreterOptions options = {}) = delete;
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Before AllocateTensors: the application's own buffer for a tensor, which then stays
  // out of the arena (RFC 001, docs/tflm-facts.md). UsageError for a constant, a variable,
  // a tensor the offline plan places, a buffer smaller than the tensor, or a call after
  // AllocateTensors.
  void RegisterPreallocatedTensor(TensorRef tensor, std::span<std::byte> buffer);

  // Loads, plans and commits. ArenaTooSmall in TFLM's words plus the arena size that
  // would suffice. Runs once; Invoke() calls it when needed.
  void AllocateTensors();
  // Runs subgraph 0's ops in order.
  void Invoke();

  bool allocated() const;
  std::uint64_t invocations() const;
  // The bytes of a tensor (see TensorView::data); valid after AllocateTensors.
  std::span<std::byte> TensorData(TensorRef tensor) const;
  std::span<std::byte> input(std::size_t i) const;   // subgraph 0's i-th input
  std::span<std::byte> output(std::size_t i) const;  // subgraph 0's i-th output
  // Non-constant tensors whose contents come from outside the ops: subgraph 0's inputs
  // and tensors some op reads but none writes (an ethos-u op's scratch tensors count as
  // written: they are its working memory). The application fills them.
  std::vector<TensorRef> ExternalTensors() const;
  // Variable tensors (their state persists across invocations).
  std::vector<TensorRef> VariableTensors() const;

  // The planning problem (one record per planned buffer: tensors in graph order, then
  // scratch buffers), what each record stands for, and the committed plan.
  const Problem& problem() const;
  const std::vector<PlannedBuffer>& buffers() const;
  // With in place, plan() is the expanded plan (a shared output at its input's offset;
  // such pairs overlap by design) and shares() lists every share applied.
  const OffsetPlan& plan() const;
  const std::vector<BufferShare>& shares() const;
  const InterpreterStats& stats() const;
  const Graph& graph() const;
  Arena& arena() const;

 private:
  std::unique_ptr<runtime::InterpreterState> state_;  // everything, so kernels can see it
};

// What a model needs from a fresh arena, measured by loading it into one on the host.
struct ArenaRequirement {
  // One buffer: its bytes, a multiple of the alignment; enough for a buffer whose start
  // is aligned (add the alignment for one that is not). The true peak, temp included.
  Bytes total = 0;
  Bytes persistent = 0;      // two buffers: bytes of the persistent (tail) buffer
  Bytes non_persistent = 0;  // two buffers: bytes of the head + temp buffer
  Bytes head = 0;            // head after loading
  Bytes tail = 0;            // tail after loading
  Bytes temp_peak = 0;       // largest temporary section while loading
};

using Preallocations = std::vector<std::pair<TensorRef, std::span<std::byte>>>;

// InputError when no arena up to 2^44 bytes holds the model (or it fails otherwise).
ArenaRequirement MeasureArena(const Graph& graph, const KernelRegistry& kernels,
                              const InterpreterOptions& options = {},
                              const Preallocations& preallocated = {});
// MeasureArena(...).total.
Bytes RequiredArenaBytes(const Graph& graph, const KernelRegistry& kernels,
                         const InterpreterOptions& options = {},
                         const Preallocations& preallocated = {});

}  // namespace memplan
