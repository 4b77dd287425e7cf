// What `memplan inspect` reports of a model (include/memplan/inspect.h): a .tflite model's
// contents and offline plan checked against TFLM's lifetimes, an ONNX model's contents and
// how memplan reads it.
#include "memplan/inspect.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/shape_binding.h"
#include "memplan/split.h"
#include "memplan/text.h"
#include "memplan/tflite_shapes.h"
#include "memplan/zoo.h"

namespace memplan {

namespace {

using Json = nlohmann::ordered_json;

// TFLM rounds every planned buffer up to 16 bytes.
constexpr Bytes kTflmAlignment = 16;
// Work and output limits for the overlap check on hostile plans.
constexpr std::size_t kMaxOverlapsListed = 100;
constexpr std::uint64_t kMaxPairsExamined = 20'000'000;

// Which scratch area each planned tensor belongs to.
void MarkScratchAreas(TfliteInspection& in) {
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
void FindOverlaps(TfliteInspection& in) {
  std::vector<std::size_t> fixed;
  for (std::size_t i = 0; i < in.planned.size(); ++i)
    if (in.planned[i].offline_offset && in.planned[i].size > 0) fixed.push_back(i);
  std::sort(fixed.begin(), fixed.end(), [&](std::size_t a, std::size_t b) {
    return *in.planned[a].offline_offset < *in.planned[b].offline_offset;
  });
  std::uint64_t examined = 0;
  for (std::size_t x = 0; x < fixed.size(); ++x) {
    const TflmPlannedTensor& a = in.planned[fixed[x]];
    for (std::size_t y = x + 1; y < fixed.size(); ++y) {
      const TflmPlannedTensor& b = in.planned[fixed[y]];
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
    throw UsageError(
        fmt::format("{}: built-in models have fixed shapes; dimension and shape bindings apply to "
                    "model files",
                    input));
  TfliteModel model;
  model.graph = std::move(*graph);
  model.description = "memplan built-in model";
  return model;
}

// "Attention" of com.microsoft is shown as "com.microsoft:Attention".
std::string QualifiedType(const OnnxModel& model, const std::string& type) {
  const auto it = model.op_domains.find(type);
  return it == model.op_domains.end() ? type : it->second + ":" + type;
}

// Whether subgraph `s` got a tensor called `name` from a graph around it (ONNX names are
// unique across a model's graphs, so a name seen in an earlier graph is that graph's).
bool IsOuterName(const Graph& g, std::size_t s, const std::string& name) {
  for (std::size_t outer = 0; outer < s; ++outer)
    for (const Tensor& t : g.subgraphs[outer].tensors)
      if (t.name == name) return true;
  return false;
}

}  // namespace

// Open dimensions by name where the model names them ("[N, 3, ?, ?]").
std::string OnnxShapeText(const OnnxModel& m, const Tensor& t) {
  if (const auto it = m.open_shapes.find(t.name); it != m.open_shapes.end()) {
    std::string spaced;  // "[N,3]" as "[N, 3]", like the static shapes
    for (const char c : it->second) {
      spaced += c;
      if (c == ',') spaced += ' ';
    }
    return PrintableText(spaced);
  }
  if (t.shape.empty()) return "[]";
  std::vector<std::string> dims;
  for (std::int64_t d : t.shape) dims.push_back(d < 0 ? "?" : std::to_string(d));
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

// What calls each subgraph: "node 'loop' (Loop) in subgraph 0"; empty for the main graph.
std::vector<std::string> SubgraphCallers(const Graph& g) {
  std::vector<std::string> callers(g.subgraphs.size());
  for (std::size_t s = 0; s < g.subgraphs.size(); ++s)
    for (const Operator& op : g.subgraphs[s].ops)
      for (std::int32_t callee : op.called_subgraphs)
        if (callee >= 0 && static_cast<std::size_t>(callee) < callers.size())
          callers[static_cast<std::size_t>(callee)] = fmt::format(
              "{} '{}' in subgraph {}", PrintableText(op.type), PrintableText(op.name), s);
  return callers;
}

const Tensor& InspectedTensor(const Graph& g, TensorRef r) {
  return g.subgraphs[static_cast<std::size_t>(r.subgraph)]
      .tensors[static_cast<std::size_t>(r.tensor)];
}

TfliteInspection InspectTflite(const std::string& input, const LoadOptions& load) {
  TfliteInspection in;
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
      TflmPlannedTensor p{ref,
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

namespace {

Json PlannedJson(const TflmPlannedTensor& p) {
  return {{"subgraph", p.ref.subgraph},
          {"tensor", p.ref.tensor},
          {"name", p.name},
          {"offset", *p.offline_offset},
          {"size", p.size},
          {"first", p.first},
          {"last", p.last}};
}

Json OfflinePlanJson(const TfliteInspection& in) {
  if (!in.model.offline_plan) return nullptr;
  const OfflinePlan& plan = *in.model.offline_plan;
  Json j;
  j["version"] = plan.version;
  j["subgraphs"] = plan.subgraphs;
  j["offsets"] = plan.offsets;
  j["problem"] = plan.problem.empty() ? Json(nullptr) : Json(plan.problem);
  j["fixed_tensors"] =
      std::count_if(in.planned.begin(), in.planned.end(),
                    [](const TflmPlannedTensor& p) { return p.offline_offset.has_value(); });
  Json overlaps = Json::array();
  for (const auto& [a, b] : in.overlaps)
    overlaps.push_back({PlannedJson(in.planned[a]), PlannedJson(in.planned[b])});
  j["overlaps"] = std::move(overlaps);
  j["overlap_check_complete"] = !in.overlap_check_stopped;
  Json areas = Json::array();
  for (const VelaScratchArea& area : in.scratch_areas) {
    Json inside = Json::array();
    for (const TensorRef r : area.inside) inside.push_back(InspectedTensor(in.model.graph, r).name);
    areas.push_back({{"subgraph", area.subgraph},
                     {"op", area.op},
                     {"scratch", InspectedTensor(in.model.graph, area.scratch).name},
                     {"begin", area.begin},
                     {"end", area.end},
                     {"inside", std::move(inside)},
                     {"text", VelaScratchText(in.model.graph, area)}});
  }
  j["scratch_areas"] = std::move(areas);
  return j;
}

// An input dimension: its name, the input, the tensor, the axis and the stored size.
Json DimensionJson(const Graph& g, const TfliteInputDimension& d) {
  return {{"name", d.name},
          {"input", PrintableText(InspectedTensor(g, {0, d.tensor}).name)},
          {"tensor", d.tensor},
          {"axis", d.axis},
          {"stored", d.stored}};
}

}  // namespace

Json TfliteInspectionJson(const std::string& input, const TfliteInspection& in) {
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
    const Tensor& t = InspectedTensor(g, r);
    unsized.push_back({{"subgraph", r.subgraph},
                       {"tensor", r.tensor},
                       {"name", t.name},
                       {"why", t.why_unsized},
                       {"likely_shape", t.likely_shape}});
  }
  j["unsized"] = std::move(unsized);
  Json open = Json::array();
  for (const TfliteInputDimension& d : in.open) open.push_back(DimensionJson(g, d));
  j["open_dimensions"] = std::move(open);
  Json dims = Json::array();
  for (const TfliteInputDimension& d : in.dims) {
    dims.push_back(DimensionJson(g, d));
    dims.back()["open"] = d.open;
  }
  j["input_dimensions"] = std::move(dims);
  j["batch_alias"] = TfliteHasBatchAlias(in.open);
  Json metadata = Json::array();
  for (const TfliteMetadata& m : in.model.metadata)
    metadata.push_back({{"name", m.name}, {"buffer", m.buffer}, {"bytes", m.bytes}});
  j["metadata"] = std::move(metadata);
  j["offline_plan"] = OfflinePlanJson(in);
  return j;
}

OnnxInspection InspectOnnx(const std::string& input, const LoadOptions& load) {
  OnnxInspection in;
  in.model = LoadOnnx(input, load, OnnxUnsized::kKeep);
  // Every graph's ops and constants (subgraphs of If, Loop and Scan included); a subgraph's
  // stand-ins for outer constants are not counted twice.
  for (std::size_t s = 0; s < in.model.graph.subgraphs.size(); ++s) {
    const Subgraph& sub = in.model.graph.subgraphs[s];
    for (const Operator& op : sub.ops) ++in.ops_by_type[QualifiedType(in.model, op.type)];
    for (const Tensor& t : sub.tensors)
      if (t.is_constant && (s == 0 || !IsOuterName(in.model.graph, s, t.name))) {
        ++in.constant_tensors;
        in.constant_bytes += t.bytes.value_or(0);
      }
  }
  // The records exactly as `plan` derives them, so the two agree; none while sizes are open.
  if (in.model.unsized_tensors > 0) return in;
  const Workload workload = GraphWorkload(in.model.graph, input, "onnx", load);
  in.planned = workload.problem.size();
  for (const UsageRecord& r : workload.problem.records) in.planned_bytes += r.size;
  in.lower_bound = OffsetsLowerBound(workload.problem);
  return in;
}

namespace {

Json TensorJson(const OnnxModel& m, const Subgraph& sg, std::int32_t index) {
  const Tensor& t = sg.tensors[static_cast<std::size_t>(index)];
  Json j = {{"name", PrintableText(t.name)},
            {"type", DataTypeName(t.type)},
            {"shape", t.shape},
            {"bytes", t.bytes ? Json(*t.bytes) : Json(nullptr)}};
  if (m.open_shapes.contains(t.name)) j["open_shape"] = OnnxShapeText(m, t);
  return j;
}

}  // namespace

Json OnnxInspectionJson(const std::string& input, const OnnxInspection& in) {
  const OnnxModel& m = in.model;
  const Subgraph& sg = m.graph.subgraphs.at(0);
  Json j;
  j["input"] = input;
  j["format"] = "onnx";
  j["ir_version"] = m.ir_version;
  j["producer"] = m.producer;
  Json opsets = Json::object();
  for (const auto& [domain, version] : m.opset_imports) opsets[domain] = version;
  j["opset_imports"] = std::move(opsets);
  j["inputs"] = Json::array();
  for (std::int32_t i : sg.inputs) j["inputs"].push_back(TensorJson(m, sg, i));
  j["outputs"] = Json::array();
  for (std::int32_t i : sg.outputs) j["outputs"].push_back(TensorJson(m, sg, i));
  j["file_nodes"] = m.file_nodes;
  j["graph_nodes"] = m.graph_nodes;
  j["folded_nodes"] = m.folded_nodes;
  j["ops"] = m.graph.OpCount();
  j["ops_by_type"] = in.ops_by_type;
  j["inference_passes"] = m.inference_passes;
  j["tensors"] = m.graph.TensorCount();
  j["constant"] = {{"tensors", in.constant_tensors}, {"bytes", in.constant_bytes}};
  if (m.unsized_tensors > 0)
    j["planned"] = {{"unsized_tensors", m.unsized_tensors}, {"open", m.open_sizes}};
  else
    j["planned"] = {{"tensors", in.planned},
                    {"bytes", in.planned_bytes},
                    {"lower_bound_bytes", in.lower_bound}};
  const std::vector<std::string> callers = SubgraphCallers(m.graph);
  j["subgraphs"] = Json::array();
  for (std::size_t s = 0; s < m.graph.subgraphs.size(); ++s) {
    const Subgraph& sub = m.graph.subgraphs[s];
    j["subgraphs"].push_back({{"index", s},
                              {"name", PrintableText(sub.name)},
                              {"ops", sub.ops.size()},
                              {"tensors", sub.tensors.size()},
                              {"called_by", callers[s]}});
  }
  if (!m.warnings.empty()) j["warnings"] = m.warnings;
  return j;
}

}  // namespace memplan
