// Model-local functions (ModelProto.functions). ONNX infers a call by inferring the
// function's body, recursively, with no guard against a function that calls itself (the
// stack overflows) or calls nested into an exponential number of inferences. So: bodies
// get the same node checks as the main graph, hold no subgraphs (as memplan requires of
// the main graph), form no call cycle, and all calls expanded stay below a bound.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

// Most node inferences one model may cost once function calls are expanded.
constexpr std::uint64_t kMaxExpandedNodes = 1'000'000;

std::string FunctionKey(const std::string& domain, const std::string& name) {
  return domain + ":" + name;
}

std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  return std::min(kMaxExpandedNodes + 1, a + b);
}

}  // namespace

void CheckFunctions(const onnx::ModelProto& model, std::string_view source) {
  const auto& functions = model.functions();
  const auto count = static_cast<std::size_t>(functions.size());
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t f = 0; f < count; ++f) {
    const onnx::FunctionProto& function = functions[static_cast<int>(f)];
    const std::string key = FunctionKey(function.domain(), function.name());
    if (!IsValidUtf8(key))
      throw InputError(fmt::format("{}: function '{}' has a name that is not valid UTF-8", source,
                                   Printable(key)));
    if (!index.emplace(key, f).second)
      throw InputError(
          fmt::format("{}: model-local function '{}' is defined twice", source, Printable(key)));
  }

  // callees[f]: the functions f's body calls, once per call.
  std::vector<std::vector<std::size_t>> callees(count);
  for (std::size_t f = 0; f < count; ++f) {
    const onnx::FunctionProto& function = functions[static_cast<int>(f)];
    const std::string where = fmt::format("function '{}': ", Printable(function.name()));
    for (int i = 0; i < function.node_size(); ++i) {
      const onnx::NodeProto& node = function.node(i);
      for (const auto& attribute : node.attribute())
        if (attribute.has_g() || attribute.graphs_size() > 0)
          throw InputError(fmt::format("{}: {}{}: subgraphs inside functions are not supported",
                                       source, where, DescribeNode(node, i)));
      const auto callee = index.find(FunctionKey(node.domain(), node.op_type()));
      if (callee != index.end()) callees[f].push_back(callee->second);
    }
    CheckNodesAgainstSchemas(function.node(), OpsetsOf(function.opset_import()), where, source);
  }

  // Expanded size of each function, callees before callers (Kahn's algorithm on the call
  // graph, iterative so no file can exhaust the stack). A function never reached is on a
  // call cycle.
  std::vector<std::vector<std::size_t>> callers(count);
  std::vector<std::size_t> callees_left(count);
  std::deque<std::size_t> ready;
  for (std::size_t f = 0; f < count; ++f) {
    for (const std::size_t g : callees[f]) callers[g].push_back(f);
    callees_left[f] = callees[f].size();
    if (callees_left[f] == 0) ready.push_back(f);
  }
  std::vector<std::uint64_t> expanded(count, 0);
  while (!ready.empty()) {
    const std::size_t f = ready.front();
    ready.pop_front();
    std::uint64_t cost = static_cast<std::uint64_t>(functions[static_cast<int>(f)].node_size());
    for (const std::size_t g : callees[f]) cost = SaturatingAdd(cost, expanded[g]);
    expanded[f] = std::min(kMaxExpandedNodes + 1, cost);
    for (const std::size_t caller : callers[f])
      if (--callees_left[caller] == 0) ready.push_back(caller);
  }
  for (std::size_t f = 0; f < count; ++f)
    if (callees_left[f] != 0)
      throw InputError(fmt::format(
          "{}: model-local function '{}' calls itself (directly or through other functions)",
          source, Printable(functions[static_cast<int>(f)].name())));

  std::uint64_t total = 0;
  for (const auto& node : model.graph().node()) {
    const auto callee = index.find(FunctionKey(node.domain(), node.op_type()));
    total = SaturatingAdd(total, 1 + (callee == index.end() ? 0 : expanded[callee->second]));
  }
  if (total > kMaxExpandedNodes)
    throw InputError(fmt::format("{}: calls of model-local functions expand to more than {} nodes",
                                 source, kMaxExpandedNodes));
}

}  // namespace memplan::formats
