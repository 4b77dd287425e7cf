// Dimensions named by the symbolic values they come from (onnx_symbolic.h). A dimension
// ONNX's inference cannot compute gets a made-up name (unk__0) that nothing in the file
// carries, so no --dim can bind it; when it follows from a graph input's named dimension,
// that name is the right one, and binding it later makes the dimension a number.
#include "src/formats/onnx/onnx_symbolic.h"

#include <optional>
#include <vector>

#include "src/formats/onnx/onnx_fold.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

using Dim = onnx::TensorShapeProto_Dimension;

// True for a dimension nothing names: no number, and no name or one ONNX made up.
bool Unknown(const Dim& d) {
  return !d.has_dim_value() && (!d.has_dim_param() || d.dim_param().starts_with("unk__"));
}

// The dims a rule gives output `name`, merged into its declaration: each unknown
// dimension there takes the rule's; returns whether one did.
bool Fill(onnx::GraphProto& graph, const std::string& name, const std::vector<Dim>& dims) {
  onnx::ValueInfoProto* target = nullptr;
  for (auto& v : *graph.mutable_value_info())
    if (v.name() == name) target = &v;
  for (auto& v : *graph.mutable_output())
    if (v.name() == name) target = &v;
  if (!target || !target->type().has_tensor_type()) return false;  // not typed yet
  auto* shape = target->mutable_type()->mutable_tensor_type()->mutable_shape();
  if (shape->dim_size() == 0)
    for (std::size_t i = 0; i < dims.size(); ++i) shape->add_dim();
  if (shape->dim_size() != static_cast<int>(dims.size())) return false;
  bool changed = false;
  for (int i = 0; i < shape->dim_size(); ++i) {
    const Dim& from = dims[static_cast<std::size_t>(i)];
    if (!Unknown(*shape->mutable_dim(i)) || Unknown(from)) continue;
    *shape->mutable_dim(i) = from;
    changed = true;
  }
  return changed;
}

const onnx::TensorShapeProto* ValuesOf(const PropagatedValues& values, const std::string& name) {
  const auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

// The input's dims as inference left them (graph inputs, value_info, outputs).
std::optional<std::vector<Dim>> DimsOf(const onnx::GraphProto& graph, const std::string& name) {
  auto from = [&](const onnx::ValueInfoProto& v) -> std::optional<std::vector<Dim>> {
    if (v.name() != name || !v.type().tensor_type().has_shape()) return std::nullopt;
    const auto& dims = v.type().tensor_type().shape().dim();
    return std::vector<Dim>(dims.begin(), dims.end());
  };
  for (const auto& v : graph.input())
    if (auto d = from(v)) return d;
  for (const auto& v : graph.value_info())
    if (auto d = from(v)) return d;
  for (const auto& v : graph.output())
    if (auto d = from(v)) return d;
  return std::nullopt;
}

// Expand's broadcast of the input's dims with the shape's values (numpy rule).
std::optional<std::vector<Dim>> Broadcast(const std::vector<Dim>& input,
                                          const onnx::TensorShapeProto& shape) {
  if (input.size() > static_cast<std::size_t>(shape.dim_size())) return std::nullopt;
  std::vector<Dim> out(shape.dim().begin(), shape.dim().end());
  const std::size_t offset = out.size() - input.size();
  for (std::size_t i = 0; i < input.size(); ++i) {
    Dim& d = out[offset + i];
    const bool one = d.has_dim_value() && d.dim_value() == 1;
    if (one || (!d.has_dim_value() && input[i].has_dim_value() && input[i].dim_value() != 1))
      d = input[i];
  }
  return out;
}

bool HasMadeUpName(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type()) return false;
  for (const auto& d : v.type().tensor_type().shape().dim())
    if (d.has_dim_param() && d.dim_param().starts_with("unk__")) return true;
  return false;
}

// ONNX keeps what a value's declaration already says over what it infers (a made-up name
// over the input's), so the types holding made-up names are forgotten, for the next pass
// to infer afresh.
void ForgetMadeUpNames(onnx::GraphProto& graph) {
  auto* infos = graph.mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i)
    if (HasMadeUpName(infos->Get(i))) infos->DeleteSubrange(i, 1);
  for (auto& output : *graph.mutable_output())
    if (HasMadeUpName(output)) output.clear_type();
}

}  // namespace

std::optional<std::int64_t> KnownScalar(const onnx::GraphProto& graph, const std::string& name) {
  std::optional<ConstTensor> value;
  for (const auto& init : graph.initializer())
    if (init.name() == name) value = FromTensorProto(init);
  for (const auto& node : graph.node())
    if (node.op_type() == "Constant" && node.output_size() == 1 && node.output(0) == name)
      for (const auto& a : node.attribute())
        if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR)
          value = FromTensorProto(a.t());
  if (!value || value->IsReal() || value->ints.size() != 1) return std::nullopt;
  return value->ints[0];
}

bool ApplySymbolicValueRules(onnx::ModelProto& model, const PropagatedValues& values) {
  onnx::GraphProto& graph = *model.mutable_graph();
  bool changed = false;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto node = graph.node(i);  // a copy: Fill may grow the graph's lists
    if (!IsDefaultDomain(node) || node.output_size() != 1 || node.output(0).empty()) continue;
    const std::string& op = node.op_type();
    if (op == "Range" && node.input_size() == 3) {
      const onnx::TensorShapeProto* limit = ValuesOf(values, node.input(1));
      if (!limit || limit->dim_size() != 1 || KnownScalar(graph, node.input(0)) != 0 ||
          KnownScalar(graph, node.input(2)) != 1)
        continue;
      changed |= Fill(graph, node.output(0), {limit->dim(0)});
    } else if (op == "ConstantOfShape" && node.input_size() == 1) {
      const onnx::TensorShapeProto* shape = ValuesOf(values, node.input(0));
      if (!shape) continue;
      changed |= Fill(graph, node.output(0), {shape->dim().begin(), shape->dim().end()});
    } else if (op == "Expand" && node.input_size() == 2) {
      const onnx::TensorShapeProto* shape = ValuesOf(values, node.input(1));
      const auto input = DimsOf(graph, node.input(0));
      if (!shape || !input) continue;
      if (const auto out = Broadcast(*input, *shape)) changed |= Fill(graph, node.output(0), *out);
    }
  }
  // Downstream of what changed, the names ONNX made up would stay: forget them.
  if (changed) ForgetMadeUpNames(graph);
  return changed;
}

}  // namespace memplan::formats
