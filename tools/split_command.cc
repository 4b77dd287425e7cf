// memplan split MODEL.tflite -o OUT.tflite: rewrites a stage of the model to run patch by
// patch (include/memplan/split.h), chosen for the smallest whole TFLM arena on a target
// (head, tail and temporary memory, as `memplan arena` models it), plans the result as
// embed does and writes it with its offline plan; never a model whose arena is larger
// unless forced.
#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "memplan/embed.h"
#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/split.h"
#include "memplan/table.h"
#include "memplan/tflite.h"
#include "memplan/tflm_target.h"
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

// The model with memplan's offline plan (the library's embed with its defaults; `reorder`:
// also search the operator order), its warnings on stderr unless `quiet`.
std::string Planned(const std::string& bytes, const std::string& label, bool reorder, bool quiet) {
  EmbeddedPlan plan = EmbedPlanInModel(bytes, label, reorder);
  if (!quiet)
    for (const std::string& warning : plan.warnings) fmt::print(stderr, "memplan: {}\n", warning);
  return std::move(plan.bytes);
}

// The whole arena TFLM needs for a model that carries its offline plan, on `target`
// (what `memplan arena` says, with a plain MicroInterpreter). InputError when the target's
// reference kernels refuse an op the original runs (`allowed`: the original's refusals).
SplitArena WholeArena(const std::string& planned, const std::string& label, const TargetAbi& target,
                      const std::set<std::string>* allowed = nullptr) {
  const Graph graph = ParseTflite(planned, label).graph;
  if (allowed)
    for (const TflmOpNote& note : CheckTflmOps(graph, target).unsupported)
      if (!allowed->contains(note.type + ": " + note.why))
        throw InputError(fmt::format("{}: op {} ({}) is refused on {}: {}", label, note.op,
                                     note.type, target.name, note.why));
  const TflmArenaFigures f = ModelTflmArena(graph, target, TflmHeadPlanFromRuntime(graph, target));
  return {f.head, f.tail, f.minimal_arena_plain};
}

std::set<std::string> Refusals(const std::string& planned, const std::string& label,
                               const TargetAbi& target) {
  std::set<std::string> refused;
  for (const TflmOpNote& note : CheckTflmOps(ParseTflite(planned, label).graph, target).unsupported)
    refused.insert(note.type + ": " + note.why);
  return refused;
}

// The original on the device two ways: as it is (TFLM plans it, or uses the offline plan
// it carries) and planned by memplan without a split (what `memplan embed --reorder`
// writes). A split must beat both, or `embed` alone would do better.
struct Original {
  std::string as_is;     // the model's bytes
  std::string embedded;  // with memplan's offline plan
};

// Before and after on one target.
struct TargetFigures {
  std::string target;
  SplitArena as_is, embedded, after;
  // The bar a split must go under: the smaller of the original's two arenas.
  const SplitArena& before() const { return embedded.whole < as_is.whole ? embedded : as_is; }
};

TargetFigures FiguresOn(const TargetAbi& target, const Original& original, const std::string* after,
                        const SplitOptions& o) {
  TargetFigures f{target.name,
                  WholeArena(original.as_is, o.model, target),
                  WholeArena(original.embedded, o.model, target),
                  {}};
  if (after) f.after = WholeArena(*after, o.out, target);
  return f;
}

// The device the split is chosen for: the target with the chosen kernels.
TargetAbi ChosenTarget(const SplitOptions& o) {
  return WithTflmKernels(TflmTargetNamed(o.target), TflmKernelsNamed(o.kernels));
}

std::vector<TargetFigures> PerTarget(const Original& original, const std::string& after,
                                     const SplitOptions& o) {
  // The chosen device, and the two general ones for comparison.
  std::vector<TargetFigures> figures;
  figures.push_back(FiguresOn(ChosenTarget(o), original, &after, o));
  for (const char* name : {"host64", "arm32"})
    if (o.target != name) figures.push_back(FiguresOn(TflmTargetNamed(name), original, &after, o));
  return figures;
}

// "1.53x smaller", "1.24x larger" or "the same".
std::string Change(Bytes before, Bytes after) {
  if (before == after || before == 0 || after == 0) return "the same";
  const double ratio = static_cast<double>(before) / static_cast<double>(after);
  return after < before ? fmt::format("{:.2f}x smaller", ratio)
                        : fmt::format("{:.2f}x larger", 1.0 / ratio);
}

nlohmann::ordered_json ArenaJson(const SplitArena& a) {
  return {{"head", a.head}, {"tail", a.tail}, {"arena", a.whole}};
}

void PrintNotWritten(const SplitOptions& o, const SplitResult& r, const TargetFigures& f) {
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["input"] = o.model;
    j["split"] = false;
    j["why"] = r.why_not;
    j["target"] = o.target;
    j["arena_before"] = f.as_is.whole;
    j["before"] = ArenaJson(f.as_is);
    j["embedded"] = ArenaJson(f.embedded);
    if (r.candidates) j["best_candidate"] = ArenaJson(r.arena_after);
    j["macs_before"] = r.macs_before;
    j["candidates"] = r.candidates;
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("{}: left as it is, nothing written: {}{}\n", o.model, r.why_not,
             r.candidates ? " (--force writes the smallest-head split anyway)" : "");
  fmt::print("  the original on {}: {} B as it is, {} B planned by memplan embed\n", f.target,
             WithThousands(f.as_is.whole), WithThousands(f.embedded.whole));
}

