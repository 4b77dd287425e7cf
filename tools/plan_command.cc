// memplan plan INPUT...: plans each input with the selected strategies and reports.
#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "tools/commands.h"
#include "tools/exact_cli.h"
#include "tools/model_options.h"
#include "tools/plan_output.h"
#include "tools/variants.h"

namespace memplan::cli {

namespace {

struct PlanOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> strategies;
  std::optional<Bytes> align;
  std::string format = "table";
  std::string out;
  ModelFlags model;               // how models become records
  std::optional<Bytes> capacity;  // decision mode of the exact solver
  double time_limit_s = 10;       // budget of the exact solver
  bool quiet = false;             // no progress on stderr
  VariantOptions variants;        // --inplace, --reorder
};

void RunPlan(const PlanOptions& o) {
  const auto keys = ExpandStrategies(o.strategies);
  if (!o.out.empty() && o.inputs.size() != 1)
    throw UsageError("--out writes one plan: give exactly one input");
  const LoadOptions load = ToLoadOptions(o.model);
  const ExactOptions exact = MakeExactOptions(o.time_limit_s, o.quiet);
  if (o.capacity) {
    if (keys != std::vector<std::string>{"offsets/exact"})
      throw UsageError("--capacity asks the exact solver: use it with --strategy offsets/exact");
    for (const std::string& input : o.inputs) {
      Workload workload = LoadWorkload(input, load);
      if (o.align) workload.problem.alignment = *o.align;
      RunDecision(workload, *o.capacity, exact, o.format, o.out);
    }
    return;
  }
  nlohmann::ordered_json batch = nlohmann::ordered_json::array();
  std::string text;
  for (std::size_t i = 0; i < o.inputs.size(); ++i) {
    Workload workload = LoadWorkload(o.inputs[i], load);
    if (o.align) workload.problem.alignment = *o.align;
    Runs runs = RunStrategies(workload, keys, exact);
    VariantOptions variant_options = o.variants;
    variant_options.intermediates_only = load.intermediates_only;
    const Variants variants = BuildVariants(workload, variant_options);
    RunVariants(workload, variants, keys, exact, runs);
    if (o.format == "json") {
      batch.push_back(RunsJson(workload, runs));
      AddVariantBounds(variants, batch.back());
    } else if (o.format == "csv") {
      text += RunsCsv(workload, runs, i == 0);
    } else {
      text += (i ? "\n" : "") + RunsTable(workload, runs) + VariantNote(variants);
    }
    if (!o.out.empty() && !runs.runs.empty()) {
      const StrategyRun& best = runs.runs[runs.best];
      const Variant* variant = VariantOf(variants, best);
      const auto file =
          variant ? VariantPlanFileJson(workload, *variant, best) : PlanFileJson(workload, best);
      WriteFileAtomically(o.out, file.dump(2) + "\n");
    }
  }
  if (o.format == "json")
    fmt::print("{}\n", (batch.size() == 1 ? batch[0] : batch).dump(2));
  else
    fmt::print("{}", text);
}

}  // namespace

void AddPlanCommand(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd =
      app.add_subcommand("plan", "Plan memory for records or a model with one or more strategies");
  cmd->add_option("inputs", options->inputs,
                  "records .json/.csv, model .tflite/.onnx, or zoo:NAME (several for a batch)")
      ->required();
  cmd->add_option("-s,--strategy", options->strategies,
                  "all (default), offsets, or offsets/NAME; repeatable");
  cmd->add_option("--align", options->align, "alignment of every offset in bytes")
      ->check(CLI::Range(Bytes{1}, Bytes{1} << 30));
  cmd->add_option("-f,--format", options->format, "table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("-o,--out", options->out, "write the best (or the one chosen) plan as JSON");
  AddModelFlags(*cmd, options->model);
  cmd->add_option("--capacity", options->capacity,
                  "decision mode: does the plan fit this many bytes? (offsets/exact)");
  cmd->add_option("--time-limit", options->time_limit_s, "seconds for the exact solver (10)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_flag("-q,--quiet", options->quiet, "no progress on stderr");
  cmd->add_option("--inplace", options->variants.inplace,
                  "also plan with outputs sharing a dying input's memory, by the rules of "
                  "tflite, tflm or all (memplan rules SET lists them); models only")
      ->check(CLI::IsMember({"none", "tflite", "tflm", "all"}));
  cmd->add_flag("--reorder", options->variants.reorder,
                "also plan the operator order that keeps the fewest bytes alive (with --inplace "
                "rules when given); models only");
  cmd->callback([options] { RunPlan(*options); });
}

}  // namespace memplan::cli
