// memplan arena MODEL: the whole arena TensorFlow Lite Micro will need for a model on a
// target, in TFLM's own words (include/memplan/tflm_target.h, docs/tflm.md).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "memplan/error.h"
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

// Why TFLM also accepts a smaller persistent buffer, and which sizes.
std::string AcceptedPersistentNote(const TflmArenaFigures& f) {
  constexpr std::size_t kShown = 6;  // the JSON output lists them all
  const auto& accepted = f.two_buffer_persistent_accepted;
  std::string runs;
  for (std::size_t i = 0; i < accepted.size() && i < kShown; ++i)
    runs += fmt::format(", {}-{}", accepted[i].first, accepted[i].last + 15);
  if (accepted.size() > kShown)
    runs += fmt::format(", ... ({} runs in all; --format json lists them)", accepted.size());
  const char* why =
      f.target.kernels == TflmKernels::kCmsisNn
          ? "CMSIS-NN's kernels (and the reference float CONV_2D and DEPTHWISE_CONV_2D) do not "
            "check their per-channel arrays and kernel sums; one not granted is written "
            "through a null pointer, which only a board with writable memory at address 0 "
            "survives"
          : "float CONV_2D and DEPTHWISE_CONV_2D do not check their per-channel arrays, which "
            "float never uses, and go on without them";
  return fmt::format(
      "  (TFLM also accepts a persistent buffer of {} bytes: {}; {} is the size where every "
      "allocation is granted; accepted below it: {})\n",
      f.two_buffer_persistent, why, f.two_buffer_persistent_safe, runs.substr(2));
}

void PrintText(const TflmArenaFigures& f) {
  std::string s = TflmPrintAllocations(f);
  // Every figure of a model with an op whose memory is unknown is a lower bound, said on
  // the line of the figure (a pasted line keeps its warning).
  const char* bound = f.lower_bound() ? " (lower bound)" : "";
  const char* paste_note =
      f.lower_bound() ? "  // LOWER BOUND: TFLM needs more (an op's memory is unknown)" : "";
  s += fmt::format("arena_used_bytes() {}{}\n", f.arena_used, bound);
  s += fmt::format(
      "smallest tensor_arena_size that works (RecordingMicroInterpreter): {}{} (temporary "
      "allocations while ops are prepared included)\n",
      f.minimal_arena, bound);
  s += fmt::format("constexpr int kTensorArenaSize = {};{}\n", f.minimal_arena, paste_note);
  s += fmt::format("with a plain MicroInterpreter (no recording): {}{}\n", f.minimal_arena_plain,
                   bound);
  s += fmt::format("constexpr int kTensorArenaSize = {};{}\n", f.minimal_arena_plain, paste_note);
  s += fmt::format("two buffers: persistent {} bytes, non-persistent {} bytes{}\n",
                   f.two_buffer_persistent_safe, f.two_buffer_non_persistent, bound);
  if (f.two_buffer_persistent < f.two_buffer_persistent_safe) s += AcceptedPersistentNote(f);
  std::cout << s;
}

// The ops whose memory is not modelled, said up front: the figures are then lower bounds.
std::string OpNotes(const TflmOpCheck& check) {
  std::string s;
  for (const std::string& line : GroupTflmOpNotes(check.unmodelled))
    s += fmt::format("LOWER BOUND: {}; every figure below is at least this much\n", line);
  return s;
}

// A model TFLM will refuse: every op and why, and no figure.
[[noreturn]] void Refuse(const ArenaOptions& o, const TargetAbi& target, const TflmOpCheck& check) {
  std::string s = fmt::format(
      "{}: TensorFlow Lite Micro ({} kernels, target {}) will refuse this model: "
      "AllocateTensors fails, so no arena size is given\n",
      o.model, TflmKernelsName(target.kernels), target.name);
  for (const TflmOpNote& n : check.unsupported)
    s += fmt::format("  op {}{} ({}): {}\n", n.subgraph ? fmt::format("{}:", n.subgraph) : "", n.op,
                     n.type, n.why);
  throw InputError(s.substr(0, s.size() - 1));
}

