// memplan inspect MODEL.onnx (tools/inspect_onnx.h).
#include "tools/inspect_onnx.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "memplan/bounds.h"
#include "memplan/onnx.h"
#include "memplan/table.h"
#include "memplan/text.h"

namespace memplan::cli {

namespace {

using Json = nlohmann::ordered_json;

// What inspect reports of an ONNX model.
struct OnnxInspection {
  OnnxModel model;                                 // as read, shapes inferred
  std::map<std::string, std::size_t> ops_by_type;  // ops that run, "domain:type" or "type"
  std::size_t constant_tensors = 0;                // initializers and folded outputs
  Bytes constant_bytes = 0;                        // their bytes, where sized
  std::size_t planned = 0;                         // records `plan` plans (same derivation)
  Bytes planned_bytes = 0;                         // their sizes added up
  Bytes lower_bound = 0;                           // the offsets lower bound of those records
};

// "Attention" of com.microsoft is shown as "com.microsoft:Attention".
std::string QualifiedType(const OnnxModel& model, const std::string& type) {
  const auto it = model.op_domains.find(type);
  return it == model.op_domains.end() ? type : it->second + ":" + type;
}

// Open dimensions by name where the model names them ("[N, 3, ?, ?]").
std::string ShapeText(const OnnxModel& m, const Tensor& t) {
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

// Whether subgraph `s` got a tensor called `name` from a graph around it (ONNX names are
// unique across a model's graphs, so a name seen in an earlier graph is that graph's).
bool IsOuterName(const Graph& g, std::size_t s, const std::string& name) {
  for (std::size_t outer = 0; outer < s; ++outer)
    for (const Tensor& t : g.subgraphs[outer].tensors)
      if (t.name == name) return true;
  return false;
}

OnnxInspection Inspect(const std::string& input, const LoadOptions& load) {
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

// What calls each subgraph: "node 'loop' (Loop) in subgraph 0"; empty for the main graph.
std::vector<std::string> Callers(const Graph& g) {
  std::vector<std::string> callers(g.subgraphs.size());
  for (std::size_t s = 0; s < g.subgraphs.size(); ++s)
    for (const Operator& op : g.subgraphs[s].ops)
      for (std::int32_t callee : op.called_subgraphs)
        if (callee >= 0 && static_cast<std::size_t>(callee) < callers.size())
          callers[static_cast<std::size_t>(callee)] = fmt::format(
              "{} '{}' in subgraph {}", PrintableText(op.type), PrintableText(op.name), s);
  return callers;
}

Json TensorJson(const OnnxModel& m, const Subgraph& sg, std::int32_t index) {
  const Tensor& t = sg.tensors[static_cast<std::size_t>(index)];
  Json j = {{"name", PrintableText(t.name)},
            {"type", DataTypeName(t.type)},
            {"shape", t.shape},
            {"bytes", t.bytes ? Json(*t.bytes) : Json(nullptr)}};
  if (m.open_shapes.contains(t.name)) j["open_shape"] = ShapeText(m, t);
  return j;
}

Json InspectionJson(const std::string& input, const OnnxInspection& in) {
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
  const std::vector<std::string> callers = Callers(m.graph);
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

std::string InspectionText(const std::string& input, const OnnxInspection& in) {
  const OnnxModel& m = in.model;
  const Subgraph& sg = m.graph.subgraphs.at(0);
  std::vector<std::string> opsets;
  for (const auto& [domain, version] : m.opset_imports)
    opsets.push_back(fmt::format("{} {}", domain, version));
  std::string out =
      fmt::format("{}: ONNX IR {}, opsets {}{}\n", input, m.ir_version,
                  opsets.empty() ? "none" : fmt::format("{}", fmt::join(opsets, ", ")),
                  m.producer.empty() ? "" : fmt::format(", from {}", m.producer));
  out += fmt::format(
      "nodes: {} in the file{}, {} folded from constants (not run), {} run; shapes after {} "
      "inference pass{}\n",
      m.file_nodes,
      m.graph_nodes == m.file_nodes
          ? std::string()
          : fmt::format(" ({} once decided Ifs became their branches)", m.graph_nodes),
      m.folded_nodes, m.graph.OpCount(), m.inference_passes, m.inference_passes == 1 ? "" : "es");
  if (m.graph.subgraphs.size() > 1) {
    const std::vector<std::string> callers = Callers(m.graph);
    std::vector<std::vector<std::string>> subs;
    for (std::size_t s = 1; s < m.graph.subgraphs.size(); ++s) {
      const Subgraph& sub = m.graph.subgraphs[s];
      subs.push_back({std::to_string(s), PrintableText(sub.name), std::to_string(sub.ops.size()),
                      std::to_string(sub.tensors.size()), callers[s]});
    }
    out += RenderTable({{"subgraph", true}, {"name"}, {"ops", true}, {"tensors", true}, {"run by"}},
                       subs);
  }
  std::vector<std::vector<std::string>> rows;
  const auto add_rows = [&](const std::vector<std::int32_t>& tensors, const char* kind) {
    for (std::int32_t i : tensors) {
      const Tensor& t = sg.tensors[static_cast<std::size_t>(i)];
      rows.push_back({kind, PrintableText(t.name), DataTypeName(t.type), ShapeText(m, t),
                      t.bytes ? WithThousands(*t.bytes) : "?"});
    }
  };
  add_rows(sg.inputs, "input");
  add_rows(sg.outputs, "output");
  out += RenderTable({{"graph"}, {"name"}, {"type"}, {"shape"}, {"bytes", true}}, rows);
  std::vector<std::pair<std::string, std::size_t>> types(in.ops_by_type.begin(),
                                                         in.ops_by_type.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out += "ops by type:";
  for (const auto& [type, count] : types) out += fmt::format(" {} {},", PrintableText(type), count);
  if (!types.empty()) out.pop_back();
  if (m.unsized_tensors > 0)
    out += fmt::format(
        "\ntensors: {} in all, {} constant ({} B); {} to plan have no size until the open "
        "dimensions are bound (--dim NAME=VALUE, --shape TENSOR=AxBxC): {}\n",
        m.graph.TensorCount(), in.constant_tensors, WithThousands(in.constant_bytes),
        m.unsized_tensors, m.open_sizes);
  else
    out += fmt::format(
        "\ntensors: {} in all, {} constant ({} B), {} planned ({} B, lower bound {} B)\n",
        m.graph.TensorCount(), in.constant_tensors, WithThousands(in.constant_bytes), in.planned,
        WithThousands(in.planned_bytes), WithThousands(in.lower_bound));
  for (const std::string& w : m.warnings) out += w + "\n";
  return out;
}

}  // namespace

void InspectOnnx(const std::string& input, const LoadOptions& load, const std::string& format) {
  const OnnxInspection in = Inspect(input, load);
  if (format == "json")
    fmt::print("{}\n", InspectionJson(input, in).dump(2));
  else
    fmt::print("{}", InspectionText(input, in));
}

}  // namespace memplan::cli
