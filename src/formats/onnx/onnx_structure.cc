// Structural checks on the main graph, before shape inference relies on them.
#include <fmt/format.h>

#include <unordered_map>
#include <unordered_set>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

void RequireName(std::string_view name, std::string_view what, std::string_view source) {
  if (!IsValidUtf8(name))
    throw InputError(fmt::format("{}: {} '{}' is not valid UTF-8", source, what, Printable(name)));
}

// The graph attributes of a node memplan plans: If's branches, the body of Loop and Scan.
// Any other graph attribute (a custom operator's, or one on the wrong operator) is refused.
void CheckSubgraphAttributes(const onnx::NodeProto& node, int index, std::string_view source) {
  for (const auto& attribute : node.attribute()) {
    const bool holds_graph = attribute.has_g() || attribute.graphs_size() > 0 ||
                             attribute.type() == onnx::AttributeProto::GRAPH ||
                             attribute.type() == onnx::AttributeProto::GRAPHS;
    if (!holds_graph) continue;
    if (!IsControlFlowSubgraph(node, attribute))
      throw InputError(
          fmt::format("{}: {}: attribute '{}' holds a graph; memplan plans the subgraphs of If "
                      "(then_branch, else_branch), Loop and Scan (body) only",
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

bool IsRandom(const std::string& op) {
  return op == "RandomNormal" || op == "RandomUniform" || op == "RandomNormalLike" ||
         op == "RandomUniformLike" || op == "Multinomial" || op == "Bernoulli";
}

namespace {

// The names a node may read before any node runs: initializers (sparse ones too) and graph
// inputs, each named once.
std::unordered_set<std::string_view> NamesBeforeNodes(const onnx::GraphProto& graph,
                                                      std::string_view source) {
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
  std::unordered_set<std::string_view> defined = initializers;
  std::unordered_set<std::string_view> inputs;
  for (int i = 0; i < graph.input_size(); ++i) {
    const std::string& name = graph.input(i).name();
    RequireName(name, "graph input", source);
    if (name.empty()) throw InputError(fmt::format("{}: graph input #{} has no name", source, i));
    if (!inputs.insert(name).second)
      throw InputError(fmt::format("{}: graph input '{}' appears twice", source, Printable(name)));
    defined.insert(name);
  }
  return defined;
}

// Who produces each name, to tell "produced later" from "never produced"; each node with an
// operator type, each output produced once and none of them a name defined before the nodes.
std::unordered_map<std::string_view, int> Producers(
    const onnx::GraphProto& graph, const std::unordered_set<std::string_view>& defined,
    std::string_view source) {
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
  return producer;
}

// `outer`: the names of the enclosing graphs a subgraph may read (empty for the main graph).
// `where`: "" for the main graph, else "subgraph 'body' of node 'L' (Loop): ".
void CheckGraph(const onnx::GraphProto& graph, const std::unordered_set<std::string>& outer,
                const std::string& where_prefix, std::string_view source_file) {
  const std::string source_text = std::string(source_file) + where_prefix;
  const std::string_view source = source_text;
  // Names available to a node: graph inputs, initializers, outputs of earlier nodes.
  std::unordered_set<std::string_view> defined = NamesBeforeNodes(graph, source);
  const std::unordered_map<std::string_view, int> producer = Producers(graph, defined, source);

  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    CheckSubgraphAttributes(node, i, source);
    for (const std::string& input : node.input()) {
      RequireName(input, "tensor name", source);
      if (input.empty() || defined.contains(input) || outer.contains(input)) continue;
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
    // A subgraph reads what this graph defined so far, and what encloses it.
    bool has_subgraph = false;
    for (const auto& attribute : node.attribute()) has_subgraph |= attribute.has_g();
    if (has_subgraph) {
      std::unordered_set<std::string> visible = outer;
      for (const std::string_view name : defined) visible.emplace(name);
      for (const auto& attribute : node.attribute())
        if (attribute.has_g())
          CheckGraph(attribute.g(), visible,
                     where_prefix + ": " + DescribeSubgraph(node, i, attribute.name()),
                     source_file);
    }
    for (const std::string& output : node.output())
      if (!output.empty()) defined.insert(output);
  }

  for (const auto& output : graph.output()) {
    RequireName(output.name(), "graph output", source);
    if (!defined.contains(output.name()) && !outer.contains(output.name()))
      throw InputError(
          fmt::format("{}: graph output '{}' is no graph input, initializer or node output", source,
                      Printable(output.name())));
  }
}

}  // namespace

bool IsControlFlowSubgraph(const onnx::NodeProto& node, const onnx::AttributeProto& attribute) {
  if (!IsDefaultDomain(node) || !attribute.has_g()) return false;
  if (node.op_type() == "If")
    return attribute.name() == "then_branch" || attribute.name() == "else_branch";
  return (node.op_type() == "Loop" || node.op_type() == "Scan") && attribute.name() == "body";
}

std::string DescribeSubgraph(const onnx::NodeProto& node, int index, const std::string& attribute) {
  return fmt::format("subgraph '{}' of {}", Printable(attribute), DescribeNode(node, index));
}

void CheckStructure(const onnx::GraphProto& graph, std::string_view source) {
  CheckGraph(graph, {}, "", source);
}

}  // namespace memplan::formats
