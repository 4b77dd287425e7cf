// memplan plan INPUT...: plans each input with the selected strategies and reports.
#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "memplan/error.h"
#include "memplan/offline_check.h"
#include "memplan/plan_report.h"
#include "memplan/records_io.h"
#include "memplan/table.h"
#include "memplan/texture_runs.h"
#include "tools/batch_inputs.h"
#include "tools/commands.h"
#include "tools/exact_cli.h"
#include "tools/model_options.h"
#include "tools/progress.h"

namespace memplan::cli {

namespace {

struct PlanOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> strategies;
  std::optional<Bytes> align;
  std::string format = "table";
  std::string out;
  ModelFlags model;                 // how models become records
  std::optional<Bytes> capacity;    // decision mode of the exact solver
  ExactFlags exact;                 // --time-limit, --probe-limit, --threads
  bool quiet = false;               // no progress on stderr
  VariantOptions variants;          // --inplace, --reorder
  std::vector<std::string> resize;  // --resize NAME=N1,N2,...: the model at each size
};

// One row per input of a batch in the summary under the per-input tables.
struct BatchRow {
  std::string input;  // as named
  bool ok = false;    // planned (else it failed; the error is on stderr)
  std::size_t tensors = 0;
  std::string best;    // "offsets/best"; empty when no strategy gave a plan
  Bytes bytes = 0;     // of the best plan
  double ratio = 1.0;  // bytes over the offsets lower bound
};

BatchRow RowOf(const std::string& input, const Workload& workload, const Runs& runs) {
  BatchRow row;
  row.input = input;
  row.ok = true;
  row.tensors = workload.problem.size();
  if (runs.runs.empty()) return row;
  const StrategyRun& best = runs.runs[runs.best];
  row.best = best.mode + "/" + best.Label();
  row.bytes = best.bytes;
  if (runs.lower_bound_bytes > 0)
    row.ratio = static_cast<double>(best.bytes) / static_cast<double>(runs.lower_bound_bytes);
  return row;
}

std::string BatchSummary(const std::vector<BatchRow>& rows, std::size_t failed) {
  std::vector<std::vector<std::string>> cells;
  for (const BatchRow& row : rows)
    cells.push_back(row.ok
                        ? std::vector<std::string>{row.input, WithThousands(row.tensors), row.best,
                                                   WithThousands(row.bytes),
                                                   fmt::format("{:.3f}", row.ratio)}
                        : std::vector<std::string>{row.input, "", "failed (see stderr)", "", ""});
  std::string out = fmt::format("\nbatch: {} input{}, {} planned", rows.size(),
                                rows.size() == 1 ? "" : "s", rows.size() - failed);
  if (failed > 0) out += fmt::format(", {} failed", failed);
  out += "\n";
  return out +
         RenderTable({{"input"}, {"tensors", true}, {"best"}, {"bytes", true}, {"× bound", true}},
                     cells);
}

// Texture or shape records: the objects strategies that plan sizes with dimensions.
BatchRow PlanTextures(const PlanOptions& o, const std::vector<std::string>& keys,
                      const Workload& workload, const std::string& input, bool first,
                      nlohmann::ordered_json& json, std::string& text) {
  const TextureProblem& problem = *workload.textures;
  if (o.align) throw UsageError(fmt::format("{}: --align applies to sizes in bytes", input));
  if (o.variants.inplace != "none" || o.variants.reorder)
    throw UsageError(fmt::format("{}: --inplace and --reorder apply to models", input));
  const TextureRuns runs = NamingFlags(
      "--strategy", [&] { return RunTextureStrategies(problem, input, keys, o.strategies); });
  if (o.format == "json") {
    json = TextureRunsJson(input, problem, runs);
    if (!workload.notes.empty()) json["notes"] = workload.notes;
  } else if (o.format == "csv") {
    text = TextureRunsCsv(input, runs, first);
  } else {
    text = (first ? "" : "\n") + TextureRunsTable(input, problem, runs);
    for (const std::string& note : workload.notes) text += note + "\n";
  }
  if (!o.out.empty() && !runs.runs.empty())
    WriteFileAtomically(o.out, TexturePlanFileJson(problem, runs.runs[runs.best]).dump(2) + "\n");
  BatchRow row;
  row.input = input;
  row.ok = true;
  row.tensors = problem.size();
  if (!runs.runs.empty()) {
    row.best = "objects/" + runs.runs[runs.best].strategy;
    row.bytes = runs.runs[runs.best].plan.total_elements *
                std::max<std::uint64_t>(problem.element_bytes, 1);
  }
  return row;
}

// The inputs of one call and how each is loaded: --resize makes the one model a batch of
// its sizes, each loaded with that step's --dim bindings and labelled with them.
struct PlanInputs {
  BatchInputs batch;
  LoadOptions load;
  std::vector<ResizeStep> steps;  // --resize: one per input of the batch

