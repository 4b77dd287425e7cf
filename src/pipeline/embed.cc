// What `memplan embed` does, as a library call: a .tflite model planned as TFLM runs it
// and its plan written into the model as TFLM's offline plan, checked as TFLM reads it.
#include "memplan/embed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <limits>

#include "memplan/error.h"
#include "memplan/kernel.h"
#include "memplan/offline_check.h"
#include "memplan/pipeline.h"
#include "memplan/runtime.h"
#include "memplan/tflite.h"
#include "memplan/tflm_target.h"

namespace memplan {

namespace {

// The head TFLM makes for a model, as the runtime reproduces it with the kernels' scratch
// requests: with the model's offline plan (in-place shares honoured by `rules`), or with
// its own greedy planner. nullopt when the runtime cannot load the model.
std::optional<Bytes> TflmHead(const Graph& graph, bool offline, const InPlaceRuleSet* rules,
                              const KernelRegistry& kernels) {
  try {
    InterpreterOptions options;
    options.offline = offline ? OfflinePlanUse::kWhenPresent : OfflinePlanUse::kIgnore;
    if (rules && !rules->empty()) options.inplace = *rules;
    return MeasureArena(graph, kernels, options).head;
  } catch (const InputError&) {
    return std::nullopt;  // the runtime cannot load it (e.g. an op it cannot size)
  } catch (const UsageError&) {
    return std::nullopt;  // or refuses the options (in-place shares with this plan)
  }
}

// A plan of a model's tensors and scratch buffers together (TFLM's own greedy planner, or
// another strategy), as offline offsets of the tensors: TFLM then fits its scratch
// buffers around them again, where the plan had room for them.
std::vector<std::int32_t> TflmOwnOffsets(const Graph& graph, const std::string& strategy,
                                         const KernelRegistry& kernels) {
  InterpreterOptions options;
  options.offline = OfflinePlanUse::kIgnore;
  options.strategy = strategy;
  const ArenaRequirement need = MeasureArena(graph, kernels, options);
  std::vector<std::byte> memory(need.total + kDefaultArenaAlignment);
  Arena arena(memory);
  Interpreter interpreter(graph, arena, kernels, options);
  interpreter.AllocateTensors();
  std::vector<std::size_t> first_of(graph.subgraphs.size(), 0);
  for (std::size_t s = 1; s < graph.subgraphs.size(); ++s)
    first_of[s] = first_of[s - 1] + graph.subgraphs[s - 1].tensors.size();
  std::vector<std::int32_t> out(graph.TensorCount(), -1);
  for (std::size_t i = 0; i < interpreter.buffers().size(); ++i) {
    const PlannedBuffer& b = interpreter.buffers()[i];
    if (b.scratch_op >= 0) continue;
    out[first_of[static_cast<std::size_t>(b.tensor.subgraph)] +
        static_cast<std::size_t>(b.tensor.tensor)] =
        static_cast<std::int32_t>(interpreter.plan().offsets[i]);
  }
  return out;
}

// One offset per tensor of all subgraphs (TFLM's order), -1 where nothing is planned.
std::vector<std::int32_t> OfflineOffsets(const Workload& w, const OffsetPlan& plan) {
  const Graph& g = *w.graph;
  std::vector<std::size_t> first_of(g.subgraphs.size(), 0);
  for (std::size_t s = 1; s < g.subgraphs.size(); ++s)
    first_of[s] = first_of[s - 1] + g.subgraphs[s - 1].tensors.size();
  std::vector<std::int32_t> out(g.TensorCount(), -1);
  for (std::size_t i = 0; i < w.origins.size(); ++i) {
    const Bytes offset = plan.offsets[i];
    if (offset > static_cast<Bytes>(std::numeric_limits<std::int32_t>::max()))
      throw InputError(
          fmt::format("{}: {} sits at offset {}; TFLM's offline plan holds 32-bit offsets", w.label,
                      w.problem.Describe(i), offset));
    const TensorRef& t = w.origins[i];
    out[first_of[static_cast<std::size_t>(t.subgraph)] + static_cast<std::size_t>(t.tensor)] =
        static_cast<std::int32_t>(offset);
  }
  return out;
}

// TFLM's AllocateVariables reads a variable's offline offset at its index inside its own
// subgraph, that is, in subgraph 0's part of the list (docs/tflm-facts.md, the offline plan). A
// variable of a later subgraph whose index holds an offset there would be put in the head at that
// offset instead of the tail: name them, so the user knows before deploying.
std::vector<std::string> MisreadVariables(const Graph& g,
                                          const std::vector<std::int32_t>& offsets) {
  std::vector<std::string> out;
  for (std::size_t s = 1; s < g.subgraphs.size(); ++s)
    for (std::size_t t = 0; t < g.subgraphs[s].tensors.size(); ++t)
      if (g.subgraphs[s].tensors[t].is_variable && t < g.subgraphs[0].tensors.size() &&
          offsets[t] != -1)
        out.push_back(
            fmt::format("'{}' (subgraph {}, tensor {})", g.subgraphs[s].tensors[t].name, s, t));
  return out;
}

// The head TFLM makes with the plan in `r.bytes` (a plan of the tensors only; TFLM fits
// the kernels' scratch buffers around it): when it is above the head of TFLM's own planner,
// a plan of tensors and scratch buffers together is written instead (the smallest head).
void KeepTflmHeadAtMost(const std::string& bytes, const EmbedRequest& o, const Graph& graph,
                        const InPlaceRuleSet& chosen_rules, const KernelRegistry& kernels,
                        EmbeddedPlan& r) {
  if (const auto own = TflmHead(graph, false, nullptr, kernels)) {
    r.tflm_own_head = *own;
    const Workload written_back = TfliteWorkload(ParseTflite(r.bytes, o.out), o.out, o.load);
    const auto with_plan = TflmHead(*written_back.graph, true, &chosen_rules, kernels);
    r.tflm_head = with_plan.value_or(0);
    if (with_plan && *with_plan > *own) {
      // Plans of tensors and scratch buffers together; the smallest head TFLM then makes
      // (TFLM's own plan first: it never makes the head larger than its own planner).
      for (const std::string strategy : {"tflm_greedy", "best"}) {
        TfliteEmbedding fallback;
        fallback.offline_offsets = TflmOwnOffsets(graph, strategy, kernels);
        const std::string candidate = EmbedInTflite(bytes, o.model, fallback);
        const Workload candidate_back =
            TfliteWorkload(ParseTflite(candidate, o.out), o.out, o.load);
        const auto head = TflmHead(*candidate_back.graph, true, nullptr, kernels);
        if (!head || *head > *own || (r.scratch_fallback && *head >= r.tflm_head)) continue;
        r.bytes = candidate;
        r.tflm_head = *head;
        r.scratch_fallback = true;
        r.strategy = strategy + " (tensors and scratch buffers)";
        r.variant.clear();
        r.shares = 0;
        r.order_changed = false;
      }
    }
  }
}

// A model TFLM's Prepare will refuse on the device: InputError naming each op and why.
void RefuseWhatTflmRefuses(const Graph& graph, const TargetAbi& device, const std::string& model) {
  const TflmOpCheck check = CheckTflmOps(graph, device);
  if (check.unsupported.empty()) return;
  std::string why;
  for (const TflmOpNote& n : check.unsupported)
    why += fmt::format("\n  op {}{} ({}): {}", n.subgraph ? fmt::format("{}:", n.subgraph) : "",
                       n.op, n.type, n.why);
  throw InputError(fmt::format(
      "{}: TensorFlow Lite Micro ({} kernels, target {}) will refuse this model, so no plan is "
      "written:{}",
      model, TflmKernelsName(device.kernels), device.name, why));
}

// The whole arena the device needs with the written model (head, tail, temporary), or why
// it is not modelled.
void FigureDeviceArena(const Graph& written, const TargetAbi& device, EmbeddedPlan& r) {
  try {
    r.device = ModelTflmArena(written, device, TflmHeadPlanFromRuntime(written, device));
    r.device_arena = r.device->minimal_arena;
    r.device_tail = r.device->tail;
    r.device_lower_bound = r.device->lower_bound();
  } catch (const InputError& e) {
    r.device_problem = e.what();  // the runtime cannot load it (an op it cannot size)
  } catch (const UsageError& e) {
    r.device_problem = e.what();  // or refuses the plan's options
  }
}

}  // namespace

EmbeddedPlan EmbedPlanInTflite(const std::string& bytes, const EmbedRequest& o) {
  const auto start = std::chrono::steady_clock::now();
  const auto keys = ExpandStrategies({o.strategy});
  if (keys.size() != 1 || !keys[0].starts_with("offsets/"))
    throw UsageError(fmt::format(
        "strategy {}: embed writes one offsets plan; give offsets/NAME (e.g. best, exact)",
        o.strategy));
  EmbeddedPlan r;
  TfliteModel model = ParseTflite(bytes, o.model);
  // An offline plan TFLM would refuse is replaced, not kept.
  if (model.offline_plan && !model.offline_plan->problem.empty()) {
    r.warnings.push_back(fmt::format("{}: replacing the unusable {} metadata ({})", o.model,
                                     kOfflinePlanMetadata, model.offline_plan->problem));
    model.offline_plan.reset();
    model.graph.fixed_offsets.clear();
  }
  Workload workload = TfliteWorkload(std::move(model), o.model, o.load);
  if (o.align) workload.problem.alignment = *o.align;
  // A model TFLM will refuse is not written: its plan would never be used.
  const TargetAbi device = WithTflmKernels(TflmTargetNamed(o.target), TflmKernelsNamed(o.kernels));
  if (o.refuse_unsupported) RefuseWhatTflmRefuses(*workload.graph, device, o.model);
  const KernelRegistry& kernels = TflmScratchKernels(device);
  const ExactOptions& exact = o.exact;

  // The model's own records, then the variants asked for; the smallest arena wins and,
  // on a tie, the fewest changes (own records, then in place, then a new order).
  Runs runs = RunStrategies(workload, keys, exact);
  const Variants variants = BuildVariants(workload, {o.inplace, o.reorder, false});
  RunVariants(workload, variants, keys, exact, runs);
  const StrategyRun& chosen = runs.runs[runs.best];
  const Variant* variant = VariantOf(variants, chosen);

  r.strategy = chosen.strategy;
  r.variant = chosen.variant;
  r.arena = chosen.bytes;
  r.plain_arena = runs.runs.front().bytes;
  r.lower_bound = variant ? chosen.lower_bound.value_or(0) : runs.lower_bound_bytes;
  r.tensors = workload.graph->TensorCount();
  r.planned = workload.problem.size();
  r.shares = variant ? variant->merged.shares.size() : 0;
  r.order_changed = variant && variant->reordered.has_value();
  r.input_bytes = bytes.size();

  TfliteEmbedding embedding;
  embedding.offline_offsets = OfflineOffsets(workload, *chosen.offsets);
  if (r.order_changed) embedding.op_order = variant->op_order;
  if (const auto misread = MisreadVariables(*workload.graph, embedding.offline_offsets);
      !misread.empty())
    r.warnings.push_back(
        fmt::format("warning: TFLM reads the offline offset of a variable of subgraph 1 or "
                    "later at its index in subgraph 0; it would place {} in the arena's head at "
                    "subgraph 0's offsets",
                    fmt::join(misread, ", ")));
  std::string& written = r.bytes;
  written = EmbedInTflite(bytes, o.model, embedding);

  // The plan holds the tensors; TFLM fits the kernels' scratch buffers around them. When
  // that puts its head above the one its own planner makes, its own plan is written.
  const InPlaceRuleSet& chosen_rules = InPlaceRuleSetNamed(variant ? o.inplace : "none");
  KeepTflmHeadAtMost(bytes, o, *workload.graph, chosen_rules, kernels, r);

  // What TFLM will read: the written model's offline plan, checked on its own terms.
  const Workload back = TfliteWorkload(ParseTflite(written, o.out), o.out, o.load);
  const InPlaceRuleSet& rules = r.scratch_fallback ? InPlaceRuleSetNamed("none") : chosen_rules;
  std::vector<bool> kept(workload.problem.size());
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = workload.problem.IsFixed(i);
  const OfflineCheck check = CheckOfflinePlan(back, rules, workload.problem.alignment, 10, kept);
  if (r.scratch_fallback) r.arena = check.arena_bytes;
  if (!check.violations.empty() || check.online != 0 || check.arena_bytes != r.arena)
    throw InternalError(fmt::format(
        "{}: embed: the written offline plan does not check out: {}", o.out,
        check.violations.empty()
            ? fmt::format("{} tensors online, arena {}", check.online, check.arena_bytes)
            : check.violations[0].message));
  FigureDeviceArena(*back.graph, device, r);
  r.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

EmbeddedPlan EmbedPlanInModel(const std::string& bytes, const std::string& label, bool reorder) {
  EmbedRequest o;
  o.model = label;
  o.out = label;
  o.reorder = reorder;
  return EmbedPlanInTflite(bytes, o);
}

nlohmann::ordered_json EmbeddedPlanJson(const EmbedRequest& request, const EmbeddedPlan& r) {
  nlohmann::ordered_json j;
  j["input"] = request.model;
  j["output"] = request.out;
  j["strategy"] = r.strategy;
  j["variant"] = r.variant;
  j["arena_bytes"] = r.arena;
  j["lower_bound_bytes"] = r.lower_bound;
  j["arena_without_variant_bytes"] = r.plain_arena;
  j["tensors"] = r.tensors;
  j["tensors_planned"] = r.planned;
  j["inplace_shares"] = r.shares;
  j["order_changed"] = r.order_changed;
  j["input_bytes"] = r.input_bytes;
  j["output_bytes"] = r.bytes.size();
  j["embed_ms"] = r.ms;
  j["tflm_head_bytes"] = r.tflm_head;
  j["tflm_own_planner_head_bytes"] = r.tflm_own_head;
  j["scratch_fallback"] = r.scratch_fallback;
  j["tflm_target"] = request.target;
  j["tflm_kernels"] = request.kernels;
  j["tflm_arena_bytes"] = r.device_arena;
  if (request.target == "host64") j["tflm_arena_bytes_host64"] = r.device_arena;
  j["tflm_arena_is_lower_bound"] = r.device_lower_bound;
  return j;
}

}  // namespace memplan
