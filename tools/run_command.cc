// memplan run MODEL: loads the model into a TFLM-style arena, plans it, invokes it with
// the verification kernels, compares the outputs with a naive layout and prints the
// arena recording.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/recording.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/schedule.h"
#include "memplan/tflm_target.h"
#include "memplan/workload.h"
#include "tools/commands.h"
#include "tools/model_options.h"
#include "tools/progress.h"
#include "tools/run_resize.h"

namespace memplan::cli {

namespace {

struct RunOptions {
  std::string model;
  ModelFlags model_flags;
  std::string strategy = "tflm_greedy";
  std::optional<Bytes> arena_size;
  std::optional<Bytes> persistent_size;
  std::size_t invokes = 1;
  std::vector<std::string> preallocate;
  std::string offline = "auto";
  std::string format = "text";
  std::string inplace = "none";       // --inplace: none, tflite, tflm, all
  bool reorder = false;               // --reorder
  bool quiet = false;                 // no progress on stderr
  std::vector<std::string> resize;    // --resize NAME=N1,N2,...: a sequence of shapes
  std::string target = "host64";      // --target: whose kernels' scratch requests
  std::string kernels = "reference";  // --kernels: reference or cmsis-nn
};

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
  throw UsageError(
      fmt::format("--preallocate {}: no tensor of that name or index in {}", spec, graph.source));
}

OfflinePlanUse OfflineUse(const std::string& name) {
  if (name == "ignore") return OfflinePlanUse::kIgnore;
  if (name == "require") return OfflinePlanUse::kRequire;
  return OfflinePlanUse::kWhenPresent;
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
std::string VariantName(const RunOptions& o) {
  const std::string inplace = o.inplace == "none" ? "" : "inplace=" + o.inplace;
  if (!o.reorder) return inplace;
  return inplace.empty() ? "reorder" : "reorder+" + inplace;
}

// --reorder: the model with its ops in the order that keeps the fewest bytes alive
// (with the in-place rules), as plan --reorder finds it; the model itself when no
// order is better.
Graph Reordered(const Graph& graph, const InPlaceRuleSet& rules, const RunOptions& o,
                bool& changed) {
  if (!graph.fixed_offsets.empty() && o.offline != "ignore")
    throw UsageError(fmt::format(
        "{}: --reorder: the model carries an offline plan made for its own operator order; "
        "add --offline ignore to plan every tensor online",
        o.model));
  OrderSearchOptions search;
  search.inplace = rules.empty() ? nullptr : &rules;
  search.size_alignment = kDefaultArenaAlignment;
  const OrderSearchResult orders = SearchOperatorOrder(graph, search);
  changed = orders.changed;
  return orders.changed ? ReorderOperators(graph, orders) : graph;
}

void Run(const RunOptions& o) {
  if (!o.resize.empty()) {
    if (o.reorder || o.inplace != "none" || !o.preallocate.empty() || o.arena_size ||
        o.persistent_size)
      throw UsageError(
          "--resize plans with the CPU arena planner: it takes --dim, --strategy, --invokes "
          "and --format, not --reorder, --inplace, --preallocate or arena sizes");
    ResizeRunOptions r;
    r.model = o.model;
    r.model_flags = o.model_flags;
    r.resize = o.resize;
    r.strategy = o.strategy == "tflm_greedy" ? "best" : o.strategy;
    if (r.strategy.starts_with("offsets/")) r.strategy = r.strategy.substr(8);
    r.invokes = o.invokes;
    r.format = o.format;
    r.quiet = o.quiet;
    RunResize(r);
    return;
  }
  Progress progress("memplan run", o.quiet);
  progress.Stage("loading the model");
  const Workload workload = LoadWorkload(o.model, ToLoadOptions(o.model_flags));
  if (!workload.graph)
    throw UsageError(
        fmt::format("run needs a model (.tflite, .onnx or zoo:NAME), not {} input '{}'",
                    workload.kind, o.model));
  const InPlaceRuleSet& rules = InPlaceRuleSetNamed(o.inplace);
  bool order_changed = false;
  if (o.reorder) progress.Stage("searching an operator order");
  const Graph graph =
      o.reorder ? Reordered(*workload.graph, rules, o, order_changed) : *workload.graph;
  // The verification kernels, requesting the scratch buffers the device's TFLM kernels do.
  const KernelRegistry& kernels =
      TflmScratchKernels(WithTflmKernels(TflmTargetNamed(o.target), TflmKernelsNamed(o.kernels)));

  InterpreterOptions options;
  options.strategy = o.strategy.starts_with("offsets/") ? o.strategy.substr(8) : o.strategy;
  options.offline = OfflineUse(o.offline);
  if (!rules.empty()) options.inplace = rules;

  std::vector<std::vector<std::byte>> user_buffers;
  std::vector<std::pair<TensorRef, std::span<std::byte>>> preallocated;
  for (const std::string& spec : o.preallocate) {
    const TensorRef ref = FindTensor(graph, spec);
    const Tensor& tensor = graph.subgraphs[ref.subgraph].tensors[ref.tensor];
    user_buffers.emplace_back(tensor.bytes.value_or(0));
    preallocated.emplace_back(ref, user_buffers.back());
  }

  progress.Stage("measuring the arena");
  const ArenaRequirement need = MeasureArena(graph, kernels, options, preallocated);
  const Bytes required = need.total;
  std::unique_ptr<AlignedBuffer> main_buffer, persistent_buffer;
  std::unique_ptr<Arena> arena;
  if (o.persistent_size) {
    persistent_buffer = std::make_unique<AlignedBuffer>(*o.persistent_size);
    main_buffer = std::make_unique<AlignedBuffer>(o.arena_size.value_or(need.non_persistent));
    arena = std::make_unique<Arena>(persistent_buffer->span, main_buffer->span);
  } else {
    main_buffer = std::make_unique<AlignedBuffer>(o.arena_size.value_or(required));
    arena = std::make_unique<Arena>(main_buffer->span);
  }
  Interpreter interpreter(graph, *arena, kernels, options);
  for (const auto& [ref, buffer] : preallocated)
    interpreter.RegisterPreallocatedTensor(ref, buffer);
  progress.Stage("invoking the planned arena");
  const auto planned = RunInvocations(interpreter, o.invokes);
  progress.Stage("invoking the naive layout");
  const std::string difference =
      FirstDifference(graph, RunNaive(graph, kernels, o.invokes), planned);
  progress.Finish();
  const bool match = difference.empty();
  const InterpreterStats& s = interpreter.stats();

  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["model"] = o.model;
    j["strategy"] = interpreter.plan().strategy;
    if (const std::string variant = VariantName(o); !variant.empty()) j["variant"] = variant;
    if (o.reorder) j["order_changed"] = order_changed;
    j["head_bytes"] = s.head_bytes;
    if (options.inplace) {
      j["head_without_inplace_bytes"] = s.head_without_inplace;
      j["inplace_shares"] = s.inplace_shares;
    }
    j["tail_bytes"] = arena->PersistentUsedBytes();
    j["temp_peak_bytes"] = arena->PeakTempBytes();
    j["arena_bytes"] = arena->capacity();
    j["arena_used_bytes"] = arena->UsedBytes();
    j["peak_bytes"] = arena->PeakUsedBytes();
    j["required_arena_bytes"] = required;
    j["required_persistent_bytes"] = need.persistent;
    j["required_non_persistent_bytes"] = need.non_persistent;
    j["two_buffers"] = arena->two_buffers();
    j["planned_buffers"] = s.planned_buffers;
    j["scratch_buffers"] = s.scratch_buffers;
    j["offline_buffers"] = s.offline_buffers;
    j["tail_variables"] = s.tail_variables;
    j["variable_bytes"] = s.variable_bytes;
    j["preallocated_tensors"] = s.preallocated;
    j["preallocated_bytes"] = s.preallocated_bytes;
    if (s.preallocated > 0) j["head_without_preallocation"] = s.head_without_preallocation;
    j["allocations"] = AllocationsJson(*arena);
    j["invokes"] = o.invokes;
    j["outputs_match_naive"] = match;
    if (!match) j["difference"] = difference;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", PrintAllocations(*arena));
    fmt::print("{}", PrintRuntimeSummary(*arena, interpreter));
    if (o.reorder)
      fmt::print("[memplan] Operator order: {}\n", order_changed
                                                       ? "reordered to keep fewer bytes alive"
                                                       : "the model's own (no "
                                                         "better order found)");
    fmt::print(
        "[memplan] Arena {} bytes (this model needs {}); {} invocation{}: outputs {} the "
        "naive layout{}\n",
        arena->capacity(), required, o.invokes, o.invokes == 1 ? "" : "s",
        match ? "match" : "DIFFER FROM", match ? "" : " (" + difference + ")");
  }
  if (!match)
    throw InternalError(
        fmt::format("{}: the planned arena's outputs differ from the naive "
                    "layout: {}",
                    o.model, difference));
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Load a model into a TFLM-style arena, plan, invoke it with verification kernels "
      "and compare with a naive layout");
  cmd->add_option("model", options->model, "model .tflite/.onnx or zoo:NAME")->required();
  AddModelFlags(*cmd, options->model_flags, false);
  cmd->add_option("-s,--strategy", options->strategy,
                  "offsets strategy (offsets/NAME or NAME; default tflm_greedy)");
  cmd->add_option("--arena-size", options->arena_size,
                  "arena bytes (default: exactly what the model needs)")
      ->check(CLI::Range(Bytes{0}, Bytes{1} << 44));
  cmd->add_option("--persistent-size", options->persistent_size,
                  "two buffers: the persistent (tail) buffer's bytes; --arena-size is then the "
                  "non-persistent one")
      ->check(CLI::Range(Bytes{0}, Bytes{1} << 44));
  cmd->add_option("--invokes", options->invokes, "invocations (default 1)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  cmd->add_option("--preallocate", options->preallocate,
                  "keep this tensor (name or index) in an application buffer; repeatable");
  cmd->add_option("--offline", options->offline,
                  "OfflineMemoryAllocation metadata: auto (use when present), ignore, require")
      ->check(CLI::IsMember({"auto", "ignore", "require"}));
  cmd->add_option("-f,--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--inplace", options->inplace,
                  "outputs share a dying input's memory by rule set: none, tflite, tflm, all "
                  "(memplan rules); the kernels honour it")
      ->check(CLI::IsMember({"none", "tflite", "tflm", "all"}));
  cmd->add_flag("--reorder", options->reorder,
                "run the ops in the order that keeps the fewest bytes alive (with --inplace "
                "rules)");
  cmd->add_option(
      "--resize", options->resize,
      "NAME=N1,N2,...: run the model with its dimension NAME (as --dim names it) at "
      "each size in turn, planned by the CPU arena planner (memplan mode, --strategy default best; "
      "docs/cpu-planner.md); repeat to move several dimensions together; other open "
      "dimensions bound with --dim");
  AddQuietFlag(*cmd, options->quiet);
  cmd->add_option("-t,--target", options->target,
                  "the device whose TFLM kernels' scratch requests the kernels make (as arena's)")
      ->check(CLI::IsMember(TflmTargetNames()));
  cmd->add_option("--kernels", options->kernels,
                  "reference, or cmsis-nn (CMSIS-NN's scratch buffers; Cortex-M targets)")
      ->check(CLI::IsMember({"reference", "cmsis-nn"}));
  cmd->callback([options] { Run(*options); });
}

}  // namespace memplan::cli
