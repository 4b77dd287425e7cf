// memplan embed MODEL.tflite -o OUT.tflite: plans the model as TFLM would run it and
// writes the plan into a copy as TFLM's OfflineMemoryAllocation metadata (optionally
// with outputs in place and the operators in a better order). With -o NAME.cc it writes that
// copy as C++ source instead, NAME.h and NAME.cc, with the arena sizes TFLM needs for it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "memplan/error.h"
#include "memplan/kernel.h"
#include "memplan/records_io.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/table.h"
#include "memplan/tflite.h"
#include "memplan/tflm_target.h"
#include "tools/commands.h"
#include "tools/embed_cc.h"
#include "tools/embed_plan.h"
#include "tools/exact_cli.h"
#include "tools/model_options.h"
#include "tools/offline_check.h"
#include "tools/variants.h"

namespace memplan::cli {

namespace {

struct EmbedOptions {
  std::string model;
  std::string out;
  std::string strategy = "best";
  std::optional<Bytes> align;
  std::string inplace = "tflm";  // safe on TFLM's reference kernels
  bool reorder = false;
  ModelFlags model_flags;
  std::string format = "text";
  ExactFlags exact;
  bool quiet = false;
  std::string emit;                   // --emit: tflite or cc; empty: by the output's extension
  std::string name;                   // --name: the C++ namespace; empty: from the model's name
  std::string target = "host64";      // --target: the device TFLM runs on
  std::string kernels = "reference";  // --kernels: reference or cmsis-nn
  bool refuse = false;  // refuse a model TFLM will refuse (the command; --even-if-tflm-refuses)
};

// What was written, for the summary.
struct EmbedReport {
  std::string strategy;
  std::string variant;  // "", "inplace=tflm", "reorder+inplace=tflm", ...
  Bytes arena = 0;
  Bytes lower_bound = 0;
  Bytes plain_arena = 0;  // the strategy on the model's own records
  std::size_t tensors = 0;
  std::size_t planned = 0;
  std::size_t shares = 0;
  bool order_changed = false;
  std::size_t input_bytes = 0;
  std::size_t output_bytes = 0;
  double ms = 0;
  // What TFLM will place (the runtime's model of it, kernels' scratch buffers included):
  Bytes tflm_head = 0;            // the head with the written plan (0: not modelled)
  Bytes tflm_own_head = 0;        // the head TFLM's own planner makes for the model
  bool scratch_fallback = false;  // the chosen plan put TFLM's head above its own: a plan of
                                  // tensors and scratch buffers together was written instead
  Bytes device_arena = 0;         // smallest tensor_arena_size on the target (0: not modelled)
  Bytes device_tail = 0;          // its tail
  bool device_lower_bound = false;
  std::optional<TflmArenaFigures> device;  // the whole arena on the target, when modelled
  std::string device_problem;              // why not, when not
};

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

bool SameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

// Checks the call before any work, so a bad one writes nothing.
void CheckPaths(const EmbedOptions& o, const std::vector<std::filesystem::path>& outputs) {
  std::string lower = o.model;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!lower.ends_with(".tflite"))
    throw UsageError(
        fmt::format("embed writes TensorFlow Lite models: '{}' is not a .tflite file", o.model));
  for (const std::filesystem::path& out : outputs) {
    if (SameFile(o.model, out))
      throw UsageError(fmt::format(
          "-o {}: the output must be another file than the model (the input is never changed)",
          out.string()));
    const std::filesystem::path parent = out.parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
      throw InputError(
          fmt::format("{}: cannot write: no directory {}", out.string(), parent.string()));
    if (std::filesystem::is_directory(out, ec))
      throw InputError(fmt::format("{}: cannot write: it is a directory", out.string()));
  }
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

// Plans the model `bytes` and returns the report and the model with the plan written.
EmbedReport EmbedInBytes(const EmbedOptions& o, const std::string& bytes, std::string& written) {
  const auto start = std::chrono::steady_clock::now();
  const auto keys = ExpandStrategies({o.strategy});
  if (keys.size() != 1 || !keys[0].starts_with("offsets/"))
    throw UsageError(fmt::format(
        "--strategy {}: embed writes one offsets plan; give offsets/NAME (e.g. best, exact)",
        o.strategy));
  TfliteModel model = ParseTflite(bytes, o.model);
  // An offline plan TFLM would refuse is replaced, not kept.
  if (model.offline_plan && !model.offline_plan->problem.empty()) {
    if (!o.quiet)
      fmt::print(stderr, "memplan: {}: replacing the unusable {} metadata ({})\n", o.model,
                 kOfflinePlanMetadata, model.offline_plan->problem);
    model.offline_plan.reset();
    model.graph.fixed_offsets.clear();
  }
  Workload workload = TfliteWorkload(std::move(model), o.model, ToLoadOptions(o.model_flags));
  if (o.align) workload.problem.alignment = *o.align;
  // A model TFLM will refuse is not written: its plan would never be used.
  const TargetAbi device = WithTflmKernels(TflmTargetNamed(o.target), TflmKernelsNamed(o.kernels));
  if (o.refuse) RefuseWhatTflmRefuses(*workload.graph, device, o.model);
  const KernelRegistry& kernels = TflmScratchKernels(device);
  const ExactOptions exact = MakeExactOptions(o.exact, o.quiet);

  // The model's own records, then the variants asked for; the smallest arena wins and,
  // on a tie, the fewest changes (own records, then in place, then a new order).
  Runs runs = RunStrategies(workload, keys, exact);
  const Variants variants = BuildVariants(workload, {o.inplace, o.reorder, false});
  RunVariants(workload, variants, keys, exact, runs);
  const StrategyRun& chosen = runs.runs[runs.best];
  const Variant* variant = VariantOf(variants, chosen);

  EmbedReport r;
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
      !misread.empty() && !o.quiet)
    fmt::print(stderr,
               "memplan: warning: TFLM reads the offline offset of a variable of subgraph 1 or "
               "later at its index in subgraph 0; it would place {} in the arena's head at "
               "subgraph 0's offsets\n",
               fmt::join(misread, ", "));
  written = EmbedInTflite(bytes, o.model, embedding);

