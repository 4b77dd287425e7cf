// --dim and --shape: values the user supplies for what the model leaves open.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

// Every declared value (graph inputs, outputs, value_info) in one list, those of the
// subgraphs of If, Loop and Scan included: a --dim binds a name everywhere.
void AddDeclaredValues(onnx::GraphProto& graph, std::vector<onnx::ValueInfoProto*>& values) {
  for (auto& v : *graph.mutable_input()) values.push_back(&v);
  for (auto& v : *graph.mutable_output()) values.push_back(&v);
  for (auto& v : *graph.mutable_value_info()) values.push_back(&v);
  for (auto& node : *graph.mutable_node())
    for (auto& attribute : *node.mutable_attribute())
      if (IsControlFlowSubgraph(node, attribute)) AddDeclaredValues(*attribute.mutable_g(), values);
}

std::vector<onnx::ValueInfoProto*> DeclaredValues(onnx::GraphProto& graph) {
  std::vector<onnx::ValueInfoProto*> values;
  AddDeclaredValues(graph, values);
  return values;
}

// ", symbolic dimensions: a, b" or ", it has no symbolic dimensions".
std::string KnownSymbols(onnx::GraphProto& graph) {
  std::set<std::string> symbols;
  for (const onnx::ValueInfoProto* v : DeclaredValues(graph)) {
    if (!v->type().has_tensor_type() || !v->type().tensor_type().has_shape()) continue;
    for (const auto& dim : v->type().tensor_type().shape().dim())
      if (dim.has_dim_param()) symbols.insert(Printable(dim.dim_param()));
  }
  if (symbols.empty()) return "; it has no symbolic dimensions";
  return fmt::format("; its symbolic dimensions: {}", fmt::join(symbols, ", "));
}

std::size_t BindDim(onnx::GraphProto& graph, const std::string& name, std::int64_t value) {
  std::size_t bound = 0;
  for (onnx::ValueInfoProto* v : DeclaredValues(graph)) {
    if (!v->type().has_tensor_type() || !v->type().tensor_type().has_shape()) continue;
    for (auto& dim : *v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (dim.has_dim_param() && dim.dim_param() == name) {
        dim.set_dim_value(value);
        ++bound;
      }
    }
  }
  return bound;
}

// --dim batch=N where no dimension is called "batch": the leading dimension of every
// graph input that has no number there (as for TFLite's leading -1), so one flag works
// for both formats.
std::size_t BindLeadingDims(onnx::GraphProto& graph, std::int64_t value) {
  std::unordered_set<std::string> initializers;
  for (const auto& initializer : graph.initializer()) initializers.insert(initializer.name());
  std::size_t bound = 0;
  for (auto& input : *graph.mutable_input()) {
    if (initializers.contains(input.name()) || !input.type().has_tensor_type()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() == 0 || shape->dim(0).has_dim_value()) continue;
    shape->mutable_dim(0)->set_dim_value(value);
    ++bound;
  }
  return bound;
}

