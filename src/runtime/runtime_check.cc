// Running a model for verification: deterministic inputs, collected outputs and state,
// and the naive-layout twin to compare with.
#include <fmt/format.h>

#include <memory>

#include "memplan/runtime_check.h"
#include "src/runtime/hash_stream.h"

namespace memplan {

void FillExternalTensors(Interpreter& interpreter, std::uint64_t invocation) {
  for (const TensorRef& ref : interpreter.ExternalTensors()) {
    const std::uint64_t seed = runtime::Mix64((static_cast<std::uint64_t>(ref.subgraph) << 40) ^
                                              (static_cast<std::uint64_t>(ref.tensor) << 8) ^
                                              runtime::Mix64(invocation + 0x77));
    runtime::FillStream(interpreter.TensorData(ref), seed);
  }
}

namespace {

std::vector<std::byte> Copy(std::span<const std::byte> bytes) {
  return {bytes.begin(), bytes.end()};
}

}  // namespace

std::vector<InvocationResult> RunInvocations(Interpreter& interpreter, std::size_t invokes) {
  interpreter.AllocateTensors();
  const Subgraph& main = interpreter.graph().subgraphs[0];
  const std::vector<TensorRef> variables = interpreter.VariableTensors();
  std::vector<InvocationResult> results;
  for (std::size_t k = 0; k < invokes; ++k) {
    FillExternalTensors(interpreter, interpreter.invocations());
    interpreter.Invoke();
    InvocationResult r;
    for (std::size_t i = 0; i < main.outputs.size(); ++i)
      r.outputs.push_back(Copy(interpreter.output(i)));
    for (const TensorRef& v : variables) r.variables.push_back(Copy(interpreter.TensorData(v)));
    results.push_back(std::move(r));
  }
  return results;
}

namespace {

std::string CompareBytes(const std::vector<std::byte>& a, const std::vector<std::byte>& b) {
  if (a.size() != b.size()) return fmt::format("sizes {} and {} differ", a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return fmt::format("byte {} differs", i);
  return {};
}

}  // namespace

std::string FirstDifference(const Graph& graph, const std::vector<InvocationResult>& expected,
                            const std::vector<InvocationResult>& actual) {
  if (expected.size() != actual.size())
    return fmt::format("{} invocations against {}", actual.size(), expected.size());
  const Subgraph& main = graph.subgraphs[0];
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const InvocationResult& e = expected[k];
    const InvocationResult& a = actual[k];
    for (std::size_t i = 0; i < e.outputs.size() && i < a.outputs.size(); ++i) {
      const std::string d = CompareBytes(e.outputs[i], a.outputs[i]);
      if (!d.empty())
        return fmt::format("invocation {}, output {} '{}': {}", k + 1, i,
                           main.tensors[main.outputs[i]].name, d);
    }
    for (std::size_t v = 0; v < e.variables.size() && v < a.variables.size(); ++v) {
      const std::string d = CompareBytes(e.variables[v], a.variables[v]);
      if (!d.empty()) return fmt::format("invocation {}, variable {}: {}", k + 1, v, d);
    }
  }
  return {};
}

std::vector<InvocationResult> RunNaive(const Graph& graph, const KernelRegistry& kernels,
                                       std::size_t invokes) {
  InterpreterOptions options;
  options.strategy = "naive";
  options.offline = OfflinePlanUse::kIgnore;
  const Bytes need = RequiredArenaBytes(graph, kernels, options);
  auto memory = std::make_unique_for_overwrite<std::byte[]>(need + kDefaultArenaAlignment);
  Arena arena(std::span<std::byte>(memory.get(), need + kDefaultArenaAlignment));
  Interpreter interpreter(graph, arena, kernels, options);
  return RunInvocations(interpreter, invokes);
}

}  // namespace memplan
