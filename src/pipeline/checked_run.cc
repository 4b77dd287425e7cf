// A model run in a planned arena and checked against a naive layout
// (include/memplan/checked_run.h).
#include "memplan/checked_run.h"

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/runtime_check.h"
#include "memplan/schedule.h"
#include "memplan/tflm_target.h"

namespace memplan {

namespace {

// An aligned buffer of exactly `size` bytes on the heap.
struct AlignedBuffer {
  explicit AlignedBuffer(Bytes size)
      : memory(std::make_unique_for_overwrite<std::byte[]>(size + kDefaultArenaAlignment)) {
    const auto base = reinterpret_cast<std::uintptr_t>(memory.get());
    const std::size_t skip =
        (kDefaultArenaAlignment - base % kDefaultArenaAlignment) % kDefaultArenaAlignment;
    span = std::span<std::byte>(memory.get() + skip, size);
  }
  std::unique_ptr<std::byte[]> memory;  // owns the bytes
  std::span<std::byte> span;            // the aligned part handed out
};

// A tensor by name (any subgraph) or by index in subgraph 0.
TensorRef FindTensor(const Graph& graph, const std::string& spec) {
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
    for (std::size_t t = 0; t < graph.subgraphs[s].tensors.size(); ++t)
      if (graph.subgraphs[s].tensors[t].name == spec)
        return {static_cast<std::int32_t>(s), static_cast<std::int32_t>(t)};
  const std::string digits = spec.starts_with("#") ? spec.substr(1) : spec;
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos &&
      digits.size() < 10) {
    const auto t = static_cast<std::size_t>(std::stoul(digits));
    if (t < graph.subgraphs[0].tensors.size()) return {0, static_cast<std::int32_t>(t)};
  }
  throw UsageError(fmt::format("tensor to preallocate {}: no tensor of that name or index in {}",
                               spec, graph.source));
}

nlohmann::ordered_json AllocationsJson(const Arena& arena) {
  auto out = nlohmann::ordered_json::array();
  for (int k = 0; k < static_cast<int>(ArenaAllocation::kCount); ++k) {
    const auto kind = static_cast<ArenaAllocation>(k);
    const ArenaTally& t = arena.Tally(kind);
    if (t.used == 0 && t.requested == 0) continue;
    const ArenaAllocationLabel label = ArenaAllocationName(kind);
    out.push_back({{"kind", label.name},
                   {"used_bytes", t.used},
                   {"requested_bytes", t.requested},
                   {"count", t.count},
                   {"unit", label.unit}});
  }
  return out;
}

// "inplace=tflm", "reorder", "reorder+inplace=tflm", or empty (the model as it is).
std::string VariantName(const CheckedRunRequest& r) {
  const std::string inplace = r.inplace == "none" ? "" : "inplace=" + r.inplace;
  if (!r.reorder) return inplace;
  return inplace.empty() ? "reorder" : "reorder+" + inplace;
}

// The model with its ops in the order that keeps the fewest bytes alive (with the in-place
// rules), as plan's reorder variant finds it; the model itself when no order is better.
Graph Reordered(const Graph& graph, const InPlaceRuleSet& rules, const CheckedRunRequest& r,
                bool& changed) {
  if (!graph.fixed_offsets.empty() && r.offline != OfflinePlanUse::kIgnore)
    throw UsageError(
        fmt::format("{}: a new operator order: the model carries an offline plan made for its "
                    "own operator order; ignore the offline plan to plan every tensor online",
                    graph.source));
  OrderSearchOptions search;
  search.inplace = rules.empty() ? nullptr : &rules;
  search.size_alignment = kDefaultArenaAlignment;
  const OrderSearchResult orders = SearchOperatorOrder(graph, search);
  changed = orders.changed;
  return orders.changed ? ReorderOperators(graph, orders) : graph;
}

}  // namespace

struct CheckedRunState {
  Graph graph;
  std::vector<std::vector<std::byte>> user_buffers;
  std::unique_ptr<AlignedBuffer> main_buffer, persistent_buffer;
  std::unique_ptr<Arena> arena;
  std::unique_ptr<Interpreter> interpreter;
};

CheckedRun::CheckedRun() = default;
CheckedRun::~CheckedRun() = default;
CheckedRun::CheckedRun(CheckedRun&&) noexcept = default;
const Arena& CheckedRun::arena() const {
  return *state->arena;
}
const Interpreter& CheckedRun::interpreter() const {
  return *state->interpreter;
}

