// memplan embed MODEL.tflite -o OUT.tflite: plans the model as TFLM would run it and
// writes the plan into a copy as TFLM's OfflineMemoryAllocation metadata (optionally
// with outputs in place and the operators in a better order). With -o NAME.cc it writes that
// copy as C++ source instead, NAME.h and NAME.cc, with the arena sizes TFLM needs for it.
// The planning is the library's (include/memplan/embed.h); this file is the command.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "memplan/embed.h"
#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/table.h"
#include "memplan/tflm_target.h"
#include "tools/commands.h"
#include "tools/embed_cc.h"
#include "tools/exact_cli.h"
#include "tools/model_options.h"

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

// Plans the model as the options ask (the library's embed) and returns what was written.
EmbeddedPlan EmbedInBytes(const EmbedOptions& o) {
  EmbedRequest request;
  request.model = o.model;
  request.out = o.out;
  request.strategy = o.strategy;
  request.align = o.align;
  request.inplace = o.inplace;
  request.reorder = o.reorder;
  request.load = ToLoadOptions(o.model_flags);
  request.exact = MakeExactOptions(o.exact, o.quiet);
  request.target = o.target;
  request.kernels = o.kernels;
  request.refuse_unsupported = o.refuse;
  EmbeddedPlan r;
  try {
    r = EmbedPlanInTflite(ReadFileBytes(o.model), request);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{} (--strategy, --inplace, --reorder)", e.what()));
  }
  if (!o.quiet)
    for (const std::string& warning : r.warnings) fmt::print(stderr, "memplan: {}\n", warning);
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

EmbeddedPlan Embed(const EmbedOptions& o) {
  const bool cc = EmitsCcSource(o.emit, o.out);
  const CcOutputs cc_out = cc ? CcOutputsFor(o.out) : CcOutputs{};
  if (!cc && !o.name.empty())
    throw UsageError(fmt::format(
        "--name {}: a name is for C++ source (-o NAME.cc); '{}' is a model", o.name, o.out));
  const std::string name = cc ? SourceName(o) : std::string();
  CheckPaths(o, cc ? std::vector<std::filesystem::path>{cc_out.header, cc_out.source}
                   : std::vector<std::filesystem::path>{o.out});
  const EmbeddedPlan r = EmbedInBytes(o);
  if (!cc) {
    WriteFileAtomically(o.out, r.bytes);
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
  source.model = r.bytes;
  source.arena = *r.device;
  source.kernels = o.kernels;
  source.generator = std::string("memplan ") + MEMPLAN_VERSION;
  source.how = CallLines(o, name);
  WriteCcOutputs(cc_out, WriteCcModelSource(source));
  return r;
}

void RunEmbed(const EmbedOptions& o) {
  const EmbeddedPlan r = Embed(o);
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
    j["output_bytes"] = r.bytes.size();
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
      j["persistent_arena_size"] = r.device->two_buffer_persistent_safe;
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
             WithThousands(r.bytes.size()),
             WithThousands(r.bytes.size() - std::min(r.bytes.size(), r.input_bytes)), r.ms);
}

}  // namespace

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