void SetShape(onnx::ValueInfoProto& value, const std::vector<std::int64_t>& dims) {
  auto* shape = value.mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (const std::int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

bool IsNodeOutput(const onnx::GraphProto& graph, const std::string& name) {
  for (const auto& node : graph.node())
    for (const std::string& output : node.output())
      if (output == name) return true;
  return false;
}

bool IsInitializer(const onnx::GraphProto& graph, const std::string& name) {
  for (const auto& initializer : graph.initializer())
    if (initializer.name() == name) return true;
  for (const auto& sparse : graph.sparse_initializer())
    if (sparse.values().name() == name) return true;
  return false;
}

// The element type a --shape on the output of another domain's operator (which ONNX cannot
// type: onnxruntime-extensions' DecodeImage, ...) takes before inference, so that the
// operators after it are typed: its node's first input whose type the file declares. Returns
// the warning saying so, or "" when nothing was borrowed.
std::string BorrowElementType(onnx::GraphProto& graph, onnx::ValueInfoProto& value) {
  if (value.type().tensor_type().elem_type() != 0) return "";
  std::unordered_map<std::string, std::int32_t> declared;
  for (const auto& v : graph.input())
    declared.emplace(v.name(), v.type().tensor_type().elem_type());
  for (const auto& v : graph.value_info())
    declared.emplace(v.name(), v.type().tensor_type().elem_type());
  for (const auto& t : graph.initializer()) declared.emplace(t.name(), t.data_type());
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    if (IsDefaultDomain(node) ||
        std::find(node.output().begin(), node.output().end(), value.name()) == node.output().end())
      continue;
    for (const std::string& input : node.input()) {
      const auto it = declared.find(input);
      if (it == declared.end() || it->second == 0) continue;
      value.mutable_type()->mutable_tensor_type()->set_elem_type(it->second);
      return fmt::format(
          "warning: tensor '{}': element type {} taken from input '{}' of {}, which memplan has "
          "no shape rule for",
          Printable(value.name()), OnnxTypeName(it->second), Printable(input),
          DescribeNode(node, i));
    }
  }
  return "";
}

// Returns the warnings binding gave (an element type borrowed).
std::vector<std::string> BindShape(onnx::GraphProto& graph, const std::string& name,
                                   const std::vector<std::int64_t>& dims, std::string_view source) {
  if (IsInitializer(graph, name))
    throw UsageError(
        fmt::format("{}: shape of {}: '{}' is an initializer; its shape is stored in "
                    "the model",
                    source, Printable(name), Printable(name)));
  bool is_input = false;
  for (const auto& input : graph.input()) is_input = is_input || input.name() == name;
  const bool is_output = IsNodeOutput(graph, name);
  if (!is_input && !is_output)
    throw UsageError(fmt::format("{}: shape of {}: the model has no tensor called '{}'", source,
                                 Printable(name), Printable(name)));
  std::vector<onnx::ValueInfoProto*> targets;
  for (onnx::ValueInfoProto* v : DeclaredValues(graph))
    if (v->name() == name) targets.push_back(v);
  if (targets.empty()) {
    // A node output nobody declared: declare it, so inference merges with it.
    targets.push_back(graph.add_value_info());
    targets.back()->set_name(name);
  }
  std::vector<std::string> warnings;
  for (onnx::ValueInfoProto* v : targets) {
    SetShape(*v, dims);
    if (std::string w = BorrowElementType(graph, *v); !w.empty()) warnings.push_back(std::move(w));
  }
  return warnings;
}

}  // namespace

void NameAnonymousDims(onnx::GraphProto& graph) {
  std::unordered_set<std::string> initializers;
  for (const auto& initializer : graph.initializer()) initializers.insert(initializer.name());
  for (auto& input : *graph.mutable_input()) {
    if (initializers.contains(input.name()) || !input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape())
      continue;
    auto* dims = input.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
    for (int axis = 0; axis < dims->size(); ++axis) {
      auto& dim = *dims->Mutable(axis);
      const bool anonymous = dim.has_dim_value() ? dim.dim_value() < 0
                                                 : !dim.has_dim_param() || dim.dim_param().empty();
      if (anonymous) dim.set_dim_param(fmt::format("{}:{}", input.name(), axis));
    }
  }
  // Elsewhere a negative size is no size at all: unknown, for inference to fill.
  for (onnx::ValueInfoProto* v : DeclaredValues(graph)) {
    if (!v->type().has_tensor_type() || !v->type().tensor_type().has_shape()) continue;
    for (auto& dim : *v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim())
      if (dim.has_dim_value() && dim.dim_value() < 0) dim.clear_dim_value();
  }
}

std::vector<std::string> ApplyBindings(onnx::GraphProto& graph, const LoadOptions& options,
                                       std::string_view source) {
  std::vector<std::string> warnings;
  NameAnonymousDims(graph);
  if (options.dims.empty() && options.shapes.empty()) return warnings;
  const std::string symbols = KnownSymbols(graph);
  for (const auto& [name, value] : options.dims) {
    if (value < 0)
      throw UsageError(fmt::format("dimension {}={}: a dimension cannot be negative", name, value));
    if (BindDim(graph, name, value) == 0 && (name != "batch" || BindLeadingDims(graph, value) == 0))
      warnings.push_back(
          fmt::format("warning: dimension {}={} binds nothing in {}: no dimension of the model is "
                      "called '{}'{}; "
                      "ignored",
                      name, value, source, name, symbols));
  }
  for (const auto& [name, dims] : options.shapes) {
    for (const std::int64_t d : dims)
      if (d < 0) throw UsageError(fmt::format("shape of {}: a dimension cannot be negative", name));
    for (std::string& w : BindShape(graph, name, dims, source)) warnings.push_back(std::move(w));
  }
  return warnings;
}

}  // namespace memplan::formats