CheckedRun RunChecked(const Workload& workload, const CheckedRunRequest& r) {
  if (!workload.graph)
    throw UsageError(
        fmt::format("run needs a model (.tflite, .onnx or zoo:NAME), not {} input '{}'",
                    workload.kind, workload.label));
  const auto stage = [&](const char* name) {
    if (r.stage) r.stage(name);
  };
  CheckedRun run;
  run.state = std::make_unique<CheckedRunState>();
  CheckedRunState& s = *run.state;
  run.variant = VariantName(r);
  run.invokes = r.invokes;
  const InPlaceRuleSet& rules = InPlaceRuleSetNamed(r.inplace);
  if (r.reorder) stage("searching an operator order");
  s.graph = r.reorder ? Reordered(*workload.graph, rules, r, run.order_changed) : *workload.graph;
  // The verification kernels, requesting the scratch buffers the device's TFLM kernels do.
  const KernelRegistry& kernels =
      TflmScratchKernels(WithTflmKernels(TflmTargetNamed(r.target), TflmKernelsNamed(r.kernels)));

  InterpreterOptions options;
  options.strategy = r.strategy;
  options.offline = r.offline;
  if (!rules.empty()) options.inplace = rules;
  run.inplace = options.inplace.has_value();

  Preallocations preallocated;
  for (const std::string& spec : r.preallocate) {
    const TensorRef ref = FindTensor(s.graph, spec);
    const Tensor& tensor = s.graph.subgraphs[ref.subgraph].tensors[ref.tensor];
    s.user_buffers.emplace_back(tensor.bytes.value_or(0));
    preallocated.emplace_back(ref, s.user_buffers.back());
  }

  stage("measuring the arena");
  run.need = MeasureArena(s.graph, kernels, options, preallocated);
  if (r.persistent_size) {
    s.persistent_buffer = std::make_unique<AlignedBuffer>(*r.persistent_size);
    s.main_buffer = std::make_unique<AlignedBuffer>(r.arena_size.value_or(run.need.non_persistent));
    s.arena = std::make_unique<Arena>(s.persistent_buffer->span, s.main_buffer->span);
  } else {
    s.main_buffer = std::make_unique<AlignedBuffer>(r.arena_size.value_or(run.need.total));
    s.arena = std::make_unique<Arena>(s.main_buffer->span);
  }
  s.interpreter = std::make_unique<Interpreter>(s.graph, *s.arena, kernels, options);
  for (const auto& [ref, buffer] : preallocated)
    s.interpreter->RegisterPreallocatedTensor(ref, buffer);
  stage("invoking the planned arena");
  const auto planned = RunInvocations(*s.interpreter, r.invokes);
  stage("invoking the naive layout");
  run.difference = FirstDifference(s.graph, RunNaive(s.graph, kernels, r.invokes), planned);
  return run;
}

nlohmann::ordered_json CheckedRunJson(const std::string& model, const CheckedRun& run) {
  const Arena& arena = run.arena();
  const InterpreterStats& s = run.interpreter().stats();
  const bool match = run.difference.empty();
  nlohmann::ordered_json j;
  j["model"] = model;
  j["strategy"] = run.interpreter().plan().strategy;
  if (!run.variant.empty()) j["variant"] = run.variant;
  if (run.variant.starts_with("reorder")) j["order_changed"] = run.order_changed;
  j["head_bytes"] = s.head_bytes;
  if (run.inplace) {
    j["head_without_inplace_bytes"] = s.head_without_inplace;
    j["inplace_shares"] = s.inplace_shares;
  }
  j["tail_bytes"] = arena.PersistentUsedBytes();
  j["temp_peak_bytes"] = arena.PeakTempBytes();
  j["arena_bytes"] = arena.capacity();
  j["arena_used_bytes"] = arena.UsedBytes();
  j["peak_bytes"] = arena.PeakUsedBytes();
  j["required_arena_bytes"] = run.need.total;
  j["required_persistent_bytes"] = run.need.persistent;
  j["required_non_persistent_bytes"] = run.need.non_persistent;
  j["two_buffers"] = arena.two_buffers();
  j["planned_buffers"] = s.planned_buffers;
  j["scratch_buffers"] = s.scratch_buffers;
  j["offline_buffers"] = s.offline_buffers;
  j["tail_variables"] = s.tail_variables;
  j["variable_bytes"] = s.variable_bytes;
  j["preallocated_tensors"] = s.preallocated;
  j["preallocated_bytes"] = s.preallocated_bytes;
  if (s.preallocated > 0) j["head_without_preallocation"] = s.head_without_preallocation;
  j["allocations"] = AllocationsJson(arena);
  j["invokes"] = run.invokes;
  j["outputs_match_naive"] = match;
  if (!match) j["difference"] = run.difference;
  return j;
}

