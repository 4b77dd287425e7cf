// The head TFLM's own planner gives a model, made by the runtime (runtime.h) with kernels
// that request the scratch buffers the target's kernel set requests.
#include "memplan/kernel.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/tflm_target.h"
#include "src/target/tflm_kernels.h"

namespace memplan {

namespace {

// Requests the scratch buffers the op's kernel asks for on a target with pointers of
// kPointer bytes, the extensions E and the kernel set K (a template: a kernel's prepare is a
// plain function).
template <Bytes kPointer, ArmExtensions E, TflmKernels K>
void PrepareFromDescription(OpContext& context) {
  TargetAbi abi = TflmTargetNamed(kPointer == 8 ? "host64" : "cortex-m4");
  abi.extensions = E;
  abi.kernels = K;
  const Subgraph& sg = context.graph().subgraphs[static_cast<std::size_t>(context.subgraph())];
  for (Bytes bytes : target::DescribeKernel(abi, sg, context.op()).scratch)
    context.RequestScratch(static_cast<std::size_t>(bytes));
}

// The ops whose scratch requests the descriptions make: for every set those the
// verification kernels do not make; for CMSIS-NN also those whose kernel asks others.
constexpr const char* kDescribedScratchOps[] = {"ADD_N", "MIRROR_PAD", "REDUCE_ALL",
                                                "TRANSPOSE_CONV", "ethos-u"};
constexpr const char* kCmsisNnScratchOps[] = {"AVERAGE_POOL_2D",
                                              "BATCH_MATMUL",
                                              "CONV_2D",
                                              "DEPTHWISE_CONV_2D",
                                              "FULLY_CONNECTED",
                                              "SVDF",
                                              "UNIDIRECTIONAL_SEQUENCE_LSTM"};

template <Bytes kPointer, ArmExtensions E, TflmKernels K>
KernelRegistry MakeScratchKernels() {
  const KernelRegistry& verification = VerificationKernels();
  KernelRegistry r = verification;
  auto describe = [&](const char* type) {
    Kernel k = *verification.Find(type);  // the fallback where it has no kernel of its own
    k.prepare = &PrepareFromDescription<kPointer, E, K>;
    r.Add(type, k);
  };
  for (const char* type : kDescribedScratchOps) describe(type);
  if (K == TflmKernels::kCmsisNn)
    for (const char* type : kCmsisNnScratchOps) describe(type);
  return r;
}

}  // namespace

const KernelRegistry& TflmScratchKernels(const TargetAbi& target) {
  using enum ArmExtensions;
  constexpr TflmKernels kRef = TflmKernels::kReference, kCmsis = TflmKernels::kCmsisNn;
  static const KernelRegistry reference64 = MakeScratchKernels<8, kNone, kRef>();
  static const KernelRegistry reference32 = MakeScratchKernels<4, kNone, kRef>();
  static const KernelRegistry none = MakeScratchKernels<4, kNone, kCmsis>();
  static const KernelRegistry dsp = MakeScratchKernels<4, kDsp, kCmsis>();
  static const KernelRegistry mve = MakeScratchKernels<4, kMve, kCmsis>();
  if (target.kernels != kCmsis) return target.pointer == 8 ? reference64 : reference32;
  switch (target.extensions) {
    case kDsp:
      return dsp;
    case kMve:
      return mve;
    case kNone:
      break;
  }
  return none;
}

TflmHeadPlan TflmHeadPlanFromRuntime(const Graph& graph, const TargetAbi& target,
                                     bool use_offline_plan) {
  InterpreterOptions options;
  options.strategy = "tflm_greedy";
  options.offline = use_offline_plan ? OfflinePlanUse::kWhenPresent : OfflinePlanUse::kIgnore;
  const KernelRegistry& kernels = TflmScratchKernels(target);
  const ArenaRequirement need = MeasureArena(graph, kernels, options);
  std::vector<std::byte> memory(need.total + kDefaultArenaAlignment);
  Arena arena(memory);
  Interpreter interpreter(graph, arena, kernels, options);
  interpreter.AllocateTensors();
  TflmHeadPlan plan;
  plan.head = interpreter.stats().head_bytes;
  plan.planned_buffers = interpreter.stats().planned_buffers;
  // Ops of every subgraph in order; the runtime numbers a scratch buffer's op within
  // subgraph 0's numbering, which is the global one for single-subgraph models.
  plan.scratch.assign(graph.OpCount(), 0);
  for (const PlannedBuffer& b : interpreter.buffers())
    if (b.scratch_op >= 0 && static_cast<std::size_t>(b.scratch_op) < plan.scratch.size())
      ++plan.scratch[static_cast<std::size_t>(b.scratch_op)];
  return plan;
}

TflmHeadPlan TflmHeadPlanFromRuntime(const Graph& graph, bool use_offline_plan) {
  return TflmHeadPlanFromRuntime(graph, TflmTargetNamed("host64"), use_offline_plan);
}

}  // namespace memplan
