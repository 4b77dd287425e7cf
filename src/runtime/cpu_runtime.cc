// A model through a sequence of shapes with the CPU arena planner (docs/cpu-planner.md,
// "In memplan's runtime").
#include "memplan/cpu_runtime.h"

#include <fmt/format.h>

#include <chrono>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/plan.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"

namespace memplan {

CpuGraph CpuGraphOf(const Graph& graph) {
  CpuGraph out;
  if (graph.subgraphs.empty()) return out;
  const Subgraph& sg = graph.subgraphs[0];
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    const Tensor& tensor = sg.tensors[t];
    CpuTensor c{tensor.bytes.value_or(0), CpuAllocationType::kArenaRw};
    if (tensor.is_constant)
      c.type = CpuAllocationType::kMmapRo;
    else if (tensor.is_variable)
      c.type = CpuAllocationType::kArenaRwPersistent;
    else if (!tensor.bytes)
      c.type = CpuAllocationType::kDynamic;
    if (tensor.is_variable) out.variables.push_back(static_cast<std::int32_t>(t));
    out.tensors.push_back(c);
  }
  for (const Operator& op : sg.ops) out.nodes.push_back({op.inputs, op.outputs, {}, 0});
  out.inputs = sg.inputs;
  out.outputs = sg.outputs;
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

bool SameStructure(const CpuGraph& a, const CpuGraph& b) {
  if (a.tensors.size() != b.tensors.size() || a.nodes.size() != b.nodes.size() ||
      a.inputs != b.inputs || a.outputs != b.outputs || a.variables != b.variables)
    return false;
  for (std::size_t i = 0; i < a.nodes.size(); ++i)
    if (a.nodes[i].inputs != b.nodes[i].inputs || a.nodes[i].outputs != b.nodes[i].outputs ||
        a.nodes[i].temporaries != b.nodes[i].temporaries)
      return false;
  return true;
}

// Plans the whole graph as an engine does after an input resize: forget the placements,
// then place every node.
double PlanAll(CpuArenaPlanner& planner) {
  const auto start = Clock::now();
  planner.ResetAllocations();
  planner.ExecuteAllocations(0, static_cast<std::int32_t>(planner.graph().nodes.size()) - 1);
  return MicrosSince(start);
}

// Both modes plan the first step's graph once, untimed, on planners of their own, before a
// session's first timed step: the process's first use of each mode's code, and of the C
// library's allocator for buffers of the model's size, would otherwise fall on whichever goes
// first. On ResNet-8's first step that order alone made memplan's time 1.4x or 1.8x
// TensorFlow Lite's (a two-node chain warmed the code both share); with every step read
// first, the first main-arena buffer of the process took a heap extension that the planner
// timed second then found made.
void WarmUpBothModes(const CpuGraph& graph, const CpuPlannerOptions& options) {
  for (const CpuPlannerMode mode : {CpuPlannerMode::kMemplan, CpuPlannerMode::kTfliteCpu}) {
    CpuPlannerOptions o = options;
    o.mode = mode;
    o.on_buffer_event = nullptr;
    CpuArenaPlanner planner(graph, o);
    planner.PlanAllocations();
    PlanAll(planner);
  }
}

}  // namespace

struct ResizeSession::State {
  CpuPlannerOptions options;
  std::unique_ptr<CpuArenaPlanner> memplan;
  std::unique_ptr<CpuArenaPlanner> tflite;
  bool planned = false;   // this step's plan is made (the interpreter may ask again)
  std::size_t steps = 0;  // steps planned
  ResizeStepReport report;

  // The buffers' graph: the model's tensors, plus one temporary per scratch buffer.
  static CpuGraph WithScratch(const Graph& graph, const Problem& problem,
                              const std::vector<PlannedBuffer>& buffers,
                              std::vector<std::int32_t>& tensor_of) {
    CpuGraph g = CpuGraphOf(graph);
    tensor_of.clear();
    for (std::size_t r = 0; r < buffers.size(); ++r) {
      const PlannedBuffer& b = buffers[r];
      if (b.scratch_op < 0) {
        if (b.tensor.subgraph != 0)
          throw InputError(fmt::format("{}: the CPU planner runs subgraph 0 only", graph.source));
        tensor_of.push_back(b.tensor.tensor);
        continue;
      }
      if (static_cast<std::size_t>(b.scratch_op) >= g.nodes.size())
        throw InputError(fmt::format("{}: scratch buffer of op {} outside subgraph 0", graph.source,
                                     b.scratch_op));
      g.tensors.push_back({problem.records[r].size, CpuAllocationType::kArenaRw});
      const auto t = static_cast<std::int32_t>(g.tensors.size() - 1);
      g.nodes[b.scratch_op].temporaries.push_back(t);
      tensor_of.push_back(t);
    }
    return g;
  }