  // The plan holds the tensors; TFLM fits the kernels' scratch buffers around them. When
  // that puts its head above the one its own planner makes, its own plan is written.
  const InPlaceRuleSet& chosen_rules = InPlaceRuleSetNamed(variant ? o.inplace : "none");
  if (const auto own = TflmHead(*workload.graph, false, nullptr, kernels)) {
    r.tflm_own_head = *own;
    const Workload written_back =
        TfliteWorkload(ParseTflite(written, o.out), o.out, ToLoadOptions(o.model_flags));
    const auto with_plan = TflmHead(*written_back.graph, true, &chosen_rules, kernels);
    r.tflm_head = with_plan.value_or(0);
    if (with_plan && *with_plan > *own) {
      // Plans of tensors and scratch buffers together; the smallest head TFLM then makes
      // (TFLM's own plan first: it never makes the head larger than its own planner).
      for (const std::string strategy : {"tflm_greedy", "best"}) {
        TfliteEmbedding fallback;
        fallback.offline_offsets = TflmOwnOffsets(*workload.graph, strategy, kernels);
        const std::string candidate = EmbedInTflite(bytes, o.model, fallback);
        const Workload candidate_back =
            TfliteWorkload(ParseTflite(candidate, o.out), o.out, ToLoadOptions(o.model_flags));
        const auto head = TflmHead(*candidate_back.graph, true, nullptr, kernels);
        if (!head || *head > *own || (r.scratch_fallback && *head >= r.tflm_head)) continue;
        written = candidate;
        r.tflm_head = *head;
        r.scratch_fallback = true;
        r.strategy = strategy + " (tensors and scratch buffers)";
        r.variant.clear();
        r.shares = 0;
        r.order_changed = false;
      }
    }
  }

