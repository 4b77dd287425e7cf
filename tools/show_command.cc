// memplan show INPUT: draws one plan (SVG, TFLM's ASCII map) or several (HTML).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "memplan/error.h"
#include "memplan/html.h"
#include "memplan/offline_check.h"
#include "memplan/offsets.h"
#include "memplan/pipeline.h"
#include "memplan/plan_maps.h"
#include "memplan/records_io.h"
#include "memplan/svg.h"
#include "memplan/table.h"
#include "memplan/texture_records.h"
#include "memplan/texture_runs.h"
#include "memplan/tflm_print.h"
#include "tools/commands.h"
#include "tools/model_options.h"
#include "tools/progress.h"

namespace memplan::cli {

namespace {

// Beyond this many steps the default output leaves the ASCII map out (one line per
// step); --ascii prints it anyway.
constexpr Step kAsciiStepsByDefault = 2000;

struct ShowOptions {
  std::string input;
  std::vector<std::string> strategies;
  std::optional<Bytes> align;
  std::string svg;
  std::string html;
  bool ascii = false;
  ModelFlags model;    // how a model input becomes records
  bool quiet = false;  // no progress on stderr
};

// What a single picture shows when the user names no strategy: `best` when the
// registry has it, else the smallest of all offsets strategies.
std::vector<std::string> DefaultSingleKeys() {
  if (FindOffsetStrategy("best")) return {"offsets/best"};
  return ExpandStrategies({"offsets"});
}

// What --html draws when no strategy is named: every strategy but the exact solver,
// which can take its whole time budget (ask for it with --strategy offsets/exact).
std::vector<std::string> DefaultHtmlKeys() {
  std::vector<std::string> keys = ExpandStrategies({"all"});
  std::erase(keys, "offsets/exact");
  return keys;
}

// Texture and shape records: their plans drawn as lanes, one per object, each record sized by
// its elements times the element's bytes when known (a model's GPU objects), else by its
// element count.
void ShowTextures(const ShowOptions& o, const Workload& textures) {
  if (o.align) throw UsageError(fmt::format("{}: --align applies to sizes in bytes", o.input));
  if (o.ascii) throw UsageError(fmt::format("{}: --ascii draws arenas of bytes", o.input));
  const TextureProblem& problem = *textures.textures;
  std::vector<std::string> keys =
      ExpandStrategies(o.strategies.empty() ? std::vector<std::string>{"objects"} : o.strategies);
  const TextureRuns runs = NamingFlags(
      "--strategy", [&] { return RunTextureStrategies(problem, o.input, keys, o.strategies); });
  // A model's GPU objects know their texel's bytes; texture records files do not, and then
  // the title says the sizes are element counts.
  const std::string file = std::filesystem::path(o.input).filename().string();
  const Workload elements = TextureElementsWorkload(
      textures, problem.element_bytes > 0 ? fmt::format("{} ({} textures)", file, o.model.objects)
                                          : fmt::format("{} (sizes are element counts)", file));
  const std::vector<MapPlan> maps = TextureMaps(problem, runs);
  if (maps.empty()) throw UsageError("show: no plan to draw; choose objects/NAME");
  const std::size_t best = runs.best;
  if (!o.svg.empty()) WriteFileAtomically(o.svg, RenderSvg(elements, maps[best]));
  if (!o.html.empty()) WriteFileAtomically(o.html, RenderHtml(elements, maps, best));
  if (!o.svg.empty())
    fmt::print("wrote {} ({}, {} {})\n", o.svg, maps[best].key, WithThousands(maps[best].bytes),
               problem.element_bytes > 0 ? "B" : "elements");
  if (!o.html.empty()) fmt::print("wrote {} ({} plans)\n", o.html, maps.size());
  if (o.svg.empty() && o.html.empty()) fmt::print("{}", TextureRunsTable(o.input, problem, runs));
}

void RunShow(const ShowOptions& o) {
  Progress progress("memplan show", o.quiet);
  progress.Stage("loading");
  Workload workload = LoadInput(o.input, ToLoadOptions(o.model), o.model);
  RefuseUnsoundOfflinePlan(workload, o.input);
  if (workload.textures) return ShowTextures(o, workload);
  if (o.align) workload.problem.alignment = *o.align;
  MarkSplitStage(workload);
  const bool named = !o.strategies.empty();
  // GPU buffers (--objects) are drawn as the objects plans they are.
  const std::vector<std::string> single_keys =
      named ? ExpandStrategies(o.strategies)
            : (o.model.objects.empty() ? DefaultSingleKeys() : ExpandStrategies({"objects"}));
  const std::vector<std::string> keys = !o.html.empty() && !named ? DefaultHtmlKeys() : single_keys;
  progress.Stage("planning");
  const Runs runs = RunStrategies(workload, keys, {}, o.strategies);
  progress.Stage("drawing");

  std::vector<MapPlan> maps;
  std::optional<std::size_t> single;  // index in `maps` of the plan single views show
  for (const StrategyRun& run : runs.runs) {
    auto map = MapOfRun(run, workload.problem.alignment);
    if (!map) continue;
    const bool candidate =
        std::find(single_keys.begin(), single_keys.end(), run.Key()) != single_keys.end();
    if (candidate && (!single || map->bytes < maps[*single].bytes)) single = maps.size();
    maps.push_back(std::move(*map));
  }
  if (!single)
    throw UsageError("show: no plan to draw; choose an offsets/NAME or objects/NAME strategy");
  const MapPlan& plan = maps[*single];

  if (!o.svg.empty()) WriteFileAtomically(o.svg, RenderSvg(workload, plan));
  if (!o.html.empty()) WriteFileAtomically(o.html, RenderHtml(workload, maps, *single));
  progress.Finish();
  if (o.ascii) {
    fmt::print("{}", TflmMemoryPlanText(workload.problem, plan.offsets));
    return;
  }
  if (!o.svg.empty() || !o.html.empty()) {
    if (!o.svg.empty())
      fmt::print("wrote {} ({}, {} B)\n", o.svg, plan.key, WithThousands(plan.bytes));
    if (!o.html.empty()) fmt::print("wrote {} ({} plans)\n", o.html, maps.size());
    return;
  }
  fmt::print("{}\n", MapSummary(workload, plan));
  const Step steps = ComputeMapTotals(workload.problem).steps;
  if (steps > kAsciiStepsByDefault)
    fmt::print("(the map has {} steps, one line each; --ascii prints it)\n", steps);
  else
    fmt::print("{}", TflmMemoryPlanText(workload.problem, plan.offsets));
}

}  // namespace

void AddShowCommand(CLI::App& app) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* cmd = app.add_subcommand(
      "show", "Draw a plan: SVG memory map, HTML page with every plan, or TFLM's ASCII map");
  cmd->add_option("input", options->input, "records .json/.csv, model .tflite/.onnx, or zoo:NAME")
      ->required();
  cmd->add_option("-s,--strategy", options->strategies,
                  "offsets/NAME or objects/NAME to draw (default: offsets/best; for --html: "
                  "all); objects plans are drawn as one lane per object; with several, "
                  "pictures show the smallest and HTML all of them");
  AddAlignOption(*cmd, options->align);
  cmd->add_option("--svg", options->svg, "write the memory map as an SVG picture");
  cmd->add_option("--html", options->html,
                  "write a self-contained HTML page with a map per strategy and tooltips");
  cmd->add_flag("--ascii", options->ascii,
                "print TensorFlow Lite Micro's PrintMemoryPlan() text for the plan");
  AddModelFlags(*cmd, options->model);
  AddGpuObjectFlags(*cmd, options->model);
  AddQuietFlag(*cmd, options->quiet);
  cmd->callback([options] { RunShow(*options); });
}

}  // namespace memplan::cli
