// memplan plan on texture and shape records.
#include "tools/texture_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "memplan/error.h"
#include "memplan/table.h"
#include "memplan/texture_records.h"

namespace memplan::cli {

namespace {

std::string DimsText(const std::vector<std::uint64_t>& dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}

// The --strategy entries that name this key itself rather than a group.
bool NamedExplicitly(const std::string& key, const std::vector<std::string>& requested) {
  const std::string name = key.substr(key.find('/') + 1);
  return std::any_of(requested.begin(), requested.end(),
                     [&](const std::string& r) { return r == key || r == name; });
}

std::string Supported(TextureKind kind) {
  std::string names;
  for (std::string_view s : TextureStrategies(kind))
    names += (names.empty() ? "" : ", ") + std::string(s);
  return names;
}

}  // namespace

TextureRuns RunTextureStrategies(const TextureProblem& problem, std::string_view input,
                                 const std::vector<std::string>& keys,
                                 const std::vector<std::string>& requested) {
  const std::vector<std::string_view> supported = TextureStrategies(problem.kind);
  const std::string kind(TextureKindName(problem.kind));
  TextureRuns runs;
  for (const std::string& key : keys) {
    const std::string name = key.substr(key.find('/') + 1);
    const bool can = key.starts_with("objects/") &&
                     std::find(supported.begin(), supported.end(), name) != supported.end();
    if (!can) {
      const std::string why =
          key.starts_with("offsets/")
              ? fmt::format("{} records have no offsets plans (an offset needs a size in bytes)",
                            kind)
              : fmt::format("{} plans sizes in bytes only", name);
      if (NamedExplicitly(key, requested))
        throw UsageError(
            fmt::format("{}: --strategy {}: {}; {} records are planned by "
                        "objects/{{{}}}",
                        input, key, why, kind, Supported(problem.kind)));
      if (key.starts_with("objects/")) runs.left_out.push_back(key);
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    TextureRun run;
    run.strategy = name;
    run.plan = PlanTextureObjects(problem, name);  // validated, planned and verified
    run.plan_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    runs.runs.push_back(std::move(run));
  }
  for (std::size_t i = 1; i < runs.runs.size(); ++i)
    if (runs.runs[i].plan.total_elements < runs.runs[runs.best].plan.total_elements) runs.best = i;
  return runs;
}

std::string TextureRunsTable(std::string_view input, const TextureProblem& problem,
                             const TextureRuns& runs) {
  std::uint64_t naive = 0;
  for (const TextureRecord& r : problem.records) naive += Elements(r.dims);
  std::string out = fmt::format("{}: {} {} records, {} dimensions, naive {} elements\n", input,
                                problem.size(), TextureKindName(problem.kind),
                                problem.records.empty() ? 0 : problem.records[0].dims.size(),
                                WithThousands(naive));
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < runs.runs.size(); ++i) {
    const TextureRun& run = runs.runs[i];
    cells.push_back(
        {i == runs.best ? "*" : "", "objects", run.strategy, WithThousands(run.plan.total_elements),
         WithThousands(run.plan.object_dims.size()), fmt::format("{:.2f}", run.plan_ms)});
  }
  out += RenderTable(
      {{""}, {"mode"}, {"strategy"}, {"elements", true}, {"objects", true}, {"ms", true}}, cells);
  if (!runs.runs.empty()) {
    const TextureRun& best = runs.runs[runs.best];
    std::vector<std::string> dims;
    for (const auto& d : best.plan.object_dims) dims.push_back(DimsText(d));
    out += fmt::format("  best: {}, objects {}\n", best.strategy, fmt::join(dims, ", "));
  }
  if (!runs.left_out.empty())
    out += fmt::format("  left out (they plan sizes in bytes only): {}\n",
                       fmt::join(runs.left_out, ", "));
  return out;
}

nlohmann::ordered_json TextureRunsJson(std::string_view input, const TextureProblem& problem,
                                       const TextureRuns& runs) {
  nlohmann::ordered_json j;
  j["input"] = input;
  j["size_type"] = TextureKindName(problem.kind);
  j["tensors"] = problem.size();
  j["dimensions"] = problem.records.empty() ? 0 : problem.records[0].dims.size();
  std::uint64_t naive = 0;
  for (const TextureRecord& r : problem.records) naive += Elements(r.dims);
  j["naive_elements"] = naive;
  j["results"] = nlohmann::ordered_json::array();
  for (const TextureRun& run : runs.runs)
    j["results"].push_back({{"mode", "objects"},
                            {"strategy", run.strategy},
                            {"elements", run.plan.total_elements},
                            {"objects", run.plan.object_dims.size()},
                            {"object_dims", run.plan.object_dims},
                            {"object_ids", run.plan.object_ids},
                            {"plan_ms", run.plan_ms}});
  if (!runs.runs.empty()) {
    const TextureRun& best = runs.runs[runs.best];
    j["best"] = {
        {"mode", "objects"}, {"strategy", best.strategy}, {"elements", best.plan.total_elements}};
  }
  if (!runs.left_out.empty()) j["left_out"] = runs.left_out;
  return j;
}

std::string TextureRunsCsv(std::string_view input, const TextureRuns& runs, bool header) {
  std::string out = header ? "input,mode,strategy,elements,objects,ms\n" : "";
  for (const TextureRun& run : runs.runs)
    out += fmt::format("{},objects,{},{},{},{:.3f}\n", input, run.strategy, run.plan.total_elements,
                       run.plan.object_dims.size(), run.plan_ms);
  return out;
}

nlohmann::ordered_json TexturePlanFileJson(const TextureProblem& problem, const TextureRun& run) {
  nlohmann::ordered_json j;
  j["mode"] = "objects";
  j["size_type"] = TextureKindName(problem.kind);
  j["strategy"] = run.strategy;
  j["total_elements"] = run.plan.total_elements;
  j["objects"] = run.plan.object_dims;
  j["tensors"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const TextureRecord& r = problem.records[i];
    j["tensors"].push_back({{"index", i},
                            {"name", problem.names.empty() ? std::to_string(i) : problem.names[i]},
                            {"dims", r.dims},
                            {"first", r.first},
                            {"last", r.last},
                            {"object", run.plan.object_ids[i]}});
  }
  return j;
}

}  // namespace memplan::cli
