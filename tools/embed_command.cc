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

// The library's request for the options.
EmbedRequest EmbedRequestOf(const EmbedOptions& o) {
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
  return request;
}

// Plans the model as the options ask (the library's embed) and returns what was written.
EmbeddedPlan EmbedInBytes(const EmbedOptions& o) {
  const EmbedRequest request = EmbedRequestOf(o);
  const EmbeddedPlan r = NamingFlags("--strategy, --inplace, --reorder", [&] {
    return EmbedPlanInTflite(ReadFileBytes(o.model), request);
  });
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
  CheckModelOutputs("embed writes", o.model,
                    cc ? std::vector<std::filesystem::path>{cc_out.header, cc_out.source}
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
    nlohmann::ordered_json j = EmbeddedPlanJson(EmbedRequestOf(o), r);
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
  AddAlignOption(*cmd, options->align, "alignment of every offset in bytes (16)");
  AddInplaceOption(*cmd, options->inplace,
                   "let outputs share a dying input's memory by these rules (tflm, the default, "
                   "is safe on TFLM's reference kernels; none to turn it off)");
  cmd->add_flag("--reorder", options->reorder,
                "also write the operators in the order that keeps the fewest bytes alive");
  AddModelFlags(*cmd, options->model_flags, /*with_accounting=*/false);
  AddFormatOption(*cmd, options->format, {"text", "json"});
  AddExactFlags(*cmd, options->exact);
  AddQuietFlag(*cmd, options->quiet);
  AddTargetOptions(*cmd, options->target, options->kernels,
                   "the device TFLM runs on, for its scratch buffers and arena (as arena's)");
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
