#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/tflm_target.h"

namespace memplan {

TflmHeadPlan TflmHeadPlanFromRuntime(const Graph& graph, bool use_offline_plan) {
  InterpreterOptions options;
  options.strategy = "tflm_greedy";
  options.offline = use_offline_plan ? OfflinePlanUse::kWhenPresent : OfflinePlanUse::kIgnore;
  const KernelRegistry& kernels = VerificationKernels();
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

}  // namespace memplan
