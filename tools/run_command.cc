// memplan run MODEL: loads the model into a TFLM-style arena, plans it, invokes it with
// the verification kernels, compares the outputs with a naive layout (the library's
// include/memplan/checked_run.h) and prints the arena recording.
#include <fmt/format.h>

#include "memplan/checked_run.h"
#include "memplan/error.h"
#include "memplan/recording.h"
#include "memplan/tflm_target.h"
#include "memplan/workload.h"
#include "tools/commands.h"
#include "tools/model_options.h"
#include "tools/progress.h"

namespace memplan::cli {

namespace {

struct RunOptions {
  std::string model;
  ModelFlags model_flags;
  std::string strategy = "tflm_greedy";
  std::optional<Bytes> arena_size;
  std::optional<Bytes> persistent_size;
  std::size_t invokes = 1;
  std::vector<std::string> preallocate;
  std::string offline = "auto";
  std::string format = "text";
  std::string inplace = "none";       // --inplace: none, tflite, tflm, all
  bool reorder = false;               // --reorder
  bool quiet = false;                 // no progress on stderr
  std::vector<std::string> resize;    // --resize NAME=N1,N2,...: a sequence of shapes
  std::string target = "host64";      // --target: whose kernels' scratch requests
  std::string kernels = "reference";  // --kernels: reference or cmsis-nn
};

OfflinePlanUse OfflineUse(const std::string& name) {
  if (name == "ignore") return OfflinePlanUse::kIgnore;
  if (name == "require") return OfflinePlanUse::kRequire;
  return OfflinePlanUse::kWhenPresent;
}

std::string ShapesText(const ResizeStepReport& r) {
  std::string out;
  for (const auto& [name, shape] : r.input_shapes)
    out += fmt::format("{}{}{}", out.empty() ? "" : " ", name, ShapeText(shape));
  return out;
}

// --resize: the model through a sequence of shapes with the CPU arena planner
// (docs/cpu-planner.md), checked against the naive layout after every step.
void RunResize(const RunOptions& o) {
  std::string strategy = o.strategy == "tflm_greedy" ? "best" : o.strategy;
  if (strategy.starts_with("offsets/")) strategy = strategy.substr(8);
  const std::vector<ResizeStep> resize = ResizeSteps(o.resize);
  const LoadOptions load = ToLoadOptions(o.model_flags);
  Progress progress("memplan run --resize", o.quiet);
  const std::vector<ResizeStepReport> steps = NamingFlags("--resize", [&] {
    return RunResizeSteps(o.model, load, resize, strategy, o.invokes,
                          [&](const std::string& stage) { progress.Stage(stage); });
  });
  progress.Finish();

  bool all_match = true;
  for (const ResizeStepReport& r : steps) all_match = all_match && r.outputs_match_naive;
  if (o.format == "json") {
    fmt::print("{}\n", ResizeStepsJson(o.model, resize, strategy, steps).dump(2));
  } else {
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const ResizeStepReport& r = steps[k];
      const std::string what =
          r.cache_hit ? "a cached layout"
          : r.scaled  ? fmt::format("the layout before, scaled ({} tensors)", r.replanned_tensors)
          : r.replanned_tensors == 0
              ? "nothing re-planned"
              : fmt::format("re-planned {} of {} tensors from node {}", r.replanned_tensors,
                            r.arena_tensors, r.first_replanned_node);
      fmt::print(
          "[memplan] {}: {}\n  arena {} B (tflite_cpu {} B, lower bound {} B); {} in {:.1f} us "
          "(tflite_cpu {:.1f} us, full plan {:.1f} us); outputs {} the naive layout{}\n",
          resize[k].name, ShapesText(r), r.arena_bytes, r.tflite_cpu_arena_bytes,
          r.lower_bound_bytes, what, r.replan_us, r.tflite_cpu_us, r.full_plan_us,
          r.outputs_match_naive ? "match" : "DIFFER FROM",
          r.outputs_match_naive ? "" : " (" + r.difference + ")");
    }
  }
  if (!all_match)
    throw InternalError(
        fmt::format("{}: after a resize the planned arena's outputs differ from "
                    "the naive layout",
                    o.model));
}

void Run(const RunOptions& o) {
  if (!o.resize.empty()) {
    if (o.reorder || o.inplace != "none" || !o.preallocate.empty() || o.arena_size ||
        o.persistent_size)
      throw UsageError(
          "--resize plans with the CPU arena planner: it takes --dim, --strategy, --invokes "
          "and --format, not --reorder, --inplace, --preallocate or arena sizes");
    RunResize(o);
    return;
  }
  Progress progress("memplan run", o.quiet);
  progress.Stage("loading the model");
  const Workload workload = LoadInput(o.model, ToLoadOptions(o.model_flags), o.model_flags);
  CheckedRunRequest request;
  request.strategy = o.strategy.starts_with("offsets/") ? o.strategy.substr(8) : o.strategy;
  request.arena_size = o.arena_size;
  request.persistent_size = o.persistent_size;
  request.invokes = o.invokes;
  request.preallocate = o.preallocate;
  request.offline = OfflineUse(o.offline);
  request.inplace = o.inplace;
  request.reorder = o.reorder;
  request.target = o.target;
  request.kernels = o.kernels;
  request.stage = [&](const std::string& stage) { progress.Stage(stage); };
  const CheckedRun run = NamingFlags("--preallocate, --reorder, --offline",
                                     [&] { return RunChecked(workload, request); });
  progress.Finish();
  const bool match = run.difference.empty();
  if (o.format == "json") {
    fmt::print("{}\n", CheckedRunJson(o.model, run).dump(2));
  } else {
    fmt::print("{}", PrintAllocations(run.arena()));
    fmt::print("{}", PrintRuntimeSummary(run.arena(), run.interpreter()));
    if (o.reorder)
      fmt::print("[memplan] Operator order: {}\n", run.order_changed
                                                       ? "reordered to keep fewer bytes alive"
                                                       : "the model's own (no "
                                                         "better order found)");
    fmt::print(
        "[memplan] Arena {} bytes (this model needs {}); {} invocation{}: outputs {} the "
        "naive layout{}\n",
        run.arena().capacity(), run.need.total, o.invokes, o.invokes == 1 ? "" : "s",
        match ? "match" : "DIFFER FROM", match ? "" : " (" + run.difference + ")");
  }
  if (!match)
    throw InternalError(
        fmt::format("{}: the planned arena's outputs differ from the naive "
                    "layout: {}",
                    o.model, run.difference));
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Load a model into a TFLM-style arena, plan, invoke it with verification kernels "
      "and compare with a naive layout");
  cmd->add_option("model", options->model, "model .tflite/.onnx or zoo:NAME")->required();
  AddModelFlags(*cmd, options->model_flags, false);
  cmd->add_option("-s,--strategy", options->strategy,
                  "offsets strategy (offsets/NAME or NAME; default tflm_greedy)");
  cmd->add_option("--arena-size", options->arena_size,
                  "arena bytes (default: exactly what the model needs)")
      ->check(CLI::Range(Bytes{0}, Bytes{1} << 44));
  cmd->add_option("--persistent-size", options->persistent_size,
                  "two buffers: the persistent (tail) buffer's bytes; --arena-size is then the "
                  "non-persistent one")
      ->check(CLI::Range(Bytes{0}, Bytes{1} << 44));
  cmd->add_option("--invokes", options->invokes, "invocations (default 1)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  cmd->add_option("--preallocate", options->preallocate,
                  "keep this tensor (name or index) in an application buffer; repeatable");
  cmd->add_option("--offline", options->offline,
                  "OfflineMemoryAllocation metadata: auto (use when present), ignore, require")
      ->check(CLI::IsMember({"auto", "ignore", "require"}));
  AddFormatOption(*cmd, options->format, {"text", "json"});
  AddInplaceOption(*cmd, options->inplace,
                   "outputs share a dying input's memory by rule set: none, tflite, tflm, all "
                   "(memplan rules); the kernels honour it");
  cmd->add_flag("--reorder", options->reorder,
                "run the ops in the order that keeps the fewest bytes alive (with --inplace "
                "rules)");
  cmd->add_option(
      "--resize", options->resize,
      "NAME=N1,N2,...: run the model with its dimension NAME (as --dim names it) at "
      "each size in turn, planned by the CPU arena planner (memplan mode, --strategy default best; "
      "docs/cpu-planner.md); repeat to move several dimensions together; other open "
      "dimensions bound with --dim");
  AddQuietFlag(*cmd, options->quiet);
  AddTargetOptions(*cmd, options->target, options->kernels,
                   "the device whose TFLM kernels' scratch requests the kernels make (as arena's)");
  cmd->callback([options] { Run(*options); });
}

}  // namespace memplan::cli
