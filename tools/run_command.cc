// memplan run MODEL: loads the model into a TFLM-style arena, plans it, invokes it with
// the verification kernels, compares the outputs with a naive layout and prints the
// arena recording.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "memplan/error.h"
#include "memplan/recording.h"
#include "memplan/runtime.h"
#include "memplan/runtime_check.h"
#include "memplan/workload.h"
#include "tools/commands.h"
#include "tools/model_options.h"

namespace memplan::cli {

namespace {

struct RunOptions {
  std::string model;
  ModelFlags model_flags;
  std::string strategy = "tflm_greedy";
  std::optional<Bytes> arena_size;
  std::optional<Bytes> persistent_size;
  std::size_t invokes = 1;
  std::vector<std::string> preallocate;
  std::string offline = "auto";
  std::string format = "text";
};

// An aligned buffer of exactly `size` bytes on the heap.
struct AlignedBuffer {
  explicit AlignedBuffer(Bytes size)
      : memory(std::make_unique_for_overwrite<std::byte[]>(size + kDefaultArenaAlignment)) {
    const auto base = reinterpret_cast<std::uintptr_t>(memory.get());
    const std::size_t skip =
        (kDefaultArenaAlignment - base % kDefaultArenaAlignment) % kDefaultArenaAlignment;
    span = std::span<std::byte>(memory.get() + skip, size);
  }
  std::unique_ptr<std::byte[]> memory;  // owns the bytes
  std::span<std::byte> span;            // the aligned part handed out
};

// A tensor by name (any subgraph) or by index in subgraph 0.
TensorRef FindTensor(const Graph& graph, const std::string& spec) {
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s)
    for (std::size_t t = 0; t < graph.subgraphs[s].tensors.size(); ++t)
      if (graph.subgraphs[s].tensors[t].name == spec)
        return {static_cast<std::int32_t>(s), static_cast<std::int32_t>(t)};
  const std::string digits = spec.starts_with("#") ? spec.substr(1) : spec;
  if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos &&
      digits.size() < 10) {
    const auto t = static_cast<std::size_t>(std::stoul(digits));
    if (t < graph.subgraphs[0].tensors.size()) return {0, static_cast<std::int32_t>(t)};
  }
  throw UsageError(
      fmt::format("--preallocate {}: no tensor of that name or index in {}", spec, graph.source));
}

OfflinePlanUse OfflineUse(const std::string& name) {
  if (name == "ignore") return OfflinePlanUse::kIgnore;
  if (name == "require") return OfflinePlanUse::kRequire;
  return OfflinePlanUse::kWhenPresent;
}

nlohmann::ordered_json AllocationsJson(const Arena& arena) {
  auto out = nlohmann::ordered_json::array();
  for (int k = 0; k < static_cast<int>(ArenaAllocation::kCount); ++k) {
    const auto kind = static_cast<ArenaAllocation>(k);
    const ArenaTally& t = arena.Tally(kind);
    if (t.used == 0 && t.requested == 0) continue;
    const ArenaAllocationLabel label = ArenaAllocationName(kind);
    out.push_back({{"kind", label.name},
                   {"used_bytes", t.used},
                   {"requested_bytes", t.requested},
                   {"count", t.count},
                   {"unit", label.unit}});
  }
  return out;
}