  // What TFLM will read: the written model's offline plan, checked on its own terms.
  const Workload back =
      TfliteWorkload(ParseTflite(written, o.out), o.out, ToLoadOptions(o.model_flags));
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
  // The whole arena the device needs with the written model (head, tail, temporary).
  try {
    r.device = ModelTflmArena(*back.graph, device, TflmHeadPlanFromRuntime(*back.graph, device));
    r.device_arena = r.device->minimal_arena;
    r.device_tail = r.device->tail;
    r.device_lower_bound = r.device->lower_bound();
  } catch (const InputError& e) {
    // The runtime cannot load it (an op it cannot size): no device figure.
    r.device_problem = e.what();
  } catch (const UsageError& e) {
    // Nor one when the runtime refuses the plan's options.
    r.device_problem = e.what();
  }
  r.output_bytes = written.size();
  r.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

// The C++ source's namespace: --name, or one made from the model's file name.
std::string SourceName(const EmbedOptions& o) {
  if (o.name.empty()) return CcIdentifierFromFileName(o.model);
  if (const std::string problem = CcIdentifierProblem(o.name); !problem.empty())
    throw UsageError(fmt::format("--name {}: {}", o.name, problem));
  return o.name;
}

// The call as a user would repeat it, without directories (the text stays the same wherever
// the files are).
std::vector<std::string> CallLines(const EmbedOptions& o, const std::string& name) {
  const auto file = [](const std::string& path) {
    return std::filesystem::path(path).filename().string();
  };
  std::string call =
      fmt::format("memplan embed {} -o {} --name {}", file(o.model), file(o.out), name);
  std::string more = fmt::format("--target {} --kernels {} --strategy {} --inplace {}", o.target,
                                 o.kernels, o.strategy, o.inplace);
  if (o.reorder) more += " --reorder";
  if (o.align) more += fmt::format(" --align {}", *o.align);
  for (const std::string& dim : o.model_flags.dims) more += " --dim " + dim;
  for (const std::string& shape : o.model_flags.shapes) more += " --shape " + shape;
  return {call, "  " + more};
}

EmbedReport Embed(const EmbedOptions& o) {
  const bool cc = EmitsCcSource(o.emit, o.out);
  const CcOutputs cc_out = cc ? CcOutputsFor(o.out) : CcOutputs{};
  if (!cc && !o.name.empty())
    throw UsageError(fmt::format(
        "--name {}: a name is for C++ source (-o NAME.cc); '{}' is a model", o.name, o.out));
  const std::string name = cc ? SourceName(o) : std::string();
  CheckPaths(o, cc ? std::vector<std::filesystem::path>{cc_out.header, cc_out.source}
                   : std::vector<std::filesystem::path>{o.out});
  std::string written;
  const EmbedReport r = EmbedInBytes(o, ReadFileBytes(o.model), written);
  if (!cc) {
    WriteFileAtomically(o.out, written);
    return r;
  }
  if (!r.device)
    throw InputError(fmt::format("{}: cannot write C++ source without TFLM's arena sizes on {}: {}",
                                 o.model, o.target, r.device_problem));
  if (!r.device->unsupported.empty() && !o.quiet)
    fmt::print(stderr,
               "memplan: warning: {}: TFLM's {} kernels refuse {} op(s) of the model on {} "
               "(named in {}): the firmware will fail in AllocateTensors()\n",
               o.model, o.kernels, r.device->unsupported.size(), o.target,
               cc_out.header.filename().string());
  CcModelSource source;
  source.name = name;
  source.header_file = cc_out.header.filename().string();
  source.model = written;
  source.arena = *r.device;
  source.kernels = o.kernels;
  source.generator = std::string("memplan ") + MEMPLAN_VERSION;
  source.how = CallLines(o, name);
  WriteCcOutputs(cc_out, WriteCcModelSource(source));
  return r;
}

void RunEmbed(const EmbedOptions& o) {
  const EmbedReport r = Embed(o);
  const std::string strategy =
      r.variant.empty() ? r.strategy : fmt::format("{}[{}]", r.strategy, r.variant);
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["input"] = o.model;
    j["output"] = o.out;
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
    j["output_bytes"] = r.output_bytes;
    j["embed_ms"] = r.ms;
    j["tflm_head_bytes"] = r.tflm_head;
    j["tflm_own_planner_head_bytes"] = r.tflm_own_head;
    j["scratch_fallback"] = r.scratch_fallback;
    j["tflm_target"] = o.target;
    j["tflm_kernels"] = o.kernels;
    j["tflm_arena_bytes"] = r.device_arena;
    if (o.target == "host64") j["tflm_arena_bytes_host64"] = r.device_arena;
    j["tflm_arena_is_lower_bound"] = r.device_lower_bound;
    if (EmitsCcSource(o.emit, o.out)) {
      const CcOutputs cc = CcOutputsFor(o.out);
      j["header"] = cc.header.string();
      j["source"] = cc.source.string();
      j["name"] = SourceName(o);
      j["target"] = o.target;
      j["kernels"] = o.kernels;
      j["tensor_arena_size"] = r.device->minimal_arena_plain;
      j["persistent_arena_size"] = r.device->two_buffer_persistent;
      j["non_persistent_arena_size"] = r.device->two_buffer_non_persistent;
    }
    fmt::print("{}\n", j.dump(2));
    return;
  }
  if (EmitsCcSource(o.emit, o.out)) {
    const CcOutputs cc = CcOutputsFor(o.out);
    fmt::print("{}, {}: namespace {}: the model with its offline plan, kTensorArenaSize {}{}\n",
               cc.header.string(), cc.source.string(), SourceName(o), r.device->minimal_arena_plain,
               r.device->lower_bound() ? " (lower bound)" : "");
  }
  fmt::print("{}: offline plan of {} ({})\n", o.out, o.model, strategy);
  fmt::print("  arena            {} B (lower bound {} B{})\n", WithThousands(r.arena),
             WithThousands(r.lower_bound),
             r.variant.empty()
                 ? std::string()
                 : fmt::format("; {} B without {}", WithThousands(r.plain_arena), r.variant));
  fmt::print("  tensors planned  {} of {} (the others -1: constants, variables, empty)\n",
             r.planned, r.tensors);
  fmt::print("  in-place shares  {}{}\n", r.shares,
             o.inplace == "none" ? std::string() : fmt::format(" (rules: {})", o.inplace));
  fmt::print("  operator order   {}\n", r.order_changed ? "changed" : "unchanged");
  if (r.tflm_head > 0)
    fmt::print(
        "  TFLM head        {} B with this plan, scratch buffers included ({} B with its own "
        "planner{})\n",
        WithThousands(r.tflm_head), WithThousands(r.tflm_own_head),
        r.scratch_fallback ? "; the tensors-only plan left the scratch buffers no room, so a "
                             "plan of both was written"
                           : "");
  if (r.device_arena > 0)
    fmt::print(
        "  device arena     {} B{} on {}, {} kernels (head + tail {} B + temporary; memplan "
        "arena for more)\n",
        WithThousands(r.device_arena), r.device_lower_bound ? " at least" : "", o.target, o.kernels,
        WithThousands(r.device_tail));
  fmt::print("  written          {} B ({} B more than the model) in {:.0f} ms\n",
             WithThousands(r.output_bytes),
             WithThousands(r.output_bytes - std::min(r.output_bytes, r.input_bytes)), r.ms);
}

}  // namespace

