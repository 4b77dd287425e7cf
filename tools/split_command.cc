// memplan split MODEL.tflite -o OUT.tflite: rewrites a stage of the model to run patch by
// patch (include/memplan/split.h), plans the result as embed does and writes it with its
// offline plan.
#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "memplan/embed.h"
#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/split.h"
#include "memplan/table.h"
#include "memplan/tflite.h"
#include "tools/commands.h"

namespace memplan::cli {

namespace {

struct SplitOptions {
  std::string model;
  std::string out;
  std::string patches = "auto";  // RxC or auto
  std::string stage = "auto";    // FIRST..LAST or auto
  std::string max_extra_macs = "20%";
  std::string format = "text";
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

bool SameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

void CheckPaths(const SplitOptions& o) {
  std::string lower = o.model;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!lower.ends_with(".tflite"))
    throw UsageError(
        fmt::format("split rewrites TensorFlow Lite models: '{}' is not a .tflite file", o.model));
  if (SameFile(o.model, o.out))
    throw UsageError(fmt::format(
        "-o {}: the output must be another file than the model (the input is never changed)",
        o.out));
  const std::filesystem::path parent = std::filesystem::path(o.out).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw InputError(fmt::format("{}: cannot write: no directory {}", o.out, parent.string()));
}

void RunSplit(const SplitOptions& o) {
  CheckPaths(o);
  SplitRequest request;
  request.patches = ParsePatches(o.patches);
  request.stage = ParseStage(o.stage);
  request.max_extra_macs = ParseFraction(o.max_extra_macs);
  const std::string bytes = ReadFileBytes(o.model);
  // memplan's best today: embed with outputs in place and the best operator order (a
  // model that already carries an offline plan keeps its order: the plan is made for it).
  const bool planned = ParseTflite(bytes, o.model).offline_plan.has_value();
  const EmbeddedPlan before = EmbedPlanInModel(bytes, o.model, !planned);
  // The search plans each candidate in its own order (patch after patch): the order
  // search on hundreds of patch ops costs more than it finds.
  request.arena_of = [&](const std::string& model) {
    return EmbedPlanInModel(model, o.model, false).arena;
  };
  const SplitResult r = SplitTflite(bytes, o.model, request);
  if (!r.split) {
    if (o.format == "json") {
      nlohmann::ordered_json j;
      j["input"] = o.model;
      j["split"] = false;
      j["why"] = r.why_not;
      j["arena_before"] = before.arena;
      j["macs_before"] = r.macs_before;
      j["candidates"] = r.candidates;
      fmt::print("{}\n", j.dump(2));
    } else {
      fmt::print("{}: left as it is, nothing written: {}\n", o.model, r.why_not);
    }
    return;
  }
  const EmbeddedPlan after = EmbedPlanInModel(r.bytes, o.out, true);
  if (!o.quiet)
    for (const std::string& warning : after.warnings) fmt::print(stderr, "memplan: {}\n", warning);
  WriteFileAtomically(o.out, after.bytes);
  const auto ops_added =
      static_cast<std::int64_t>(r.ops_after) - static_cast<std::int64_t>(r.ops_before);
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["input"] = o.model;
    j["output"] = o.out;
    j["split"] = true;
    j["arena_before"] = before.arena;
    j["arena_after"] = after.arena;
    j["macs_before"] = r.macs_before;
    j["macs_after"] = r.macs_after;
    j["patches"] = fmt::format("{}x{}", r.patches.rows, r.patches.cols);
    j["stage"] = {r.stage.first_op, r.stage.last_op};
    j["ops_added"] = ops_added;
    j["candidates"] = r.candidates;
    fmt::print("{}\n", j.dump(2));
    return;
  }
  const double extra =
      r.macs_before
          ? 100.0 * (static_cast<double>(r.macs_after) / static_cast<double>(r.macs_before) - 1.0)
          : 0.0;
  fmt::print("{}: {} split into {}x{} patches (ops {}..{})\n", o.out, o.model, r.patches.rows,
             r.patches.cols, r.stage.first_op, r.stage.last_op);
  fmt::print(
      "  arena  {} B -> {} B ({:.2f}x smaller)\n", WithThousands(before.arena),
      WithThousands(after.arena),
      after.arena ? static_cast<double>(before.arena) / static_cast<double>(after.arena) : 0.0);
  fmt::print("  MACs   {} -> {} ({:+.1f}%)\n", WithThousands(r.macs_before),
             WithThousands(r.macs_after), extra);
  fmt::print("  ops    {} -> {} ({:+} added: slices, pads, patch ops, concatenations)\n",
             r.ops_before, r.ops_after, ops_added);
  if (r.candidates) fmt::print("  search {} rewrites planned\n", r.candidates);
}

}  // namespace

void AddSplitCommand(CLI::App& app) {
  auto options = std::make_shared<SplitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "split", "Rewrite a .tflite model to run its first stage patch by patch (smaller arena)");
  cmd->add_option("model", options->model, "the .tflite model (never changed)")->required();
  cmd->add_option("-o,--out", options->out, "the model to write (another file)")->required();
  cmd->add_option("--patches", options->patches, "ROWSxCOLS patches, or auto (default)");
  cmd->add_option("--stage", options->stage, "FIRST..LAST op indices, or auto (default)");
  cmd->add_option("--max-extra-macs", options->max_extra_macs,
                  "extra multiply-accumulates allowed (default 20%)");
  cmd->add_option("-f,--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("-q,--quiet", options->quiet, "no progress on stderr");
  cmd->callback([options] { RunSplit(*options); });
}

}  // namespace memplan::cli
