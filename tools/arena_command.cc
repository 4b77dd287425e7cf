// memplan arena MODEL: the whole arena TensorFlow Lite Micro will need for a model on a
// target, in TFLM's own words (include/memplan/tflm_target.h, docs/tflm.md).
#include <fmt/format.h>

#include <iostream>

#include "memplan/error.h"
#include "memplan/tflm_arena_report.h"
#include "memplan/tflm_target.h"
#include "memplan/workload.h"
#include "tools/commands.h"
#include "tools/model_options.h"

namespace memplan::cli {

namespace {

struct ArenaOptions {
  std::string model;                  // the .tflite model
  ModelFlags model_flags;             // --dim, --shape
  std::string target = "host64";      // --target
  std::string kernels = "reference";  // --kernels: reference or cmsis-nn
  std::string format = "text";        // --format: text or json
  std::string offline = "auto";       // auto: the model's offline plan when it has one
};

void Run(const ArenaOptions& o) {
  const TargetAbi target = WithTflmKernels(TflmTargetNamed(o.target), TflmKernelsNamed(o.kernels));
  const Workload workload = LoadInput(o.model, ToLoadOptions(o.model_flags), o.model_flags);
  if (!workload.graph)
    throw UsageError(
        fmt::format("arena needs a .tflite model, not {} input '{}'", workload.kind, o.model));
  const Graph& graph = *workload.graph;
  // TFLM runs .tflite models; its kernels' memory depends on weights and options that
  // ONNX models and the zoo's graphs do not carry in TFLite's form.
  if (graph.format != "tflite")
    throw UsageError(fmt::format(
        "arena models TensorFlow Lite Micro, which runs .tflite models; '{}' is {}", o.model,
        graph.format == "onnx" ? "an ONNX model" : "a built-in graph without weights"));
  const TflmOpCheck check = CheckTflmOps(graph, target);
  if (!check.unsupported.empty()) throw InputError(TflmRefusalText(o.model, target, check));
  if (o.format == "text")
    std::cout << fmt::format(
                     "{}: TensorFlow Lite Micro arena on target {} ({})\n"
                     "TFLM commit {}, {} kernels, RecordingMicroInterpreter\n{}",
                     o.model, target.name, target.description, kTflmCommit,
                     TflmKernelsName(target.kernels), TflmOpNotesText(check))
              << std::flush;
  const TflmHeadPlan head = TflmHeadPlanFromRuntime(graph, target, o.offline != "ignore");
  const TflmArenaFigures figures = ModelTflmArena(graph, target, head);
  if (o.format == "json")
    std::cout << TflmArenaJson(o.model, figures).dump(2) << "\n";
  else
    std::cout << TflmArenaText(figures);
}

}  // namespace

void AddArenaCommand(CLI::App& app) {
  auto options = std::make_shared<ArenaOptions>();
  CLI::App* cmd = app.add_subcommand(
      "arena",
      "The whole arena TensorFlow Lite Micro needs for a model: PrintAllocations' lines, "
      "arena_used_bytes and the smallest tensor_arena_size, per target");
  cmd->add_option("model", options->model, "the .tflite model")->required();
  AddTargetOptions(*cmd, options->target, options->kernels,
                   "host64 (x86-64), arm32 (32-bit ARM Linux), or a Cortex-M core built with "
                   "arm-none-eabi: cortex-m0, cortex-m3, cortex-m4, cortex-m7, cortex-m33, "
                   "cortex-m55, cortex-m85");
  AddFormatOption(*cmd, options->format, {"text", "json"});
  cmd->add_option("--offline", options->offline,
                  "auto: use the model's offline plan when it has one; ignore")
      ->check(CLI::IsMember({"auto", "ignore"}));
  AddModelFlags(*cmd, options->model_flags, false);
  cmd->callback([options] { Run(*options); });
}

}  // namespace memplan::cli
