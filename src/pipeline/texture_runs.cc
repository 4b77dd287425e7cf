// Texture and shape records planned by the objects strategies (include/memplan/texture_runs.h).
#include "memplan/texture_runs.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "memplan/error.h"
#include "memplan/table.h"
#include "memplan/texture_records.h"

namespace memplan {

namespace {

std::string DimsText(const std::vector<std::uint64_t>& dims) {
  return fmt::format("{}", fmt::join(dims, "x"));
}

// The entries of the selection that name this key itself rather than a group.
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
            fmt::format("{}: strategy {}: {}; {} records are planned by "
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
  // Records that know their element's bytes (GPU objects of a model) also report bytes.
  const std::uint64_t unit = problem.element_bytes;
  std::string out = fmt::format(
      "{}: {} {} records, {} dimensions, naive {} elements{}\n", input, problem.size(),
      TextureKindName(problem.kind), problem.records.empty() ? 0 : problem.records[0].dims.size(),
      WithThousands(naive),
      unit > 0 ? fmt::format(" ({} B)", WithThousands(naive * unit)) : std::string());
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < runs.runs.size(); ++i) {
    const TextureRun& run = runs.runs[i];
    std::vector<std::string> row = {i == runs.best ? "*" : "", "objects", run.strategy,
                                    WithThousands(run.plan.total_elements)};
    if (unit > 0) row.push_back(WithThousands(run.plan.total_elements * unit));
    row.push_back(WithThousands(run.plan.object_dims.size()));
    row.push_back(fmt::format("{:.2f}", run.plan_ms));
    cells.push_back(std::move(row));
  }
  std::vector<TableColumn> columns = {{""}, {"mode"}, {"strategy"}, {"elements", true}};
  if (unit > 0) columns.push_back({"bytes", true});
  columns.push_back({"objects", true});
  columns.push_back({"ms", true});
  out += RenderTable(columns, cells);
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
  if (problem.element_bytes > 0) j["element_bytes"] = problem.element_bytes;
  j["results"] = nlohmann::ordered_json::array();
  for (const TextureRun& run : runs.runs) {
    nlohmann::ordered_json r = {
        {"mode", "objects"}, {"strategy", run.strategy}, {"elements", run.plan.total_elements}};
    if (problem.element_bytes > 0) r["bytes"] = run.plan.total_elements * problem.element_bytes;
    r["objects"] = run.plan.object_dims.size();
    r["object_dims"] = run.plan.object_dims;
    r["object_ids"] = run.plan.object_ids;
    r["plan_ms"] = run.plan_ms;
    j["results"].push_back(std::move(r));
  }
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

}  // namespace memplan
