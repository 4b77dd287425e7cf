// The head TFLM's own planner gives a model, made by the runtime (runtime.h) with kernels
// that request the scratch buffers the target's kernel set requests.
#include "memplan/kernel.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/tflm_target.h"
#include "src/target/tflm_kernels.h"

namespace memplan {

namespace {

// Requests the scratch buffers the CMSIS-NN kernel of the op asks for on a core with the
// extensions E (a template: a kernel's prepare is a plain function).
template <ArmExtensions E>
void PrepareCmsisNn(OpContext& context) {
  TargetAbi abi = WithTflmKernels(TflmTargetNamed("cortex-m4"), TflmKernels::kCmsisNn);
  abi.extensions = E;
  const Subgraph& sg = context.graph().subgraphs[static_cast<std::size_t>(context.subgraph())];
  for (Bytes bytes : target::DescribeKernel(abi, sg, context.op()).scratch)
    context.RequestScratch(static_cast<std::size_t>(bytes));
}

// The ops whose CMSIS-NN kernel requests other scratch buffers than the reference one.
constexpr const char* kCmsisNnScratchOps[] = {
    "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D",
    "FULLY_CONNECTED", "SVDF",    "UNIDIRECTIONAL_SEQUENCE_LSTM"};

template <ArmExtensions E>
KernelRegistry MakeCmsisNnKernels() {
  const KernelRegistry& reference = VerificationKernels();
  KernelRegistry r = reference;
  for (const char* type : kCmsisNnScratchOps) {
    Kernel k = *reference.Find(type);  // the fallback where the reference has no own kernel
    k.name = "verify/cmsis_nn";
    k.prepare = &PrepareCmsisNn<E>;
    r.Add(type, k);
  }
  return r;
}

}  // namespace

const KernelRegistry& TflmScratchKernels(const TargetAbi& target) {
  if (target.kernels != TflmKernels::kCmsisNn) return VerificationKernels();
  static const KernelRegistry none = MakeCmsisNnKernels<ArmExtensions::kNone>();
  static const KernelRegistry dsp = MakeCmsisNnKernels<ArmExtensions::kDsp>();
  static const KernelRegistry mve = MakeCmsisNnKernels<ArmExtensions::kMve>();
  switch (target.extensions) {
    case ArmExtensions::kDsp:
      return dsp;
    case ArmExtensions::kMve:
      return mve;
    case ArmExtensions::kNone:
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