  void Plan(const CpuGraph& g) {
    if (!memplan || !SameStructure(memplan->graph(), g)) {
      if (!memplan) WarmUpBothModes(g, options);
      CpuPlannerOptions m = options, t = options;
      m.mode = CpuPlannerMode::kMemplan;
      t.mode = CpuPlannerMode::kTfliteCpu;
      memplan = std::make_unique<CpuArenaPlanner>(g, m);
      tflite = std::make_unique<CpuArenaPlanner>(g, t);
      memplan->PlanAllocations();
      tflite->PlanAllocations();
    } else {
      for (std::size_t t = 0; t < g.tensors.size(); ++t)
        for (CpuArenaPlanner* p : {memplan.get(), tflite.get()}) {
          p->SetAllocationType(static_cast<std::int32_t>(t), g.tensors[t].type);
          p->ResizeTensor(static_cast<std::int32_t>(t), g.tensors[t].bytes);
        }
    }
    // The planner timed second finds the code both share (and the machine) warmer: the two
    // take turns going first, so neither is favoured over a run.
    if (++steps % 2 == 1) {
      report.replan_us = PlanAll(*memplan);
      report.tflite_cpu_us = PlanAll(*tflite);
    } else {
      report.tflite_cpu_us = PlanAll(*tflite);
      report.replan_us = PlanAll(*memplan);
    }
    const CpuPlanStats& s = memplan->last_stats();
    report.arena_bytes = s.planned_bytes;
    report.replanned_tensors = s.placed;
    report.first_replanned_node = s.first_replanned_node;
    report.cache_hit = s.cache_hit;
    report.scaled = s.scaled;
    report.buffer_bytes_copied = s.buffer_bytes_copied;
    report.tflite_cpu_buffer_bytes_copied = tflite->last_stats().buffer_bytes_copied;
    report.tflite_cpu_arena_bytes = tflite->PlannedArenaBytes();
    CpuPlannerOptions fresh = options;
    fresh.mode = CpuPlannerMode::kMemplan;
    fresh.cache_capacity = 0;
    const auto start = Clock::now();
    CpuArenaPlanner scratch(g, fresh);
    scratch.PlanAllocations();
    PlanAll(scratch);
    report.full_plan_us = MicrosSince(start);
    const auto layout = memplan->MainArenaLayout();
    report.arena_tensors = layout.first.size();
    report.lower_bound_bytes = OffsetsLowerBound(layout.first);
  }

  OffsetPlan Offsets(const Graph& graph, const Problem& problem,
                     const std::vector<PlannedBuffer>& buffers) {
    std::vector<std::int32_t> tensor_of;
    const CpuGraph g = WithScratch(graph, problem, buffers, tensor_of);
    if (!planned) {
      Plan(g);
      planned = true;
    }
    std::vector<Bytes> offsets;
    for (std::size_t r = 0; r < buffers.size(); ++r) {
      const std::byte* data = memplan->TensorData(tensor_of[r]);
      offsets.push_back(data ? static_cast<Bytes>(data - memplan->ArenaBase()) : 0);
    }
    return MakeOffsetPlan(problem, "cpu_planner/memplan", std::move(offsets));
  }
};

ResizeSession::ResizeSession(CpuPlannerOptions options) : state_(std::make_unique<State>()) {
  state_->options = std::move(options);
}
ResizeSession::~ResizeSession() = default;

ResizeStepReport ResizeSession::Step(const Graph& graph, const KernelRegistry& kernels,
                                     std::size_t invokes) {
  if (graph.subgraphs.size() != 1)
    throw InputError(fmt::format("{}: the CPU planner runs models with one subgraph, not {}",
                                 graph.source, graph.subgraphs.size()));
  State& s = *state_;
  s.planned = false;
  s.report = {};
  InterpreterOptions options;
  options.offline = OfflinePlanUse::kIgnore;
  options.planner = [&s, &graph](const Problem& problem,
                                 const std::vector<PlannedBuffer>& buffers) {
    return s.Offsets(graph, problem, buffers);
  };
  const ArenaRequirement need = MeasureArena(graph, kernels, options);
  auto memory = std::make_unique_for_overwrite<std::byte[]>(need.total + kDefaultArenaAlignment);
  const auto base = reinterpret_cast<std::uintptr_t>(memory.get());
  const std::size_t skip =
      (kDefaultArenaAlignment - base % kDefaultArenaAlignment) % kDefaultArenaAlignment;
  Arena arena(std::span<std::byte>(memory.get() + skip, need.total));
  Interpreter interpreter(graph, arena, kernels, options);
  const auto planned = RunInvocations(interpreter, invokes);
  s.report.difference = FirstDifference(graph, RunNaive(graph, kernels, invokes), planned);
  s.report.outputs_match_naive = s.report.difference.empty();
  const Subgraph& sg = graph.subgraphs[0];
  for (const std::int32_t t : sg.inputs)
    s.report.input_shapes.emplace_back(sg.tensors[t].name, sg.tensors[t].shape);
  return s.report;
}

}  // namespace memplan
