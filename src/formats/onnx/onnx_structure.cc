// Structural checks on the main graph, before shape inference relies on them.
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::onnx_reader {

namespace {

void RequireName(std::string_view name, std::string_view what, std::string_view source) {
  if (!IsValidUtf8(name))
    throw InputError(fmt::format("{}: {} '{}' is not valid UTF-8", source, what, Printable(name)));
}

// Operators that carry graphs in attributes (If, Loop, Scan, or custom ones).
void RejectSubgraphs(const onnx::NodeProto& node, int index, std::string_view source) {
  for (const auto& attribute : node.attribute()) {
    if (attribute.has_g() || attribute.graphs_size() > 0 ||
        attribute.type() == onnx::AttributeProto::GRAPH ||
        attribute.type() == onnx::AttributeProto::GRAPHS)
      throw InputError(fmt::format(
          "{}: {}: operators with subgraphs (If, Loop, Scan) are not supported (attribute "
          "'{}' holds a graph)",
          source, DescribeNode(node, index), Printable(attribute.name())));
  }
}

}  // namespace

std::string Printable(std::string_view text, std::size_t limit) {
  std::string out;
  for (const char c : text.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      out += fmt::format("\\x{:02x}", byte);
    else
      out += c;
  }
  if (text.size() > limit) out += fmt::format("...({} bytes)", text.size());
  return out;
}

std::string DescribeNode(const onnx::NodeProto& node, int index) {
  if (node.name().empty()) return fmt::format("node #{} ({})", index, Printable(node.op_type()));
  return fmt::format("node '{}' ({})", Printable(node.name()), Printable(node.op_type()));
}

bool IsDefaultDomain(const onnx::NodeProto& node) {
  return node.domain().empty() || node.domain() == "ai.onnx";
}

void CheckStructure(const onnx::GraphProto& graph, std::string_view source) {
  // Names available to a node: graph inputs, initializers, outputs of earlier nodes.
  std::unordered_set<std::string_view> defined;
  std::unordered_set<std::string_view> initializers;
  for (const auto& initializer : graph.initializer()) {
    RequireName(initializer.name(), "initializer", source);
    if (initializer.name().empty())
      throw InputError(fmt::format("{}: an initializer has no name", source));
    if (!initializers.insert(initializer.name()).second)
      throw InputError(
          fmt::format("{}: initializer '{}' appears twice", source, Printable(initializer.name())));
  }
  for (const auto& sparse : graph.sparse_initializer()) {
    const std::string& name = sparse.values().name();
    RequireName(name, "sparse initializer", source);
    if (name.empty()) throw InputError(fmt::format("{}: a sparse initializer has no name", source));
    if (!initializers.insert(name).second)
      throw InputError(fmt::format("{}: initializer '{}' appears twice", source, Printable(name)));
  }
  defined = initializers;
  std::unordered_set<std::string_view> inputs;
  for (int i = 0; i < graph.input_size(); ++i) {
    const std::string& name = graph.input(i).name();
    RequireName(name, "graph input", source);
    if (name.empty()) throw InputError(fmt::format("{}: graph input #{} has no name", source, i));
    if (!inputs.insert(name).second)
      throw InputError(fmt::format("{}: graph input '{}' appears twice", source, Printable(name)));
    defined.insert(name);
  }

  // Who produces each name, to tell "produced later" from "never produced".
  std::unordered_map<std::string_view, int> producer;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    RequireName(node.name(), "node name", source);
    RequireName(node.op_type(), "operator type", source);
    RequireName(node.domain(), "operator domain", source);
    if (node.op_type().empty())
      throw InputError(fmt::format("{}: {} has no operator type", source, DescribeNode(node, i)));
    for (const std::string& output : node.output()) {
      RequireName(output, "tensor name", source);
      if (output.empty()) continue;  // an optional output the node does not produce
      if (defined.contains(output))
        throw InputError(fmt::format("{}: {} writes '{}', which is a graph input or initializer",
                                     source, DescribeNode(node, i), Printable(output)));
      const auto [it, inserted] = producer.emplace(output, i);
      if (!inserted)
        throw InputError(fmt::format(
            "{}: tensor '{}' is produced twice, by {} and by {}", source, Printable(output),
            DescribeNode(graph.node(it->second), it->second), DescribeNode(node, i)));
    }
  }

  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    RejectSubgraphs(node, i, source);
    for (const std::string& input : node.input()) {
      RequireName(input, "tensor name", source);
      if (input.empty() || defined.contains(input)) continue;
      const auto it = producer.find(input);
      if (it == producer.end())
        throw InputError(
            fmt::format("{}: {} reads '{}', which is no graph input, initializer or node output",
                        source, DescribeNode(node, i), Printable(input)));
      if (it->second == i)
        throw InputError(fmt::format("{}: {} reads its own output '{}' (a cycle)", source,
                                     DescribeNode(node, i), Printable(input)));
      throw InputError(
          fmt::format("{}: {} reads '{}' before {} produces it: nodes must be in topological order "
                      "(a cycle or a misordered file)",
                      source, DescribeNode(node, i), Printable(input),
                      DescribeNode(graph.node(it->second), it->second)));
    }
    for (const std::string& output : node.output())
      if (!output.empty()) defined.insert(output);
  }

  for (const auto& output : graph.output()) {
    RequireName(output.name(), "graph output", source);
    if (!defined.contains(output.name()))
      throw InputError(
          fmt::format("{}: graph output '{}' is no graph input, initializer or node output", source,
                      Printable(output.name())));
  }
}

}  // namespace memplan::onnx_reader
