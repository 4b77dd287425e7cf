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
  std::string model;              // the .tflite model
  ModelFlags model_flags;         // --dim, --shape
  std::string target = "host64";  // --target
  std::string format = "text";    // --format: text or json
  std::string offline = "auto";   // auto: the model's offline plan when it has one
};

void PrintText(const TflmArenaFigures& f) {
  std::string s = TflmPrintAllocations(f);
  const char* bound = f.lower_bound() ? " (lower bound)" : "";
  s += fmt::format("arena_used_bytes() {}{}\n", f.arena_used, bound);
  s += fmt::format(
      "smallest tensor_arena_size that works (RecordingMicroInterpreter): {}{} (temporary "
      "allocations while ops are prepared included)\n",
      f.minimal_arena, bound);
  s += fmt::format("constexpr int kTensorArenaSize = {};{}\n", f.minimal_arena,
                   f.lower_bound() ? "  // lower bound: see above" : "");
  s += fmt::format(
      "with a plain MicroInterpreter (no recording): {}{} (constexpr int kTensorArenaSize = "
      "{};)\n",
      f.minimal_arena_plain, bound, f.minimal_arena_plain);
  if (f.two_buffer_persistent > 0)
    s += fmt::format("two buffers: persistent {} bytes, non-persistent {} bytes{}\n",
                     f.two_buffer_persistent, f.two_buffer_non_persistent, bound);
  std::cout << s;
}

// The ops said up front, before any figure: those the reference kernels refuse, those
// whose memory is not modelled (the figures are then lower bounds).
std::string OpNotes(const TflmOpCheck& check) {
  std::string s;
  for (const std::string& line : GroupTflmOpNotes(check.unsupported))
    s += fmt::format("UNSUPPORTED by TFLM's reference kernels: {}\n", line);
  for (const std::string& line : GroupTflmOpNotes(check.unmodelled))
    s += fmt::format("LOWER BOUND: {}; every figure below is at least this much\n", line);
  return s;
}

void PrintJson(const ArenaOptions& o, const TflmArenaFigures& f) {
  nlohmann::ordered_json j;
  j["model"] = o.model;
  j["target"] = f.target.name;
  j["tflm_commit"] = std::string(kTflmCommit);
  j["head"] = f.head;
  j["tail"] = f.tail;
  j["arena_used_bytes"] = f.arena_used;
  j["minimal_arena_bytes"] = f.minimal_arena;
  j["minimal_arena_bytes_micro_interpreter"] = f.minimal_arena_plain;
  j["two_buffers"] = {{"persistent", f.two_buffer_persistent},
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
  const TargetAbi target = TflmTargetNamed(o.target);
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
  if (o.format == "text")
    std::cout << fmt::format(
                     "{}: TensorFlow Lite Micro arena on target {} ({})\n"
                     "TFLM commit {}, reference kernels, RecordingMicroInterpreter\n{}",
                     o.model, target.name, target.description, kTflmCommit, OpNotes(check))
              << std::flush;
  const TflmHeadPlan head = TflmHeadPlanFromRuntime(graph, o.offline != "ignore");
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
  cmd->add_option("-t,--target", options->target, "host64 (x86-64) or arm32 (Cortex-M)")
      ->check(CLI::IsMember({"host64", "arm32"}));
  cmd->add_option("-f,--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--offline", options->offline,
                  "auto: use the model's offline plan when it has one; ignore")
      ->check(CLI::IsMember({"auto", "ignore"}));
  AddModelFlags(*cmd, options->model_flags, false);
  cmd->callback([options] { Run(*options); });
}

}  // namespace memplan::cli
