// Stored shapes that disagree with inference (docs/import.md, "Stored shapes"): exporters
// write value_info and output declarations for one set of dimensions; once --dim binds
// others, ONNX's inference stops at the first tensor whose computed shape differs. The
// computed shape wins: the stored declaration is dropped, with a warning naming both.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unordered_map>

#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

std::string ShapeText(const onnx::TypeProto& type) {
  if (!type.has_tensor_type()) return "(not a tensor)";
  const auto& tensor = type.tensor_type();
  std::string elem = tensor.elem_type() != 0 ? OnnxTypeName(tensor.elem_type()) + " " : "";
  if (!tensor.has_shape()) return elem + "(rank unknown)";
  std::vector<std::string> dims;
  for (const auto& d : tensor.shape().dim())
    dims.push_back(d.has_dim_value()   ? std::to_string(d.dim_value())
                   : d.has_dim_param() ? Printable(d.dim_param(), 24)
                                       : std::string("?"));
  return fmt::format("{}[{}]", elem, fmt::join(dims, ","));
}

// True when the two types cannot both be right: different element types, ranks, or a
// dimension both give as different numbers.
bool Disagree(const onnx::TypeProto& stored, const onnx::TypeProto& inferred) {
  if (!stored.has_tensor_type() || !inferred.has_tensor_type()) return false;
  const auto& a = stored.tensor_type();
  const auto& b = inferred.tensor_type();
  if (a.elem_type() != 0 && b.elem_type() != 0 && a.elem_type() != b.elem_type()) return true;
  if (!a.has_shape() || !b.has_shape()) return false;
  if (a.shape().dim_size() != b.shape().dim_size()) return true;
  for (int i = 0; i < a.shape().dim_size(); ++i) {
    const auto& x = a.shape().dim(i);
    const auto& y = b.shape().dim(i);
    if (x.has_dim_value() && y.has_dim_value() && x.dim_value() != y.dim_value()) return true;
  }
  return false;
}

// Every graph of the model: the main graph, then the subgraphs of If, Loop and Scan.
void AllGraphs(onnx::GraphProto& graph, std::vector<onnx::GraphProto*>& graphs) {
  graphs.push_back(&graph);
  for (auto& node : *graph.mutable_node())
    for (auto& attribute : *node.mutable_attribute())
      if (IsControlFlowSubgraph(node, attribute)) AllGraphs(*attribute.mutable_g(), graphs);
}

std::vector<onnx::GraphProto*> AllGraphs(onnx::ModelProto& model) {
  std::vector<onnx::GraphProto*> graphs;
  AllGraphs(*model.mutable_graph(), graphs);
  return graphs;
}

// Removes the declarations `drop` accepts from every graph (value_info entries go, output
// types are cleared); returns how many.
std::size_t DropDeclarations(onnx::ModelProto& model,
                             const std::function<bool(const onnx::ValueInfoProto&)>& drop) {
  std::size_t dropped = 0;
  for (onnx::GraphProto* graph : AllGraphs(model)) {
    auto* infos = graph->mutable_value_info();
    std::vector<int> stale;
    for (int i = 0; i < infos->size(); ++i)
      if (drop(infos->Get(i))) stale.push_back(i);
    for (auto i = stale.rbegin(); i != stale.rend(); ++i) infos->DeleteSubrange(*i, 1);
    dropped += stale.size();
    for (auto& output : *graph->mutable_output())
      if (output.has_type() && drop(output)) {
        output.clear_type();
        ++dropped;
      }
  }
  return dropped;
}

}  // namespace

std::size_t DropConflictingDeclarations(onnx::ModelProto& model,
                                        const std::function<void(onnx::ModelProto&)>& infer,
                                        std::vector<std::string>& warnings) {
  // Infer on a copy that declares nothing, so nothing stored can conflict there.
  onnx::ModelProto bare = model;
  for (onnx::GraphProto* graph : AllGraphs(bare)) {
    graph->clear_value_info();
    for (auto& output : *graph->mutable_output()) output.clear_type();
  }
  try {
    infer(bare);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception&) {
    return 0;  // the conflict is not between declarations and inference
  }
  // Names are unique across a model's graphs.
  std::unordered_map<std::string, const onnx::TypeProto*> computed;
  for (onnx::GraphProto* graph : AllGraphs(bare)) {
    for (const auto& v : graph->value_info()) computed.emplace(v.name(), &v.type());
    for (const auto& v : graph->output()) computed.emplace(v.name(), &v.type());
  }
  return DropDeclarations(model, [&](const onnx::ValueInfoProto& declared) {
    const auto it = computed.find(declared.name());
    if (it == computed.end() || !Disagree(declared.type(), *it->second)) return false;
    warnings.push_back(fmt::format(
        "warning: tensor '{}': the file stores shape {} but the graph computes {}; using the "
        "computed shape",
        Printable(declared.name()), ShapeText(declared.type()), ShapeText(*it->second)));
    return true;
  });
}

std::size_t DropAllDeclarations(onnx::ModelProto& model, std::string_view why,
                                std::vector<std::string>& warnings) {
  std::vector<std::string> names;
  const std::size_t dropped = DropDeclarations(model, [&](const onnx::ValueInfoProto& declared) {
    if (names.size() < 6) names.push_back("'" + Printable(declared.name()) + "'");
    return true;
  });
  if (dropped > 0)
    warnings.push_back(fmt::format(
        "warning: the shapes the file stores contradict what the graph computes ({}); using "
        "the computed shapes of all {} declared tensor{} ({}{})",
        why, dropped, dropped == 1 ? "" : "s", fmt::join(names, ", "),
        dropped > names.size() ? ", ..." : ""));
  return dropped;
}

}  // namespace memplan::formats
