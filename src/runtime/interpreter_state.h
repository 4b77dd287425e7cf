#pragma once
// The runtime's internals: the structs it places in the arena and the per-model state.
// Struct sizes are what the recording reports (64-bit host):
//   EvalTensor 24 B per tensor (as TFLM's TfLiteEvalTensor), NodeAndKernel 48 B per op,
//   ScratchHandle 16 B and ScratchRequest 16 B per scratch buffer, SubgraphTable 24 B
//   per subgraph, AllocationInfo 32 B per entry (temp, during planning; as TFLM's).
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "memplan/runtime.h"
#include "src/runtime/scopes.h"

namespace memplan::runtime {

// One tensor at run time (TFLM's TfLiteEvalTensor). Lives in the tail.
struct EvalTensor {
  std::byte* data = nullptr;       // where its bytes are; nullptr until placed, constants
  const Tensor* tensor = nullptr;  // the graph's description (name, type, shape)
  Bytes bytes = 0;                 // its byte size (0 when zero or unknown)
};

// One op at run time (TFLM's NodeAndRegistration). Lives in the tail.
struct NodeAndKernel {
  const Operator* op = nullptr;    // the graph's description
  const Kernel* kernel = nullptr;  // what runs it
  void* op_data = nullptr;         // what the kernel's init returned
  std::int32_t subgraph = 0;       // its subgraph
  std::int32_t index = 0;          // its position in that subgraph
  std::int32_t node = 0;           // its position among all ops (subgraph 0 first)
  std::int32_t first_scratch = 0;  // its first scratch handle
  std::int32_t scratch_count = 0;  // how many scratch buffers it asked for
};

// Where a scratch buffer is (TFLM's ScratchBufferHandle). Lives in the tail.
struct ScratchHandle {
  std::byte* data = nullptr;  // set when the plan is committed
  Bytes bytes = 0;            // requested size
};

// A kernel's pending scratch request (TFLM's ScratchBufferRequest). Lives in the head
// while ops are prepared, as in TFLM.
struct ScratchRequest {
  Bytes bytes = 0;          // requested size
  std::int32_t node = 0;    // the op that asked
  std::int32_t unused = 0;  // padding, kept explicit
};

// Per subgraph: where its tensors and ops are. Lives in the tail.
struct SubgraphTable {
  EvalTensor* tensors = nullptr;   // its first tensor in the global array
  NodeAndKernel* nodes = nullptr;  // its first op in the global array
  std::int32_t tensor_count = 0;   // number of tensors
  std::int32_t op_count = 0;       // number of ops
};

// One buffer the planner may place (TFLM's AllocationInfo). Lives in temp while planning.
struct AllocationInfo {
  Bytes bytes = 0;                // size before rounding
  std::byte** target = nullptr;   // the pointer to set when committed
  std::int32_t first = -1;        // first scope, -1 = never set
  std::int32_t last = -1;         // last scope, -1 = never set
  std::int32_t offline = -1;      // offline offset, -1 = plan online (int32, as stored)
  bool needs_allocating = false;  // goes to the planner
};

static_assert(sizeof(void*) != 8 || (sizeof(EvalTensor) == 24 && sizeof(AllocationInfo) == 32),
              "the recording documents these sizes (64-bit hosts)");

// TFLM's GreedyMemoryPlanner working memory per buffer on 64-bit hosts (docs/tflm-facts.md, the
// arena).
inline constexpr Bytes kPlannerBytesPerBuffer = 40;
// TFLM's kMaxScratchBuffersPerOp.
inline constexpr std::size_t kMaxScratchPerOp = 12;

// The offline offsets in force: the options' when given, else the model's metadata.
inline const std::vector<std::int64_t>& EffectiveOfflineOffsets(const Graph& graph,
                                                                const InterpreterOptions& o) {
  return o.offline_offsets.empty() ? graph.fixed_offsets : o.offline_offsets;
}

struct InterpreterState {
  InterpreterState(const Graph& g, Arena& a, const KernelRegistry& k, InterpreterOptions o)
      : graph(g), arena(a), kernels(k), options(std::move(o)) {}

  const Graph& graph;             // the model (outlives us)
  Arena& arena;                   // possibly shared with other models
  const KernelRegistry& kernels;  // op type -> kernel
  InterpreterOptions options;     // strategy, offline plan
  // Application buffers registered before allocation.
  std::vector<std::pair<TensorRef, std::span<std::byte>>> preallocated;
  Scopes scopes;                    // lifetimes of tensors and ops
  bool allocated = false;           // AllocateTensors succeeded
  bool allocation_started = false;  // AllocateTensors ran (it runs once)
  std::uint64_t invocations = 0;    // Invoke calls that finished

  SubgraphTable* subgraphs = nullptr;      // tail: one per subgraph
  EvalTensor* tensors = nullptr;           // tail: one per tensor of every subgraph
  NodeAndKernel* nodes = nullptr;          // tail: one per op of every subgraph
  ScratchHandle* scratch = nullptr;        // tail: one per scratch buffer
  std::size_t scratch_count = 0;           // scratch buffers requested
  TensorView* io_views = nullptr;          // tail: subgraph 0's inputs, then its outputs
  ScratchRequest* requests = nullptr;      // head, while preparing
  TensorView* prepare_views = nullptr;     // temp: the preparing op's inputs, then outputs
  std::vector<std::int32_t> scratch_node;  // host: the op (node index) of each scratch buffer

  Problem problem;                     // the planned buffers
  std::vector<PlannedBuffer> buffers;  // what each record stands for
  OffsetPlan plan;                     // the committed plan (expanded, with in place)
  std::vector<BufferShare> shares;     // in place: the shares the plan applies
  InterpreterStats stats;              // figures for reports

  // AllocateTensors without the diagnosis of a too small arena: the steps below.
  void Allocate();
  // Steps of AllocateTensors (model_allocation.cc, plan_commit.cc).
  void StartModelAllocation();
  void PrepareOps();
  void CommitPlan();
  void FinishModelAllocation();

  // Invoke.
  void RunSubgraph(std::int32_t subgraph);

  EvalTensor& Eval(TensorRef ref) const { return subgraphs[ref.subgraph].tensors[ref.tensor]; }
  TensorView View(std::int32_t subgraph, std::int32_t tensor) const;
  std::size_t TensorCount() const { return scopes.first.size(); }
  // The tensor behind global tensor index `g`.
  TensorRef RefOf(std::size_t g) const;
};

}  // namespace memplan::runtime