  explicit PlanInputs(const PlanOptions& o) : batch(ExpandInputs(o.inputs)) {
    load = ToLoadOptions(o.model);
    if (o.resize.empty()) return;
    if (batch.batch) throw UsageError("--resize plans one model at each size: give one model");
    steps = ResizeSteps(o.resize);
    batch.inputs.assign(steps.size(), batch.inputs[0]);
    batch.batch = true;
  }

  std::string Label(std::size_t i) const {
    return steps.empty() ? batch.inputs[i] : fmt::format("{} {}", batch.inputs[i], steps[i].name);
  }

  Workload Load(std::size_t i, const ModelFlags& flags) const {
    const LoadOptions step = steps.empty() ? load : WithStepBindings(load, steps[i]);
    Workload workload = LoadInput(batch.inputs[i], step, flags);
    if (steps.empty()) return workload;
    NamingFlags("--resize", [&] { CheckResizeStepBinds(workload, steps[i]); });
    workload.label = Label(i);
    return workload;
  }
};

void RunPlan(const PlanOptions& o) {
  // GPU objects are planned by the objects strategies unless others are named.
  const auto keys = ExpandStrategies(o.strategies.empty() && !o.model.objects.empty()
                                         ? std::vector<std::string>{"objects"}
                                         : o.strategies);
  const PlanInputs in(o);
  const BatchInputs& batch = in.batch;
  if (!o.out.empty() && batch.batch)
    throw UsageError("--out writes one plan: give exactly one input");
  const LoadOptions& load = in.load;
  const auto label = [&](std::size_t i) { return in.Label(i); };
  const auto load_workload = [&](std::size_t i) { return in.Load(i, o.model); };
  const ExactOptions exact = MakeExactOptions(o.exact, o.quiet);
  // The exact solver draws its own progress line: while it runs, the stage is empty
  // and ours stays off the terminal.
  Progress progress("memplan plan", o.quiet);
  const std::size_t n = batch.inputs.size();
  std::size_t failed = 0;
  bool misused = false;    // a flag did not apply to some input (--inplace on records)
  std::string last_error;  // the message of the last input that failed
  // One input: errors end the command. A batch: reported, the others still planned.
  auto each = [&](std::size_t i, const std::function<void()>& work) {
    const std::string input = label(i);
    progress.Stage(fmt::format("[{}/{}] {}", i + 1, n, input));
    const auto fail = [&](const std::exception& e) {
      ++failed;
      last_error = MessageWithFlags(e);
      progress.Message(fmt::format("memplan: {}", last_error));
    };
    try {
      work();
    } catch (const InputError& e) {
      if (!batch.batch) throw;
      fail(e);
      return false;
    } catch (const UsageError& e) {
      if (!batch.batch) throw;
      misused = true;
      fail(e);
      return false;
    }
    if (batch.batch) progress.Done(fmt::format("[{}/{}] {}", i + 1, n, input));
    return true;
  };
  if (o.capacity) {
    if (keys != std::vector<std::string>{"offsets/exact"})
      throw UsageError("--capacity asks the exact solver: use it with --strategy offsets/exact");
    nlohmann::ordered_json json = nlohmann::ordered_json::array();
    std::string text;
    for (std::size_t i = 0; i < n; ++i) {
      const bool ok = each(i, [&] {
        Workload workload = load_workload(i);
        RefuseUnsoundOfflinePlan(workload, batch.inputs[i]);
        if (workload.textures)
          throw UsageError(
              fmt::format("{}: --capacity asks for one arena of bytes; texture "
                          "records are planned as objects",
                          batch.inputs[i]));
        if (o.align) workload.problem.alignment = *o.align;
        CapacityDecision d = DecideCapacity(workload, *o.capacity, exact);
        if (d.run && !o.out.empty())
          WriteFileAtomically(o.out, PlanFileJson(workload, *d.run).dump(2) + "\n");
        json.push_back(std::move(d.json));
        text += d.line;
      });
      if (!ok) json.push_back({{"input", label(i)}, {"error", last_error}});
    }
    progress.Finish();
    if (o.format == "json")
      fmt::print("{}\n", (batch.batch ? json : json[0]).dump(2));
    else
      fmt::print("{}", text);
  } else {
    nlohmann::ordered_json json = nlohmann::ordered_json::array();
    std::string text;
    std::vector<BatchRow> rows;
    for (std::size_t i = 0; i < n; ++i) {
      BatchRow row;
      row.input = label(i);
      nlohmann::ordered_json j;
      std::string t;
      const bool ok = each(i, [&] {
        Workload workload = load_workload(i);
        RefuseUnsoundOfflinePlan(workload, batch.inputs[i]);
        if (workload.textures) {
          row = PlanTextures(o, keys, workload, label(i), text.empty(), j, t);
          return;
        }
        if (o.align) workload.problem.alignment = *o.align;
        const std::string stage = fmt::format("[{}/{}] {}", i + 1, n, label(i));
        Runs runs = RunStrategies(workload, keys, exact, o.strategies, [&](const std::string& key) {
          progress.Stage(key == "offsets/exact" ? std::string()
                                                : fmt::format("{}: {}", stage, key));
        });
        progress.Stage(stage);
        VariantOptions variant_options = o.variants;
        variant_options.intermediates_only = load.intermediates_only;
        const Variants variants = NamingFlags(
            "--inplace, --reorder", [&] { return BuildVariants(workload, variant_options); });
        RunVariants(workload, variants, keys, exact, runs);
        if (o.format == "json") {
          j = RunsJson(workload, runs);
          AddVariantBounds(variants, j);
        } else if (o.format == "csv") {
          t = RunsCsv(workload, runs, text.empty());
        } else {
          t = (text.empty() ? "" : "\n") + RunsTable(workload, runs) + VariantNote(variants);
        }
        if (!o.out.empty() && !runs.runs.empty()) {
          const StrategyRun& best = runs.runs[runs.best];
          const Variant* variant = VariantOf(variants, best);
          const auto file = variant ? VariantPlanFileJson(workload, *variant, best)
                                    : PlanFileJson(workload, best);
          WriteFileAtomically(o.out, file.dump(2) + "\n");
        }
        row = RowOf(label(i), workload, runs);
      });
      if (!ok) j = {{"input", label(i)}, {"error", last_error}};
      json.push_back(std::move(j));
      text += t;
      rows.push_back(std::move(row));
    }
    progress.Finish();
    if (o.format == "json")
      fmt::print("{}\n", (batch.batch ? json : json[0]).dump(2));
    else if (o.format == "table" && batch.batch)
      fmt::print("{}{}", text, BatchSummary(rows, failed));
    else
      fmt::print("{}", text);
  }
  progress.Finish();
  const std::string summary = fmt::format("{} of {} inputs failed", failed, n);
  if (misused) throw UsageError(summary);
  if (failed > 0) throw InputError(summary);
}

}  // namespace

