// memplan inspect MODEL.tflite|zoo:NAME: what a model holds (subgraphs, ops by type, tensors by
// kind and bytes, metadata) and its offline memory plan checked against the lifetimes.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/shape_binding.h"
#include "memplan/split.h"
#include "memplan/table.h"
#include "memplan/text.h"
#include "memplan/tflite.h"
#include "memplan/tflite_shapes.h"
#include "memplan/vela.h"
#include "memplan/zoo.h"
#include "tools/commands.h"
#include "tools/inspect_onnx.h"
#include "tools/model_options.h"
#include "tools/progress.h"

namespace memplan::cli {

namespace {

using Json = nlohmann::ordered_json;

// TFLM rounds every planned buffer up to 16 bytes.
constexpr Bytes kTflmAlignment = 16;
// Work and output limits for the overlap check on hostile plans.
constexpr std::size_t kMaxOverlapsListed = 100;
constexpr std::uint64_t kMaxPairsExamined = 20'000'000;

struct InspectOptions {
  std::string input;
  std::string format = "table";
  ModelFlags model;
  bool quiet = false;  // no progress on stderr
};

// A tensor TFLM would plan, as the planner would see it.
struct Planned {
  TensorRef ref;
  std::string name;
  Bytes size = 0;  // rounded up to 16
  Step first = -1, last = -1;
  std::optional<Bytes> offline_offset;
};

struct Inspection {
  TfliteModel model;
  std::map<std::string, std::size_t> ops_by_type;
  std::size_t constant_tensors = 0, variable_tensors = 0;
  Bytes constant_bytes = 0, variable_bytes = 0;
  std::vector<Planned> planned;
  std::vector<TensorRef> unsized;  // would be planned, but have no size
  Bytes planned_bytes = 0, lower_bound = 0;
  std::vector<std::pair<std::size_t, std::size_t>> overlaps;  // indices into `planned`
  bool overlap_check_stopped = false;
  std::vector<std::string> warnings;       // --dim bindings that bound nothing
  std::vector<TfliteInputDimension> open;  // -1s of the inputs' shape_signature
  std::vector<TfliteInputDimension> dims;  // every axis of the inputs, open or stored
  // A Vela-compiled model's scratch areas; `area_of` per planned tensor: the index of the
  // area it belongs to (the scratch or a tensor inside it), or -1.
  std::vector<VelaScratchArea> scratch_areas;
  std::vector<std::ptrdiff_t> area_of;
};

const Tensor& At(const Graph& g, TensorRef r) {
  return g.subgraphs[static_cast<std::size_t>(r.subgraph)]
      .tensors[static_cast<std::size_t>(r.tensor)];
}

// Which scratch area each planned tensor belongs to.
void MarkScratchAreas(Inspection& in) {
  in.area_of.assign(in.planned.size(), -1);
  for (std::size_t i = 0; i < in.planned.size(); ++i)
    for (std::size_t a = 0; a < in.scratch_areas.size(); ++a) {
      const VelaScratchArea& area = in.scratch_areas[a];
      if (in.planned[i].ref == area.scratch ||
          std::find(area.inside.begin(), area.inside.end(), in.planned[i].ref) != area.inside.end())
        in.area_of[i] = static_cast<std::ptrdiff_t>(a);
    }
}

// Pairs of offline-placed buffers alive at the same time whose bytes overlap: TFLM keeps
// them where the metadata says, so such a pair corrupts data at run time. Tensors that live
// inside one Vela scratch area overlap on purpose and are no such pair.
void FindOverlaps(Inspection& in) {
  std::vector<std::size_t> fixed;
  for (std::size_t i = 0; i < in.planned.size(); ++i)
    if (in.planned[i].offline_offset && in.planned[i].size > 0) fixed.push_back(i);
  std::sort(fixed.begin(), fixed.end(), [&](std::size_t a, std::size_t b) {
    return *in.planned[a].offline_offset < *in.planned[b].offline_offset;
  });
  std::uint64_t examined = 0;
  for (std::size_t x = 0; x < fixed.size(); ++x) {
    const Planned& a = in.planned[fixed[x]];
    for (std::size_t y = x + 1; y < fixed.size(); ++y) {
      const Planned& b = in.planned[fixed[y]];
      if (*b.offline_offset >= *a.offline_offset + a.size) break;
      if (++examined > kMaxPairsExamined || in.overlaps.size() == kMaxOverlapsListed) {
        in.overlap_check_stopped = true;
        return;
      }
      const bool one_area =
          in.area_of[fixed[x]] >= 0 && in.area_of[fixed[x]] == in.area_of[fixed[y]];
      if (a.first <= b.last && b.first <= a.last && !one_area)
        in.overlaps.emplace_back(fixed[x], fixed[y]);
    }
  }
}

// A built-in model as a .tflite file would hold it (no file, no metadata).
TfliteModel BuiltInModel(const std::string& input, const LoadOptions& load) {
  std::optional<Graph> graph = ZooGraph(std::string_view(input).substr(4));
  if (!graph)
    throw InputError(fmt::format("{}: no such built-in model; `memplan zoo` lists them", input));
  if (!load.dims.empty() || !load.shapes.empty())
    throw UsageError(fmt::format(
        "{}: built-in models have fixed shapes; --dim and --shape apply to model files", input));
  TfliteModel model;
  model.graph = std::move(*graph);
  model.description = "memplan built-in model";
  return model;
}

Inspection Inspect(const std::string& input, const LoadOptions& load) {
  Inspection in;
  in.model = input.starts_with("zoo:") ? BuiltInModel(input, load) : ReadTfliteFile(input, input);
  Graph& g = in.model.graph;
  in.open = TfliteOpenDimensions(in.model);
  in.dims = TfliteInputDimensions(in.model);
  bool resized = false;
  if (auto binding = BindTfliteDimensions(in.model, load.dims)) {
    in.warnings = std::move(binding->warnings);
    resized = binding->resized;
    for (std::string& w : ApplyShapeBindings(g, {}, load.shapes)) in.warnings.push_back(w);
  } else {
    in.warnings = ApplyShapeBindings(g, load.dims, load.shapes);
  }
  // A resized model's tensors no longer fit the offsets chosen for the stored sizes.
  if (resized) g.fixed_offsets.clear();
  for (const Subgraph& sg : g.subgraphs)
    for (const Operator& op : sg.ops) ++in.ops_by_type[op.type];
  const std::vector<TensorLifetime> lifetimes = TflmLifetimes(g);
  const bool offline = in.model.offline_plan && in.model.offline_plan->problem.empty() && !resized;
  if (offline) in.scratch_areas = VelaScratchAreas(g);
  const auto inside_scratch = [&](TensorRef r) {
    return std::any_of(in.scratch_areas.begin(), in.scratch_areas.end(), [&](const auto& a) {
      return std::find(a.inside.begin(), a.inside.end(), r) != a.inside.end();
    });
  };
  Problem bound_problem;
  std::size_t flat = 0;
  for (std::size_t s = 0; s < g.subgraphs.size(); ++s) {
    for (std::size_t t = 0; t < g.subgraphs[s].tensors.size(); ++t, ++flat) {
      const Tensor& tensor = g.subgraphs[s].tensors[t];
      const TensorRef ref{static_cast<std::int32_t>(s), static_cast<std::int32_t>(t)};
      if (tensor.is_constant) {
        ++in.constant_tensors;
        in.constant_bytes += tensor.bytes.value_or(0);
      } else if (tensor.is_variable) {
        ++in.variable_tensors;
        in.variable_bytes += tensor.bytes.value_or(0);
      }
      if (!lifetimes[flat].needs_allocating) continue;
      if (!tensor.bytes) {
        in.unsized.push_back(ref);
        continue;
      }
      Planned p{ref,
                tensor.name,
                AlignUp(*tensor.bytes, kTflmAlignment),
                lifetimes[flat].first,
                lifetimes[flat].last,
                std::nullopt};
      if (offline && in.model.offline_plan->offsets[flat] >= 0)
        p.offline_offset = static_cast<Bytes>(in.model.offline_plan->offsets[flat]);
      in.planned_bytes += p.size;
      // One step later keeps every overlap and makes TFLM's -1 a valid step. A tensor inside
      // a Vela scratch area takes the scratch's bytes, none of its own.
      if (!inside_scratch(ref)) bound_problem.records.push_back({p.size, p.first + 1, p.last + 1});
      in.planned.push_back(std::move(p));
    }
  }
  in.lower_bound = OffsetsLowerBound(bound_problem);
  MarkScratchAreas(in);
  FindOverlaps(in);
  return in;
}

Json PlannedJson(const Planned& p) {
  return {{"subgraph", p.ref.subgraph},
          {"tensor", p.ref.tensor},
          {"name", p.name},
          {"offset", *p.offline_offset},
          {"size", p.size},
          {"first", p.first},
          {"last", p.last}};
}

Json OfflinePlanJson(const Inspection& in) {
  if (!in.model.offline_plan) return nullptr;
  const OfflinePlan& plan = *in.model.offline_plan;
  Json j;
  j["version"] = plan.version;
  j["subgraphs"] = plan.subgraphs;
  j["offsets"] = plan.offsets;
  j["problem"] = plan.problem.empty() ? Json(nullptr) : Json(plan.problem);
  j["fixed_tensors"] = std::count_if(in.planned.begin(), in.planned.end(),
                                     [](const Planned& p) { return p.offline_offset.has_value(); });
  Json overlaps = Json::array();
  for (const auto& [a, b] : in.overlaps)
    overlaps.push_back({PlannedJson(in.planned[a]), PlannedJson(in.planned[b])});
  j["overlaps"] = std::move(overlaps);
  j["overlap_check_complete"] = !in.overlap_check_stopped;
  Json areas = Json::array();
  for (const VelaScratchArea& area : in.scratch_areas) {
    Json inside = Json::array();
    for (const TensorRef r : area.inside) inside.push_back(At(in.model.graph, r).name);
    areas.push_back({{"subgraph", area.subgraph},
                     {"op", area.op},
                     {"scratch", At(in.model.graph, area.scratch).name},
                     {"begin", area.begin},
                     {"end", area.end},
                     {"inside", std::move(inside)},
                     {"text", VelaScratchText(in.model.graph, area)}});
  }
  j["scratch_areas"] = std::move(areas);
  return j;
}

Json InspectionJson(const std::string& input, const Inspection& in) {
  const Graph& g = in.model.graph;
  Json j;
  j["input"] = input;
  j["format"] = g.format;
  j["schema_version"] = in.model.schema_version;
  j["description"] = in.model.description;
  j["file_bytes"] = in.model.file_bytes;
  Json subgraphs = Json::array();
  for (std::size_t s = 0; s < g.subgraphs.size(); ++s) {
    const Subgraph& sg = g.subgraphs[s];
    subgraphs.push_back({{"index", s},
                         {"name", sg.name},
                         {"tensors", sg.tensors.size()},
                         {"ops", sg.ops.size()},
                         {"inputs", sg.inputs},
                         {"outputs", sg.outputs}});
  }
  j["subgraphs"] = std::move(subgraphs);
  j["ops"] = g.OpCount();
  j["ops_by_type"] = in.ops_by_type;
  if (const auto split = DescribeSplit(g))
    j["split"] = {{"rows", split->rows},
                  {"cols", split->cols},
                  {"first_op", split->first_op},
                  {"last_op", split->last_op},
                  {"patch_tensors", split->tensors}};
  j["tensors"] = g.TensorCount();
  j["constant"] = {{"tensors", in.constant_tensors}, {"bytes", in.constant_bytes}};
  j["variable"] = {{"tensors", in.variable_tensors}, {"bytes", in.variable_bytes}};
  j["planned"] = {{"tensors", in.planned.size()},
                  {"bytes", in.planned_bytes},
                  {"lower_bound_bytes", in.lower_bound}};
  Json unsized = Json::array();
  for (const TensorRef r : in.unsized) {
    const Tensor& t = At(g, r);
    unsized.push_back({{"subgraph", r.subgraph},
                       {"tensor", r.tensor},
                       {"name", t.name},
                       {"why", t.why_unsized},
                       {"likely_shape", t.likely_shape}});
  }
  j["unsized"] = std::move(unsized);
  Json open = Json::array();
  for (const TfliteInputDimension& d : in.open)
    open.push_back({{"name", d.name},
                    {"input", PrintableText(At(g, {0, d.tensor}).name)},
                    {"tensor", d.tensor},
                    {"axis", d.axis},
                    {"stored", d.stored}});
  j["open_dimensions"] = std::move(open);
  Json dims = Json::array();
  for (const TfliteInputDimension& d : in.dims)
    dims.push_back({{"name", d.name},
                    {"input", PrintableText(At(g, {0, d.tensor}).name)},
                    {"tensor", d.tensor},
                    {"axis", d.axis},
                    {"stored", d.stored},
                    {"open", d.open}});
  j["input_dimensions"] = std::move(dims);
  j["batch_alias"] = TfliteHasBatchAlias(in.open);
  Json metadata = Json::array();
  for (const TfliteMetadata& m : in.model.metadata)
    metadata.push_back({{"name", m.name}, {"buffer", m.buffer}, {"bytes", m.bytes}});
  j["metadata"] = std::move(metadata);
  j["offline_plan"] = OfflinePlanJson(in);
  return j;
}

std::string PlannedText(const Planned& p) {
  return fmt::format("'{}' (subgraph {}, tensor {}: {} B at {}, scopes {}..{})", p.name,
                     p.ref.subgraph, p.ref.tensor, p.size, *p.offline_offset, p.first, p.last);
}

std::string InspectionText(const std::string& input, const Inspection& in) {
  const Graph& g = in.model.graph;
  const bool built_in = g.format == "zoo";
  std::string out = fmt::format(
      "{}: {}, {} subgraph{}, {} ops, {} tensors{}\n", input,
      built_in ? "built-in model"
               : fmt::format("TensorFlow Lite schema {}", in.model.schema_version),
      g.subgraphs.size(), g.subgraphs.size() == 1 ? "" : "s", g.OpCount(), g.TensorCount(),
      built_in ? "" : fmt::format(", {} B file", WithThousands(in.model.file_bytes)));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t s = 0; s < g.subgraphs.size(); ++s) {
    const Subgraph& sg = g.subgraphs[s];
    rows.push_back({std::to_string(s), sg.name, std::to_string(sg.tensors.size()),
                    std::to_string(sg.ops.size()), fmt::format("{}", fmt::join(sg.inputs, " ")),
                    fmt::format("{}", fmt::join(sg.outputs, " "))});
  }
  out += RenderTable(
      {{"subgraph", true}, {"name"}, {"tensors", true}, {"ops", true}, {"inputs"}, {"outputs"}},
      rows);
  std::vector<std::pair<std::string, std::size_t>> types(in.ops_by_type.begin(),
                                                         in.ops_by_type.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out += "ops by type:";
  for (const auto& [type, count] : types) out += fmt::format(" {} {},", type, count);
  if (!types.empty()) out.pop_back();
  out += fmt::format(
      "\ntensors: {} constant ({} B), {} variable ({} B), {} planned ({} B in 16-byte units, "
      "lower bound {} B)\n",
      in.constant_tensors, WithThousands(in.constant_bytes), in.variable_tensors,
      WithThousands(in.variable_bytes), in.planned.size(), WithThousands(in.planned_bytes),
      WithThousands(in.lower_bound));
  for (const TensorRef r : in.unsized)
    out += fmt::format("unsized: '{}' (subgraph {}, tensor {}): {}\n", At(g, r).name, r.subgraph,
                       r.tensor, At(g, r).why_unsized);
  if (!in.open.empty()) {
    out += "open dimensions (--dim NAME=N):";
    for (const TfliteInputDimension& d : in.open)
      out += fmt::format(" {} (stored {}),", d.name, d.stored);
    out.pop_back();
    out += TfliteHasBatchAlias(in.open)
               ? fmt::format("; --dim {}=N binds them all\n", kTfliteBatchAlias)
               : std::string("\n");
  }
  if (in.open.empty() && !in.dims.empty()) {
    // Any input axis resizes, as TensorFlow Lite's ResizeInputTensor allows.
    out += "input dimensions (--dim NAME=N resizes them):";
    for (const TfliteInputDimension& d : in.dims)
      out += fmt::format(" {} (stored {}),", d.name, d.stored);
    out.pop_back();
    out += fmt::format("; --dim {}=N binds every axis 0 stored as 1\n", kTfliteBatchAlias);
  }
  for (const TfliteMetadata& m : in.model.metadata)
    out += fmt::format("metadata: '{}' (buffer {}, {} B)\n", m.name, m.buffer, m.bytes);
  if (const auto split = DescribeSplit(g))
    out += fmt::format(
        "split: {}x{} patch groups (tensors split:r0c0:... to split:r{}c{}:..., {} in all); "
        "ops {}..{} run the stage patch after patch\n",
        split->rows, split->cols, split->rows - 1, split->cols - 1, split->tensors, split->first_op,
        split->last_op);
  if (!in.model.offline_plan) {
    out += "offline plan: none\n";
    return out;
  }
  const OfflinePlan& plan = *in.model.offline_plan;
  out += fmt::format("offline plan: version {}, {} subgraph{}, {} offsets", plan.version,
                     plan.subgraphs, plan.subgraphs == 1 ? "" : "s", plan.offsets.size());
  if (!plan.problem.empty()) return out + fmt::format("; unusable: {}\n", plan.problem);
  const auto fixed = std::count_if(in.planned.begin(), in.planned.end(),
                                   [](const Planned& p) { return p.offline_offset.has_value(); });
  out += fmt::format(", {} planned tensors fixed; ", fixed);
  // Vela's aliasing is said apart from the overlaps: it is no fault.
  std::string areas;
  for (const VelaScratchArea& area : in.scratch_areas)
    areas += fmt::format("Vela: {}\n", VelaScratchText(g, area));
  if (in.overlaps.empty() && !in.overlap_check_stopped) return out + "no overlaps\n" + areas;
  out += fmt::format("{}{} overlap{} of buffers alive at the same time:\n", in.overlaps.size(),
                     in.overlap_check_stopped ? "+" : "", in.overlaps.size() == 1 ? "" : "s");
  for (const auto& [a, b] : in.overlaps)
    out +=
        fmt::format("  {} overlaps {}\n", PlannedText(in.planned[a]), PlannedText(in.planned[b]));
  return out + areas;
}

void RunInspect(const InspectOptions& o) {
  const bool onnx = o.input.ends_with(".onnx") || o.input.ends_with(".ONNX");
  if (!o.input.ends_with(".tflite") && !o.input.ends_with(".TFLITE") && !onnx &&
      !o.input.starts_with("zoo:"))
    throw UsageError(
        fmt::format("{}: inspect reads .tflite and .onnx models and zoo:NAME", o.input));
  Progress progress("memplan inspect", o.quiet);
  progress.Stage("reading " + o.input);
  if (onnx) {
    const LoadOptions load = ToLoadOptions(o.model);
    progress.Finish();
    return InspectOnnx(o.input, load, o.format);
  }
  const Inspection in = Inspect(o.input, ToLoadOptions(o.model));
  progress.Finish();
  for (const std::string& w : in.warnings) fmt::print(stderr, "memplan: {}\n", w);
  if (o.format == "json")
    fmt::print("{}\n", InspectionJson(o.input, in).dump(2));
  else
    fmt::print("{}", InspectionText(o.input, in));
}

}  // namespace

void AddInspectCommand(CLI::App& app) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Show what a model holds and check its offline memory plan, if any");
  cmd->add_option("model", options->input, "a .tflite or .onnx model, or zoo:NAME")->required();
  cmd->add_option("-f,--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  AddModelFlags(*cmd, options->model, /*with_accounting=*/false);
  AddQuietFlag(*cmd, options->quiet);
  cmd->callback([options] { RunInspect(*options); });
}

}  // namespace memplan::cli