LoadOptions WithStepBindings(LoadOptions load, const ResizeStep& step) {
  for (const auto& [name, value] : step.dims) {
    std::erase_if(load.dims, [&](const auto& d) { return d.first == name; });
    load.dims.emplace_back(name, value);
  }
  return load;
}

void CheckResizeStepBinds(const Workload& workload, const ResizeStep& step) {
  for (const std::string& note : workload.notes)
    for (const auto& [name, value] : step.dims)
      if (note.starts_with("warning: ") && note.find(name) != std::string::npos)
        throw UsageError(fmt::format("dimension {}: {} has no dimension of that name ({})", name,
                                     workload.label, note));
}

std::vector<ResizeStepReport> RunResizeSteps(const std::string& model, const LoadOptions& load,
                                             const std::vector<ResizeStep>& steps,
                                             const std::string& strategy, std::size_t invokes,
                                             const std::function<void(const std::string&)>& stage) {
  // Every step's model is read before the first plan. The ONNX reader runs libonnx in a child
  // process (a fork); after a fork the first write to each page of the parent's is a
  // copy-on-write fault (about a microsecond here), which would fall on the planners' first
  // writes of the next step - a cost of this command, never of an engine, and one that grew
  // with the pages a planner writes rather than its work (docs/cpu-planner.md, round eight).
  std::vector<Workload> workloads;
  workloads.reserve(steps.size());
  for (const ResizeStep& step : steps) {
    if (stage) stage("reading " + step.name);
    workloads.push_back(LoadWorkload(model, WithStepBindings(load, step)));
    const Workload& workload = workloads.back();
    if (!workload.graph)
      throw UsageError(
          fmt::format("a resize sequence needs a model (.onnx or .tflite), not {} input '{}'",
                      workload.kind, model));
    CheckResizeStepBinds(workload, step);
  }
  CpuPlannerOptions planner;
  planner.strategy = strategy;
  ResizeSession session(planner);
  const KernelRegistry& kernels = VerificationKernels();
  std::vector<ResizeStepReport> reports;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    if (stage) stage(steps[k].name);
    reports.push_back(session.Step(*workloads[k].graph, kernels, invokes));
  }
  return reports;
}

nlohmann::ordered_json ResizeStepsJson(const std::string& model,
                                       const std::vector<ResizeStep>& steps,
                                       const std::string& strategy,
                                       const std::vector<ResizeStepReport>& reports) {
  nlohmann::ordered_json j;
  j["model"] = model;
  j["resize"] = nlohmann::ordered_json::array();
  for (const auto& [name, value] : steps[0].dims) j["resize"].push_back(name);
  j["strategy"] = strategy;
  j["steps"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < reports.size(); ++k) {
    const ResizeStepReport& r = reports[k];
    nlohmann::ordered_json s;
    nlohmann::ordered_json dims = nlohmann::ordered_json::object();
    for (const auto& [name, value] : steps[k].dims) dims[name] = value;
    s["dims"] = dims;
    nlohmann::ordered_json shapes = nlohmann::ordered_json::object();
    for (const auto& [name, shape] : r.input_shapes) shapes[name] = shape;
    s["shapes"] = shapes;
    s["arena_bytes"] = r.arena_bytes;
    s["tflite_cpu_arena_bytes"] = r.tflite_cpu_arena_bytes;
    s["lower_bound_bytes"] = r.lower_bound_bytes;
    s["replanned_tensors"] = r.replanned_tensors;
    s["arena_tensors"] = r.arena_tensors;
    s["first_replanned_node"] = r.first_replanned_node;
    s["cache_hit"] = r.cache_hit;
    s["scaled"] = r.scaled;
    s["buffer_bytes_copied"] = r.buffer_bytes_copied;
    s["tflite_cpu_buffer_bytes_copied"] = r.tflite_cpu_buffer_bytes_copied;
    s["replan_us"] = r.replan_us;
    s["tflite_cpu_us"] = r.tflite_cpu_us;
    s["full_plan_us"] = r.full_plan_us;
    s["outputs_match_naive"] = r.outputs_match_naive;
    if (!r.outputs_match_naive) s["difference"] = r.difference;
    j["steps"].push_back(s);
  }
  return j;
}

}  // namespace memplan
