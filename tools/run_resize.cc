// memplan run --resize: binds a named open dimension to each value in turn, lets the reader
// propagate the shapes, plans through one CpuArenaPlanner kept across the steps, runs the
// verification kernels and compares with the naive layout after every step.
#include "tools/run_resize.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "memplan/cpu_runtime.h"
#include "memplan/error.h"
#include "memplan/graph.h"
#include "memplan/runtime_check.h"
#include "memplan/workload.h"
#include "tools/progress.h"

namespace memplan::cli {

namespace {

struct ResizeSpec {
  std::string name;
  std::vector<std::int64_t> values;
};

ResizeSpec ParseResize(const std::string& text) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(fmt::format("--resize {}: expected NAME=N1,N2,...", text));
  ResizeSpec spec{text.substr(0, eq), {}};
  std::size_t at = eq + 1;
  while (at <= text.size()) {
    const auto comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty() || item.size() > 12 ||
        item.find_first_not_of("0123456789") != std::string::npos || std::stoll(item) == 0)
      throw UsageError(fmt::format("--resize {}: '{}' is not a positive size", spec.name, item));
    spec.values.push_back(std::stoll(item));
    at = comma + 1;
  }
  return spec;
}

std::string ShapesText(const ResizeStepReport& r) {
  std::string out;
  for (const auto& [name, shape] : r.input_shapes)
    out += fmt::format("{}{}{}", out.empty() ? "" : " ", name, ShapeText(shape));
  return out;
}

// "sequence_length=32 total_sequence_length=48" for step k.
std::string StepName(const std::vector<ResizeSpec>& specs, std::size_t k) {
  std::string out;
  for (const ResizeSpec& s : specs)
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", s.name, s.values[k]);
  return out;
}

}  // namespace

std::vector<ResizeStep> ResizeSteps(const std::vector<std::string>& resize) {
  std::vector<ResizeSpec> specs;
  for (const std::string& text : resize) specs.push_back(ParseResize(text));
  if (specs.empty()) throw UsageError("--resize: expected NAME=N1,N2,...");
  for (const ResizeSpec& s : specs)
    if (s.values.size() != specs[0].values.size())
      throw UsageError(
          fmt::format("--resize {} has {} values and --resize {} has {}: dimensions "
                      "resized together need one value per step each",
                      specs[0].name, specs[0].values.size(), s.name, s.values.size()));
  std::vector<ResizeStep> steps(specs[0].values.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    for (const ResizeSpec& spec : specs) steps[k].dims.emplace_back(spec.name, spec.values[k]);
    steps[k].name = StepName(specs, k);
  }
  return steps;
}

void RunResize(const ResizeRunOptions& o) {
  const std::vector<ResizeStep> resize = ResizeSteps(o.resize);
  Progress progress("memplan run --resize", o.quiet);
  CpuPlannerOptions planner;
  planner.strategy = o.strategy;
  ResizeSession session(planner);
  const KernelRegistry& kernels = VerificationKernels();
  std::vector<ResizeStepReport> steps;
  for (const ResizeStep& step : resize) {
    progress.Stage(step.name);
    LoadOptions load = ToLoadOptions(o.model_flags);
    for (const auto& [name, value] : step.dims) {
      std::erase_if(load.dims, [&](const auto& d) { return d.first == name; });
      load.dims.emplace_back(name, value);
    }
    const Workload workload = LoadWorkload(o.model, load);
    if (!workload.graph)
      throw UsageError(
          fmt::format("run --resize needs a model (.onnx or .tflite), not {} input '{}'",
                      workload.kind, o.model));
    for (const std::string& note : workload.notes)
      for (const auto& [name, value] : step.dims)
        if (note.starts_with("warning: ") && note.find(name) != std::string::npos)
          throw UsageError(fmt::format("--resize {}: {} has no dimension of that name ({})", name,
                                       o.model, note));
    steps.push_back(session.Step(*workload.graph, kernels, o.invokes));
  }
  progress.Finish();

  bool all_match = true;
  for (const ResizeStepReport& r : steps) all_match = all_match && r.outputs_match_naive;
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["model"] = o.model;
    j["resize"] = nlohmann::ordered_json::array();
    for (const auto& [name, value] : resize[0].dims) j["resize"].push_back(name);
    j["strategy"] = o.strategy;
    j["steps"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const ResizeStepReport& r = steps[k];
      nlohmann::ordered_json s;
      nlohmann::ordered_json dims = nlohmann::ordered_json::object();
      for (const auto& [name, value] : resize[k].dims) dims[name] = value;
      s["dims"] = dims;
      nlohmann::ordered_json shapes = nlohmann::ordered_json::object();
      for (const auto& [name, shape] : r.input_shapes) shapes[name] = shape;
      s["shapes"] = shapes;
      s["arena_bytes"] = r.arena_bytes;
      s["tflite_cpu_arena_bytes"] = r.tflite_cpu_arena_bytes;
      s["lower_bound_bytes"] = r.lower_bound_bytes;
      s["replanned_tensors"] = r.replanned_tensors;
      s["arena_tensors"] = r.arena_tensors;
      s["first_replanned_node"] = r.first_replanned_node;
      s["cache_hit"] = r.cache_hit;
      s["replan_us"] = r.replan_us;
      s["tflite_cpu_us"] = r.tflite_cpu_us;
      s["full_plan_us"] = r.full_plan_us;
      s["outputs_match_naive"] = r.outputs_match_naive;
      if (!r.outputs_match_naive) s["difference"] = r.difference;
      j["steps"].push_back(s);
    }
    fmt::print("{}\n", j.dump(2));
  } else {
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const ResizeStepReport& r = steps[k];
      const std::string what =
          r.cache_hit ? "a cached layout"
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

}  // namespace memplan::cli
