// What an inference engine does with memplan: load a model, plan its tensors' memory, verify
// the plan, and let the CPU arena planner give the tensors their memory as the engine runs.
//   engine MODEL   (a .tflite or .onnx file, or zoo:NAME)
#include <memplan/bounds.h>
#include <memplan/cpu_arena_planner.h>
#include <memplan/error.h>
#include <memplan/offsets.h>
#include <memplan/plan.h>
#include <memplan/workload.h>

#include <cstdio>
#include <exception>

namespace {

// Subgraph 0 as the CPU planner sees it: constants are read-only model data, variables stay
// for the whole run, everything else lives in the arena.
memplan::CpuGraph CpuGraphOf(const memplan::Subgraph& subgraph) {
  memplan::CpuGraph graph;
  for (const memplan::Tensor& tensor : subgraph.tensors) {
    memplan::CpuTensor cpu;
    cpu.bytes = tensor.bytes.value_or(0);
    cpu.type = tensor.is_constant   ? memplan::CpuAllocationType::kMmapRo
               : tensor.is_variable ? memplan::CpuAllocationType::kArenaRwPersistent
                                    : memplan::CpuAllocationType::kArenaRw;
    graph.tensors.push_back(cpu);
  }
  for (const memplan::Operator& op : subgraph.ops)
    graph.nodes.push_back({op.inputs, op.outputs, op.intermediates, 0});
  graph.inputs = subgraph.inputs;
  graph.outputs = subgraph.outputs;
  for (std::size_t t = 0; t < subgraph.tensors.size(); ++t)
    if (subgraph.tensors[t].is_variable) graph.variables.push_back(static_cast<std::int32_t>(t));
  return graph;
}

int Run(const char* spec) {
  const memplan::Workload workload = memplan::LoadWorkload(spec);
  const memplan::OffsetPlan plan = memplan::PlanOffsets(workload.problem, "best");
  memplan::VerifyOrThrow(workload.problem, plan);
  std::printf("%s: %zu tensors, arena %llu bytes by %s (lower bound %llu)\n", spec,
              workload.problem.size(), static_cast<unsigned long long>(plan.arena_bytes),
              plan.strategy.c_str(),
              static_cast<unsigned long long>(memplan::OffsetsLowerBound(workload.problem)));
  if (!workload.graph || workload.graph->subgraphs.front().ops.empty()) return 0;

  const memplan::Subgraph& subgraph = workload.graph->subgraphs.front();
  memplan::CpuArenaPlanner planner(CpuGraphOf(subgraph));
  planner.PlanAllocations();
  planner.ExecuteAllocations(0, static_cast<std::int32_t>(subgraph.ops.size()) - 1);
  // Every arena tensor the run writes has memory, inside the arena, at a verified layout.
  const auto [problem, offsets] = planner.MainArenaLayout();
  memplan::VerifyOrThrow(problem, memplan::MakeOffsetPlan(problem, "cpu planner", offsets));
  for (std::size_t t = 0; t < subgraph.tensors.size(); ++t) {
    const memplan::Tensor& tensor = subgraph.tensors[t];
    if (tensor.is_constant || tensor.bytes.value_or(0) == 0) continue;
    if (planner.TensorData(static_cast<std::int32_t>(t)) == nullptr) {
      std::fprintf(stderr, "engine: tensor '%s' has no memory\n", tensor.name.c_str());
      return 1;
    }
  }
  std::printf("%s: CPU arena planner: %llu bytes planned for %zu ops (arena buffer %llu)\n", spec,
              static_cast<unsigned long long>(planner.PlannedArenaBytes()), subgraph.ops.size(),
              static_cast<unsigned long long>(planner.ArenaBufferBytes()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: engine MODEL (.tflite, .onnx or zoo:NAME)\n");
    return 2;
  }
  try {
    return Run(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "engine: %s\n", e.what());
    return 1;
  }
}