void AddPlanCommand(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd =
      app.add_subcommand("plan", "Plan memory for records or a model with one or more strategies");
  cmd->add_option("inputs", options->inputs,
                  "records .json/.csv, model .tflite/.onnx, zoo:NAME, or a folder of them "
                  "(several or a folder: a batch)")
      ->required();
  cmd->add_option("-s,--strategy", options->strategies,
                  "all (default), offsets, or offsets/NAME; repeatable");
  AddAlignOption(*cmd, options->align);
  AddFormatOption(*cmd, options->format, {"table", "json", "csv"});
  cmd->add_option("-o,--out", options->out, "write the best (or the one chosen) plan as JSON");
  AddModelFlags(*cmd, options->model);
  cmd->add_option("--resize", options->resize,
                  "NAME=N1,N2,...: plan the model with its dimension NAME (as --dim names it) "
                  "at each size in turn, as a batch; repeat to move several together")
      ->type_name("NAME=N1,N2,...");
  AddGpuObjectFlags(*cmd, options->model);
  cmd->add_option("--capacity", options->capacity,
                  "decision mode: does the plan fit this many bytes? (offsets/exact)");
  AddExactFlags(*cmd, options->exact);
  AddQuietFlag(*cmd, options->quiet);
  AddInplaceOption(*cmd, options->variants.inplace,
                   "also plan with outputs sharing a dying input's memory, by the rules of "
                   "tflite, tflm or all (memplan rules SET lists them); models only");
  cmd->add_flag("--reorder", options->variants.reorder,
                "also plan the operator order that keeps the fewest bytes alive (with --inplace "
                "rules when given); models only");
  cmd->callback([options] { RunPlan(*options); });
}

}  // namespace memplan::cli