void PrintJson(const SplitOptions& o, const SplitResult& r,
               const std::vector<TargetFigures>& figures, const TargetFigures& chosen) {
  nlohmann::ordered_json j;
  j["input"] = o.model;
  j["output"] = o.out;
  j["split"] = true;
  j["larger"] = r.larger;
  j["target"] = o.target;
  j["arena_before"] = chosen.as_is.whole;
  j["arena_after"] = chosen.after.whole;
  nlohmann::ordered_json targets = nlohmann::ordered_json::object();
  for (const TargetFigures& f : figures)
    targets[f.target] = {{"before", ArenaJson(f.as_is)},
                         {"embedded", ArenaJson(f.embedded)},
                         {"after", ArenaJson(f.after)}};
  j["targets"] = targets;
  nlohmann::ordered_json not_smaller = nlohmann::ordered_json::array();
  for (const TargetFigures& f : figures)
    if (f.after.whole >= f.before().whole) not_smaller.push_back(f.target);
  j["not_smaller_on"] = not_smaller;
  j["macs_before"] = r.macs_before;
  j["macs_after"] = r.macs_after;
  j["patches"] = fmt::format("{}x{}", r.patches.rows, r.patches.cols);
  j["stage"] = {r.stage.first_op, r.stage.last_op};
  j["ops_added"] = static_cast<std::int64_t>(r.ops_after) - static_cast<std::int64_t>(r.ops_before);
  j["candidates"] = r.candidates;
  fmt::print("{}\n", j.dump(2));
}

void PrintWritten(const SplitOptions& o, const SplitResult& r,
                  const std::vector<TargetFigures>& figures) {
  const TargetFigures& chosen = *std::find_if(
      figures.begin(), figures.end(), [&](const TargetFigures& f) { return f.target == o.target; });
  if (o.format == "json") return PrintJson(o, r, figures, chosen);
  fmt::print("{}: {} split into {}x{} patches (ops {}..{}), chosen for the whole arena on {}\n",
             o.out, o.model, r.patches.rows, r.patches.cols, r.stage.first_op, r.stage.last_op,
             o.target);
  if (r.larger)
    fmt::print(
        "  LARGER overall (--force): no split makes the whole arena smaller; this one has "
        "the smallest head\n");
  fmt::print("  whole arena (plain MicroInterpreter): before (as it is) -> after; head, tail\n");
  for (const TargetFigures& f : figures)
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
  for (const TargetFigures& f : figures)
    if (f.target != o.target && f.after.whole >= f.before().whole)
      fmt::print(
          "  note    on {} the whole arena is not smaller than the original's ({} B against {} "
          "B): split with --target {} for it\n",
          f.target, WithThousands(f.after.whole), WithThousands(f.before().whole), f.target);
}

// The split model planned as embed --reorder plans it, unless the order found makes the
// whole arena on the target larger than the split's own order did.
std::string PlanWritten(const SplitResult& r, const SplitOptions& o, const TargetAbi& target) {
  std::string reordered = Planned(r.bytes, o.out, true, o.quiet);
  if (WholeArena(reordered, o.out, target).whole <= r.arena_after.whole || r.arena_after.whole == 0)
    return reordered;
  return Planned(r.bytes, o.out, false, o.quiet);
}

void RunSplit(const SplitOptions& o) {
  CheckPaths(o);
  const TargetAbi target = ChosenTarget(o);
  SplitRequest request;
  request.patches = ParsePatches(o.patches);
  request.stage = ParseStage(o.stage);
  request.max_extra_macs = ParseFraction(o.max_extra_macs);
  request.force = o.force;
  Original original;
  original.as_is = ReadFileBytes(o.model);
  // memplan's best without a split: embed with outputs in place and the best operator
  // order (a model that already carries an offline plan keeps its order: the plan is made
  // for it).
  const bool planned = ParseTflite(original.as_is, o.model).offline_plan.has_value();
  original.embedded = Planned(original.as_is, o.model, !planned, true);
  const TargetFigures bar = FiguresOn(target, original, nullptr, o);
  request.arena_before = bar.before();
  const std::set<std::string> refused = Refusals(original.as_is, o.model, target);
  // The search plans each candidate in its own order (patch after patch): the order
  // search on hundreds of patch ops costs more than it finds.
  const std::string candidate = fmt::format("a split of {}", o.model);
  request.arena_of = [&](const std::string& model) {
    return WholeArena(Planned(model, candidate, false, true), candidate, target, &refused);
  };
  // The few best again as they will be written: with the order search.
  request.final_arena_of = [&](const std::string& model) {
    return WholeArena(Planned(model, candidate, true, true), candidate, target, &refused);
  };
  const SplitResult r = SplitTflite(original.as_is, o.model, request);
  if (!r.split) {
    PrintNotWritten(o, r, bar);
    throw NothingWritten{};
  }
  const std::string written = PlanWritten(r, o, target);
  WriteFileAtomically(o.out, written);
  PrintWritten(o, r, PerTarget(original, written, o));
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
  cmd->add_option("-f,--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-t,--target", options->target,
                  "the TFLM target whose whole arena the split minimises (default host64)")
      ->check(CLI::IsMember(TflmTargetNames()));
  cmd->add_option("--kernels", options->kernels,
                  "the kernels TFLM is built with: reference, or cmsis-nn (Cortex-M targets)")
      ->check(CLI::IsMember({"reference", "cmsis-nn"}));
  cmd->add_flag("--force", options->force,
                "write the smallest-head split even when no split makes the whole arena smaller");
  cmd->add_flag("-q,--quiet", options->quiet, "no progress on stderr");
  cmd->callback([options] { RunSplit(*options); });
}

}  // namespace memplan::cli
