// Graphs whose nodes are not in topological order (keras2onnx wrote some): ONNX Runtime
// sorts a graph before it runs it, so memplan sorts it too, before anything else reads it.
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

// Every name `graph`'s nodes read, those of its subgraphs included (a subgraph reads the
// names of the graphs around it).
void NamesRead(const onnx::GraphProto& graph, std::unordered_set<std::string>& names) {
  for (const auto& node : graph.node()) {
    for (const std::string& input : node.input()) names.insert(input);
    for (const auto& attribute : node.attribute())
      if (attribute.has_g()) NamesRead(attribute.g(), names);
  }
}

// What node `node` needs before it runs: its inputs and what its subgraphs read.
std::unordered_set<std::string> NeedsOf(const onnx::NodeProto& node) {
  std::unordered_set<std::string> needs(node.input().begin(), node.input().end());
  for (const auto& attribute : node.attribute())
    if (attribute.has_g()) NamesRead(attribute.g(), needs);
  return needs;
}

// Kahn's algorithm, the ready node that comes first in the file first: a sorted graph keeps
// its order, and an unsorted one moves only what must move. Nodes on a cycle keep their
// place after the others (the structure check then names the cycle).
bool SortGraph(onnx::GraphProto& graph) {
  const int count = graph.node_size();
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < count; ++i)
    for (const std::string& output : graph.node(i).output())
      if (!output.empty()) producer.emplace(output, i);
  std::vector<int> waiting(static_cast<std::size_t>(count), 0);
  std::vector<std::vector<int>> readers(static_cast<std::size_t>(count));
  bool in_order = true;
  for (int i = 0; i < count; ++i) {
    for (const std::string& name : NeedsOf(graph.node(i))) {
      const auto it = producer.find(name);
      if (it == producer.end() || it->second == i) continue;
      ++waiting[static_cast<std::size_t>(i)];
      readers[static_cast<std::size_t>(it->second)].push_back(i);
      in_order = in_order && it->second < i;
    }
  }
  if (in_order) return false;
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int i = 0; i < count; ++i)
    if (waiting[static_cast<std::size_t>(i)] == 0) ready.push(i);
  std::vector<int> order;
  std::vector<bool> placed(static_cast<std::size_t>(count), false);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    placed[static_cast<std::size_t>(i)] = true;
    for (const int reader : readers[static_cast<std::size_t>(i)])
      if (--waiting[static_cast<std::size_t>(reader)] == 0) ready.push(reader);
  }
  for (int i = 0; i < count; ++i)
    if (!placed[static_cast<std::size_t>(i)]) order.push_back(i);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (const int i : order) *sorted.Add() = std::move(*graph.mutable_node(i));
  graph.mutable_node()->Swap(&sorted);
  return true;
}

}  // namespace

std::size_t SortNodesTopologically(onnx::GraphProto& graph) {
  std::size_t sorted = SortGraph(graph) ? 1 : 0;
  for (auto& node : *graph.mutable_node())
    for (auto& attribute : *node.mutable_attribute())
      if (IsControlFlowSubgraph(node, attribute))
        sorted += SortNodesTopologically(*attribute.mutable_g());
  return sorted;
}

}  // namespace memplan::formats
