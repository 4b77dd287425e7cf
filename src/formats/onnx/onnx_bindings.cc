// --dim and --shape: values the user supplies for what the model leaves open.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <unordered_set>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::onnx_reader {

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

void BindShape(onnx::GraphProto& graph, const std::string& name,
               const std::vector<std::int64_t>& dims, std::string_view source) {
  if (IsInitializer(graph, name))
    throw UsageError(
        fmt::format("{}: --shape {}: '{}' is an initializer; its shape is stored in "
                    "the model",
                    source, Printable(name), Printable(name)));
  bool is_input = false;
  for (const auto& input : graph.input()) is_input = is_input || input.name() == name;
  const bool is_output = IsNodeOutput(graph, name);
  if (!is_input && !is_output)
    throw UsageError(fmt::format("{}: --shape {}: the model has no tensor called '{}'", source,
                                 Printable(name), Printable(name)));
  bool declared = false;
  for (onnx::ValueInfoProto* v : DeclaredValues(graph)) {
    if (v->name() != name) continue;
    SetShape(*v, dims);
    declared = true;
  }
  if (!declared) {
    // A node output nobody declared: declare it, so inference merges with it.
    onnx::ValueInfoProto* v = graph.add_value_info();
    v->set_name(name);
    SetShape(*v, dims);
  }
}

}  // namespace

std::vector<std::string> ApplyBindings(onnx::GraphProto& graph, const LoadOptions& options,
                                       std::string_view source) {
  std::vector<std::string> warnings;
  if (options.dims.empty() && options.shapes.empty()) return warnings;
  const std::string symbols = KnownSymbols(graph);
  for (const auto& [name, value] : options.dims) {
    if (value < 0)
      throw UsageError(fmt::format("--dim {}={}: a dimension cannot be negative", name, value));
    if (BindDim(graph, name, value) == 0 && (name != "batch" || BindLeadingDims(graph, value) == 0))
      warnings.push_back(fmt::format(
          "warning: --dim {}={} binds nothing in {}: no dimension of the model is called '{}'{}; "
          "ignored",
          name, value, source, name, symbols));
  }
  for (const auto& [name, dims] : options.shapes) {
    for (const std::int64_t d : dims)
      if (d < 0) throw UsageError(fmt::format("--shape {}: a dimension cannot be negative", name));
    BindShape(graph, name, dims, source);
  }
  return warnings;
}

}  // namespace memplan::onnx_reader
