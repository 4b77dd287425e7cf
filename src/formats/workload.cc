// Dispatches an input name to the reader for its kind.
#include "memplan/workload.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/records_io.h"
#include "memplan/texture_records.h"
#include "memplan/zoo.h"
#include "src/formats/onnx/onnx_workload.h"
#include "src/formats/tflite/tflite_workload.h"
#include "src/formats/zoo_records.h"
#include "src/formats/zoo_workload.h"

namespace memplan {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A records file, in one format: texture records when the file says so, else byte records.
template <class ParseTextures, class ParseRecords>
void ReadRecordsFile(Workload& w, const std::filesystem::path& path, std::string_view spec,
                     ParseTextures parse_textures, ParseRecords parse_records) {
  w.kind = "records";
  const std::string text = ReadFileBytes(path);
  if (auto textures = parse_textures(text, spec))
    w.textures = std::move(*textures);
  else
    w.problem = parse_records(text, spec);
}

}  // namespace

Workload GraphWorkload(Graph graph, std::string_view label, std::string kind,
                       const LoadOptions& options) {
  LifetimeOptions lifetimes;
  if (options.intermediates_only) lifetimes.accounting = Accounting::kIntermediatesOnly;
  GraphRecords records = RecordsFromGraph(graph, lifetimes);
  Workload w;
  w.label = std::string(label);
  w.kind = std::move(kind);
  w.problem = std::move(records.problem);
  w.origins = std::move(records.origins);
  w.ops = records.ops;
  w.step_ops = std::move(records.step_ops);
  w.graph = std::move(graph);
  return w;
}

Workload LoadWorkload(std::string_view spec, const LoadOptions& options) {
  Workload w;
  w.label = std::string(spec);
  if (spec.starts_with("zoo:")) {
    const std::string_view name = spec.substr(4);
    if (auto model = LoadZooModelWorkload(spec, name, options)) return std::move(*model);
    if (auto problem = ZooRecords(name)) {
      w.kind = "records";
      w.problem = std::move(*problem);
      return w;
    }
    std::string known;
    for (const ZooEntry& e : ZooEntries()) known += " " + e.name;
    throw InputError(fmt::format("{}: no such built-in input; known:{}", spec, known));
  }
  const std::string lower = Lower(spec);
  const std::filesystem::path path{std::string(spec)};
  if (EndsWith(lower, ".json")) {
    ReadRecordsFile(w, path, spec, ParseTextureRecordsJson, ParseRecordsJson);
  } else if (EndsWith(lower, ".csv")) {
    ReadRecordsFile(w, path, spec, ParseTextureRecordsCsv, ParseRecordsCsv);
  } else if (EndsWith(lower, ".tflite")) {
    return LoadTfliteWorkload(spec, options);
  } else if (EndsWith(lower, ".onnx")) {
    return LoadOnnxWorkload(spec, options);
  } else {
    throw InputError(fmt::format(
        "{}: unknown input kind; expected .json or .csv records, .tflite, .onnx or zoo:NAME",
        spec));
  }
  (void)options;
  return w;
}

std::vector<ZooEntry> ZooEntries() {
  std::vector<ZooEntry> entries;
  for (const ZooModel& m : ZooModels())
    entries.push_back(
        {std::string(m.name), std::string(m.description), std::string(m.open_dimension)});
  for (const auto& [name, description] : ZooRecordNames())
    entries.push_back({name, description, ""});
  return entries;
}

}  // namespace memplan