EmbeddedPlan EmbedPlanInModel(const std::string& bytes, const std::string& label, bool reorder,
                              bool quiet) {
  EmbedOptions o;
  o.model = label;
  o.out = label;
  o.reorder = reorder;
  o.quiet = quiet;
  EmbeddedPlan plan;
  const EmbedReport r = EmbedInBytes(o, bytes, plan.bytes);
  plan.arena = r.arena;
  plan.plain_arena = r.plain_arena;
  plan.order_changed = r.order_changed;
  return plan;
}

void AddEmbedCommand(CLI::App& app) {
  auto options = std::make_shared<EmbedOptions>();
  CLI::App* cmd = app.add_subcommand(
      "embed", "Write a plan into a copy of a .tflite model as TFLM's offline plan");
  cmd->add_option("model", options->model, "the .tflite model (never changed)")->required();
  cmd->add_option("-o,--out", options->out,
                  "the model to write (another file); NAME.cc (.cpp, .cxx) writes C++ source: "
                  "NAME.h and NAME.cc")
      ->required();
  cmd->add_option("--emit", options->emit,
                  "tflite or cc (C++ source); by default the output's extension says")
      ->check(CLI::IsMember({"tflite", "cc"}));
  cmd->add_option("--name", options->name,
                  "C++ source: the namespace of the model and its sizes (default: from the "
                  "model's file name)");
  cmd->add_option("-s,--strategy", options->strategy,
                  "offsets strategy: best (default), exact, tflm_greedy, ...");
  cmd->add_option("--align", options->align, "alignment of every offset in bytes (16)")
      ->check(CLI::Range(Bytes{1}, Bytes{1} << 30));
  cmd->add_option("--inplace", options->inplace,
                  "let outputs share a dying input's memory by these rules (tflm, the default, "
                  "is safe on TFLM's reference kernels; none to turn it off)")
      ->check(CLI::IsMember({"none", "tflite", "tflm", "all"}));
  cmd->add_flag("--reorder", options->reorder,
                "also write the operators in the order that keeps the fewest bytes alive");
  AddModelFlags(*cmd, options->model_flags, /*with_accounting=*/false);
  cmd->add_option("-f,--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  AddExactFlags(*cmd, options->exact);
  cmd->add_flag("-q,--quiet", options->quiet, "no progress on stderr");
  cmd->add_option("-t,--target", options->target,
                  "the device TFLM runs on, for its scratch buffers and arena (as arena's)")
      ->check(CLI::IsMember(TflmTargetNames()));
  cmd->add_option("--kernels", options->kernels,
                  "the kernels TFLM is built with: reference, or cmsis-nn (Cortex-M targets)")
      ->check(CLI::IsMember({"reference", "cmsis-nn"}));
  auto even = std::make_shared<bool>(false);
  cmd->add_flag("--even-if-tflm-refuses", *even,
                "write the plan even when TFLM's kernels would refuse the model (an application "
                "that registers its own kernels)");
  cmd->callback([options, even] {
    options->refuse = !*even;
    RunEmbed(*options);
  });
}

}  // namespace memplan::cli
