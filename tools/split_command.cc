// memplan split MODEL.tflite -o OUT.tflite: rewrites a stage of the model to run patch by
// patch, chosen for the smallest whole TFLM arena on a target, and writes it with its
// offline plan (the library's include/memplan/split_for_target.h); never a model whose
// arena is larger unless forced.
#include <fmt/format.h>

#include <regex>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/split_for_target.h"
#include "memplan/table.h"
#include "memplan/tflm_target.h"
#include "tools/commands.h"
#include "tools/model_options.h"

namespace memplan::cli {

namespace {

struct SplitOptions {
  std::string model;
  std::string out;
  std::string patches = "auto";  // RxC or auto
  std::string stage = "auto";    // FIRST..LAST or auto
  std::string max_extra_macs = "20%";
  std::string format = "text";
  std::string target = "host64";      // the TFLM target whose whole arena the split minimises
  std::string kernels = "reference";  // the kernels TFLM is built with on that target
  bool force = false;                 // write the smallest-head split even when larger overall
  bool quiet = false;
};

std::optional<PatchGrid> ParsePatches(const std::string& text) {
  if (text == "auto") return std::nullopt;
  std::smatch m;
  static const std::regex pattern(R"(^([0-9]{1,4})x([0-9]{1,4})$)");
  if (!std::regex_match(text, m, pattern) || std::stoi(m[1]) < 1 || std::stoi(m[2]) < 1 ||
      std::stoi(m[1]) * std::stoi(m[2]) < 2)
    throw UsageError(
        fmt::format("--patches {}: give ROWSxCOLS (e.g. 3x3, at least two patches) or auto", text));
  return PatchGrid{std::stoi(m[1]), std::stoi(m[2])};
}

std::optional<SplitStage> ParseStage(const std::string& text) {
  if (text == "auto") return std::nullopt;
  std::smatch m;
  static const std::regex pattern(R"(^([0-9]{1,6})\.\.([0-9]{1,6})$)");
  if (!std::regex_match(text, m, pattern) || std::stoi(m[1]) > std::stoi(m[2]))
    throw UsageError(
        fmt::format("--stage {}: give FIRST..LAST op indices (e.g. 0..5) or auto", text));
  return SplitStage{std::stoi(m[1]), std::stoi(m[2])};
}

double ParseFraction(const std::string& text) {
  std::smatch m;
  static const std::regex pattern(R"(^([0-9]{1,4}(\.[0-9]{1,6})?)(%?)$)");
  if (!std::regex_match(text, m, pattern))
    throw UsageError(
        fmt::format("--max-extra-macs {}: give a percentage (20%) or a fraction "
                    "(0.2)",
                    text));
  const double value = std::stod(m[1]);
  return m[3].length() ? value / 100.0 : value;
}

// "1.53x smaller", "1.24x larger" or "the same".
std::string Change(Bytes before, Bytes after) {
  if (before == after || before == 0 || after == 0) return "the same";
  const double ratio = static_cast<double>(before) / static_cast<double>(after);
  return after < before ? fmt::format("{:.2f}x smaller", ratio)
                        : fmt::format("{:.2f}x larger", 1.0 / ratio);
}

void PrintNotWritten(const SplitOptions& o, const SplitResult& r, const TargetArenas& f) {
  fmt::print("{}: left as it is, nothing written: {}{}\n", o.model, r.why_not,
             r.candidates ? " (--force writes the smallest-head split anyway)" : "");
  fmt::print("  the original on {}: {} B as it is, {} B planned by memplan embed\n", f.target,
             WithThousands(f.as_is.whole), WithThousands(f.embedded.whole));
}

void PrintWritten(const SplitOptions& o, const SplitResult& r,
                  const std::vector<TargetArenas>& figures) {
  fmt::print("{}: {} split into {}x{} patches (ops {}..{}), chosen for the whole arena on {}\n",
             o.out, o.model, r.patches.rows, r.patches.cols, r.stage.first_op, r.stage.last_op,
             o.target);
  if (r.larger)
    fmt::print(
        "  LARGER overall (--force): no split makes the whole arena smaller; this one has "
        "the smallest head\n");
  fmt::print("  whole arena (plain MicroInterpreter): before (as it is) -> after; head, tail\n");
  for (const TargetArenas& f : figures)
    fmt::print(
        "  {:<7} {} B -> {} B ({}; head {} -> {}, tail {} -> {}; memplan embed alone {} B)\n",
        f.target, WithThousands(f.as_is.whole), WithThousands(f.after.whole),
        Change(f.as_is.whole, f.after.whole), WithThousands(f.as_is.head),
        WithThousands(f.after.head), WithThousands(f.as_is.tail), WithThousands(f.after.tail),
        WithThousands(f.embedded.whole));
  const double extra =
      r.macs_before
          ? 100.0 * (static_cast<double>(r.macs_after) / static_cast<double>(r.macs_before) - 1.0)
          : 0.0;
  fmt::print("  MACs    {} -> {} ({:+.1f}%)\n", WithThousands(r.macs_before),
             WithThousands(r.macs_after), extra);
  fmt::print("  ops     {} -> {} ({:+} added: slices, pads, patch ops, concatenations)\n",
             r.ops_before, r.ops_after,
             static_cast<std::int64_t>(r.ops_after) - static_cast<std::int64_t>(r.ops_before));
  if (r.candidates) fmt::print("  search  {} rewrites planned and measured\n", r.candidates);
  // The split is chosen for one target; another target's layouts could tip it over.
  for (const TargetArenas& f : figures)
    if (f.target != o.target && f.after.whole >= f.before().whole)
      fmt::print(
          "  note    on {} the whole arena is not smaller than the original's ({} B against {} "
          "B): split with --target {} for it\n",
          f.target, WithThousands(f.after.whole), WithThousands(f.before().whole), f.target);
}

void RunSplit(const SplitOptions& o) {
  CheckModelOutputs("split rewrites", o.model, {o.out});
  SplitForTargetRequest request;
  request.model = ReadFileBytes(o.model);
  request.label = o.model;
  request.out_label = o.out;
  request.target = o.target;
  request.kernels = o.kernels;
  request.search.patches = ParsePatches(o.patches);
  request.search.stage = ParseStage(o.stage);
  request.search.max_extra_macs = ParseFraction(o.max_extra_macs);
  request.search.force = o.force;
  if (!o.quiet)
    request.warn = [](const std::string& warning) { fmt::print(stderr, "memplan: {}\n", warning); };
  const SplitForTarget split = SplitForTflmTarget(request);
  if (split.result.split) WriteFileAtomically(o.out, split.written);
  if (o.format == "json")
    fmt::print("{}\n", SplitForTargetJson(request, split).dump(2));
  else if (split.result.split)
    PrintWritten(o, split.result, split.targets);
  else
    PrintNotWritten(o, split.result, split.targets.front());
  if (!split.result.split) throw NothingWritten{};
}

}  // namespace

void AddSplitCommand(CLI::App& app) {
  auto options = std::make_shared<SplitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "split", "Rewrite a .tflite model to run a stage patch by patch (smaller whole TFLM arena)");
  cmd->add_option("model", options->model, "the .tflite model (never changed)")->required();
  cmd->add_option("-o,--out", options->out, "the model to write (another file)")->required();
  cmd->add_option("--patches", options->patches, "ROWSxCOLS patches, or auto (default)");
  cmd->add_option("--stage", options->stage, "FIRST..LAST op indices, or auto (default)");
  cmd->add_option("--max-extra-macs", options->max_extra_macs,
                  "extra multiply-accumulates allowed (default 20%)");
  AddFormatOption(*cmd, options->format, {"text", "json"});
  AddTargetOptions(*cmd, options->target, options->kernels,
                   "the TFLM target whose whole arena the split minimises (default host64)");
  cmd->add_flag("--force", options->force,
                "write the smallest-head split even when no split makes the whole arena smaller");
  AddQuietFlag(*cmd, options->quiet);
  cmd->callback([options] { RunSplit(*options); });
}

}  // namespace memplan::cli