void PrintJson(const ArenaOptions& o, const TflmArenaFigures& f) {
  nlohmann::ordered_json j;
  j["model"] = o.model;
  j["target"] = f.target.name;
  j["kernels"] = std::string(TflmKernelsName(f.target.kernels));
  j["tflm_commit"] = std::string(kTflmCommit);
  j["head"] = f.head;
  j["tail"] = f.tail;
  j["arena_used_bytes"] = f.arena_used;
  j["minimal_arena_bytes"] = f.minimal_arena;
  j["minimal_arena_bytes_micro_interpreter"] = f.minimal_arena_plain;
  nlohmann::ordered_json accepted = nlohmann::ordered_json::array();
  for (const TflmSizeRange& r : f.two_buffer_persistent_accepted)
    accepted.push_back({r.first, r.last + 15});
  j["two_buffers"] = {{"persistent", f.two_buffer_persistent},
                      {"persistent_safe", f.two_buffer_persistent_safe},
                      {"persistent_accepted", accepted},
                      {"non_persistent", f.two_buffer_non_persistent}};
  j["lower_bound"] = f.lower_bound();
  nlohmann::ordered_json cats = nlohmann::ordered_json::object();
  for (const TflmCategory& c : f.categories)
    cats[c.name] = {{"used", c.used}, {"requested", c.requested}, {"count", c.count}};
  j["categories"] = cats;
  auto notes = [](const std::vector<TflmOpNote>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const TflmOpNote& n : v)
      a.push_back({{"subgraph", n.subgraph}, {"op", n.op}, {"type", n.type}, {"why", n.why}});
    return a;
  };
  j["unsupported_ops"] = notes(f.unsupported);
  j["unmodelled_ops"] = notes(f.unmodelled);
  std::cout << j.dump(2) << "\n";
}

void Run(const ArenaOptions& o) {
  const TargetAbi target = WithTflmKernels(TflmTargetNamed(o.target), TflmKernelsNamed(o.kernels));
  const Workload workload = LoadWorkload(o.model, ToLoadOptions(o.model_flags));
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
  if (!check.unsupported.empty()) Refuse(o, target, check);
  if (o.format == "text")
    std::cout << fmt::format(
                     "{}: TensorFlow Lite Micro arena on target {} ({})\n"
                     "TFLM commit {}, {} kernels, RecordingMicroInterpreter\n{}",
                     o.model, target.name, target.description, kTflmCommit,
                     TflmKernelsName(target.kernels), OpNotes(check))
              << std::flush;
  const TflmHeadPlan head = TflmHeadPlanFromRuntime(graph, target, o.offline != "ignore");
  const TflmArenaFigures figures = ModelTflmArena(graph, target, head);
  if (o.format == "json")
    PrintJson(o, figures);
  else
    PrintText(figures);
}

}  // namespace

void AddArenaCommand(CLI::App& app) {
  auto options = std::make_shared<ArenaOptions>();
  CLI::App* cmd = app.add_subcommand(
      "arena",
      "The whole arena TensorFlow Lite Micro needs for a model: PrintAllocations' lines, "
      "arena_used_bytes and the smallest tensor_arena_size, per target");
  cmd->add_option("model", options->model, "the .tflite model")->required();
  cmd->add_option("-t,--target", options->target,
                  "host64 (x86-64), arm32 (32-bit ARM Linux), or a Cortex-M core built with "
                  "arm-none-eabi: cortex-m0, cortex-m3, cortex-m4, cortex-m7, cortex-m33, "
                  "cortex-m55, cortex-m85")
      ->check(CLI::IsMember(TflmTargetNames()));
  cmd->add_option("--kernels", options->kernels,
                  "the kernels TFLM is built with: reference, or cmsis-nn "
                  "(OPTIMIZED_KERNEL_DIR=cmsis_nn; Cortex-M targets)")
      ->check(CLI::IsMember({"reference", "cmsis-nn"}));
  cmd->add_option("-f,--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--offline", options->offline,
                  "auto: use the model's offline plan when it has one; ignore")
      ->check(CLI::IsMember({"auto", "ignore"}));
  AddModelFlags(*cmd, options->model_flags, false);
  cmd->callback([options] { Run(*options); });
}

}  // namespace memplan::cli
