// memplan embed MODEL.tflite -o OUT.tflite: plans the model as TFLM would run it and
// writes the plan into a copy as TFLM's OfflineMemoryAllocation metadata (optionally
// with outputs in place and the operators in a better order).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "memplan/embed.h"
#include "memplan/error.h"
#include "memplan/offline_check.h"
#include "memplan/records_io.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/table.h"
#include "memplan/tflite.h"
#include "memplan/tflm_target.h"
#include "tools/commands.h"
#include "tools/exact_cli.h"
#include "tools/model_options.h"
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
};

bool SameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

// Checks the call before any work, so a bad one writes nothing.
void CheckPaths(const EmbedOptions& o) {
  std::string lower = o.model;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!lower.ends_with(".tflite"))
    throw UsageError(
        fmt::format("embed writes TensorFlow Lite models: '{}' is not a .tflite file", o.model));
  if (SameFile(o.model, o.out))
    throw UsageError(fmt::format(
        "-o {}: the output must be another file than the model (the input is never changed)",
        o.out));
  const std::filesystem::path parent = std::filesystem::path(o.out).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw InputError(fmt::format("{}: cannot write: no directory {}", o.out, parent.string()));
}

EmbeddedPlan Embed(const EmbedOptions& o) {
  CheckPaths(o);
  const auto keys = ExpandStrategies({o.strategy});
  if (keys.size() != 1 || !keys[0].starts_with("offsets/"))
    throw UsageError(fmt::format(
        "--strategy {}: embed writes one offsets plan; give offsets/NAME (e.g. best, exact)",
        o.strategy));
  EmbedRequest request;
  request.model = o.model;
  request.out = o.out;
  request.strategy = o.strategy;
  request.align = o.align;
  request.inplace = o.inplace;
  request.reorder = o.reorder;
  request.load = ToLoadOptions(o.model_flags);
  request.exact = MakeExactOptions(o.exact, o.quiet);
  EmbeddedPlan r;
  try {
    r = EmbedPlanInTflite(ReadFileBytes(o.model), request);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{} (--inplace, --reorder)", e.what()));
  }
  if (!o.quiet)
    for (const std::string& warning : r.warnings) fmt::print(stderr, "memplan: {}\n", warning);
  WriteFileAtomically(o.out, r.bytes);
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
    j["tflm_arena_bytes_host64"] = r.device_arena;
    j["tflm_arena_is_lower_bound"] = r.device_lower_bound;
    fmt::print("{}\n", j.dump(2));
    return;
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
        "  device arena     {} B{} on host64 (head + tail {} B + temporary; memplan arena "
        "for arm32)\n",
        WithThousands(r.device_arena), r.device_lower_bound ? " at least" : "",
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
  cmd->add_option("-o,--out", options->out, "the model to write (another file)")->required();
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
  cmd->callback([options] { RunEmbed(*options); });
}

}  // namespace memplan::cli