void Run(const RunOptions& o) {
  const Workload workload = LoadWorkload(o.model, ToLoadOptions(o.model_flags));
  if (!workload.graph)
    throw UsageError(
        fmt::format("run needs a model (.tflite, .onnx or zoo:NAME), not {} input '{}'",
                    workload.kind, o.model));
  const Graph& graph = *workload.graph;
  const KernelRegistry& kernels = VerificationKernels();

  InterpreterOptions options;
  options.strategy = o.strategy.starts_with("offsets/") ? o.strategy.substr(8) : o.strategy;
  options.offline = OfflineUse(o.offline);

  std::vector<std::vector<std::byte>> user_buffers;
  std::vector<std::pair<TensorRef, std::span<std::byte>>> preallocated;
  for (const std::string& spec : o.preallocate) {
    const TensorRef ref = FindTensor(graph, spec);
    const Tensor& tensor = graph.subgraphs[ref.subgraph].tensors[ref.tensor];
    user_buffers.emplace_back(tensor.bytes.value_or(0));
    preallocated.emplace_back(ref, user_buffers.back());
  }

  const ArenaRequirement need = MeasureArena(graph, kernels, options, preallocated);
  const Bytes required = need.total;
  std::unique_ptr<AlignedBuffer> main_buffer, persistent_buffer;
  std::unique_ptr<Arena> arena;
  if (o.persistent_size) {
    persistent_buffer = std::make_unique<AlignedBuffer>(*o.persistent_size);
    main_buffer = std::make_unique<AlignedBuffer>(o.arena_size.value_or(need.non_persistent));
    arena = std::make_unique<Arena>(persistent_buffer->span, main_buffer->span);
  } else {
    main_buffer = std::make_unique<AlignedBuffer>(o.arena_size.value_or(required));
    arena = std::make_unique<Arena>(main_buffer->span);
  }
  Interpreter interpreter(graph, *arena, kernels, options);
  for (const auto& [ref, buffer] : preallocated)
    interpreter.RegisterPreallocatedTensor(ref, buffer);
  const auto planned = RunInvocations(interpreter, o.invokes);
  const std::string difference =
      FirstDifference(graph, RunNaive(graph, kernels, o.invokes), planned);
  const bool match = difference.empty();
  const InterpreterStats& s = interpreter.stats();

  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["model"] = o.model;
    j["strategy"] = interpreter.plan().strategy;
    j["head_bytes"] = s.head_bytes;
    j["tail_bytes"] = arena->PersistentUsedBytes();
    j["temp_peak_bytes"] = arena->PeakTempBytes();
    j["arena_bytes"] = arena->capacity();
    j["arena_used_bytes"] = arena->UsedBytes();
    j["peak_bytes"] = arena->PeakUsedBytes();
    j["required_arena_bytes"] = required;
    j["required_persistent_bytes"] = need.persistent;
    j["required_non_persistent_bytes"] = need.non_persistent;
    j["two_buffers"] = arena->two_buffers();
    j["planned_buffers"] = s.planned_buffers;
    j["scratch_buffers"] = s.scratch_buffers;
    j["offline_buffers"] = s.offline_buffers;
    j["tail_variables"] = s.tail_variables;
    j["variable_bytes"] = s.variable_bytes;
    j["preallocated_tensors"] = s.preallocated;
    j["preallocated_bytes"] = s.preallocated_bytes;
    if (s.preallocated > 0) j["head_without_preallocation"] = s.head_without_preallocation;
    j["allocations"] = AllocationsJson(*arena);
    j["invokes"] = o.invokes;
    j["outputs_match_naive"] = match;
    if (!match) j["difference"] = difference;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}", PrintAllocations(*arena));
    fmt::print("{}", PrintRuntimeSummary(*arena, interpreter));
    fmt::print(
        "[memplan] Arena {} bytes (this model needs {}); {} invocation{}: outputs {} the "
        "naive layout{}\n",
        arena->capacity(), required, o.invokes, o.invokes == 1 ? "" : "s",
        match ? "match" : "DIFFER FROM", match ? "" : " (" + difference + ")");
  }
  if (!match)
    throw InternalError(
        fmt::format("{}: the planned arena's outputs differ from the naive "
                    "layout: {}",
                    o.model, difference));
}

}  // namespace

void AddRunCommand(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Load a model into a TFLM-style arena, plan, invoke it with verification kernels "
      "and compare with a naive layout");
  cmd->add_option("model", options->model, "model .tflite/.onnx or zoo:NAME")->required();
  AddModelFlags(*cmd, options->model_flags, false);
  cmd->add_option("-s,--strategy", options->strategy,
                  "offsets strategy (offsets/NAME or NAME; default tflm_greedy)");
  cmd->add_option("--arena-size", options->arena_size,
                  "arena bytes (default: exactly what the model needs)")
      ->check(CLI::Range(Bytes{0}, Bytes{1} << 44));
  cmd->add_option("--persistent-size", options->persistent_size,
                  "two buffers: the persistent (tail) buffer's bytes; --arena-size is then the "
                  "non-persistent one")
      ->check(CLI::Range(Bytes{0}, Bytes{1} << 44));
  cmd->add_option("--invokes", options->invokes, "invocations (default 1)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  cmd->add_option("--preallocate", options->preallocate,
                  "keep this tensor (name or index) in an application buffer; repeatable");
  cmd->add_option("--offline", options->offline,
                  "OfflineMemoryAllocation metadata: auto (use when present), ignore, require")
      ->check(CLI::IsMember({"auto", "ignore", "require"}));
  cmd->add_option("-f,--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->callback([options] { Run(*options); });
}

}  // namespace memplan::cli
