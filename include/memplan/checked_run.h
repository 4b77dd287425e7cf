#pragma once
// A model run in a TFLM-style arena and checked, as `memplan run` does it: optionally in a
// memory-saving operator order and with outputs in place, its arena measured, some tensors
// kept in the caller's buffers, invoked with the verification kernels (requesting the
// scratch buffers a target's TFLM kernels do) and its outputs compared with a naive layout.
// And the same model through a sequence of shapes with the CPU arena planner.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "memplan/cpu_runtime.h"
#include "memplan/runtime.h"
#include "memplan/workload.h"

namespace memplan {

struct CheckedRunRequest {
  std::string strategy = "tflm_greedy";  // offsets strategy of the head
  std::optional<Bytes> arena_size;       // default: exactly what the model needs
  // Two buffers: the persistent one's bytes (arena_size is then the non-persistent one).
  std::optional<Bytes> persistent_size;
  std::size_t invokes = 1;
  // Tensors kept in buffers of the caller's: a name (any subgraph) or an index in
  // subgraph 0 ("7" or "#7").
  std::vector<std::string> preallocate;
  OfflinePlanUse offline = OfflinePlanUse::kWhenPresent;
  std::string inplace = "none";       // in-place rule set: none, tflite, tflm, all
  bool reorder = false;               // run the ops in the order that keeps fewest bytes alive
  std::string target = "host64";      // whose kernels' scratch requests the kernels make
  std::string kernels = "reference";  // reference or cmsis-nn
  std::function<void(const std::string&)> stage;  // hears each stage's name, when set
};

// The buffers, arena and interpreter of a run (src/pipeline/checked_run.cc).
struct CheckedRunState;

// A run and what it found; the arena and the interpreter stay for the caller's report.
struct CheckedRun {
  CheckedRun();
  ~CheckedRun();
  CheckedRun(CheckedRun&&) noexcept;
  std::string variant;         // "inplace=tflm", "reorder", "reorder+inplace=tflm" or empty
  bool order_changed = false;  // reorder: a better order was found
  bool inplace = false;        // outputs shared a dying input's memory
  ArenaRequirement need;       // what the model needs
  std::string difference;      // the first difference from the naive layout; empty: none
  std::size_t invokes = 1;
  std::unique_ptr<CheckedRunState> state;
  const Arena& arena() const;
  const Interpreter& interpreter() const;
};

// Runs the workload's graph. UsageError when the workload is not a model, for a tensor to
// preallocate that the model does not have, or when a new order is asked of a model whose
// offline plan is used (it was made for the model's own order).
CheckedRun RunChecked(const Workload& workload, const CheckedRunRequest& request);

// {"model", "strategy", "variant", "order_changed", "head_bytes", ..., "allocations",
//  "invokes", "outputs_match_naive", "difference"}.
nlohmann::ordered_json CheckedRunJson(const std::string& model, const CheckedRun& run);

// One step of a resize sequence: the dimension bindings it adds, and its name
// ("batch=2", "sequence_length=32 total_sequence_length=48").
struct ResizeStep {
  std::vector<std::pair<std::string, std::int64_t>> dims;
  std::string name;
};

// `load` with the step's bindings in place of any of the same names.
LoadOptions WithStepBindings(LoadOptions load, const ResizeStep& step);

// UsageError when a step binds a dimension the workload (loaded with the step's bindings,
// labelled as loaded) does not have: it would plan the stored model again under another name.
void CheckResizeStepBinds(const Workload& workload, const ResizeStep& step);

// The model through each step in turn with one CpuArenaPlanner kept across the steps
// (`strategy` its offsets strategy), invoked `invokes` times and checked against the naive
// layout after every step. `load` binds the other open dimensions; `stage` hears each step,
// as it is read (every step is read before the first is planned) and as it is planned.
std::vector<ResizeStepReport> RunResizeSteps(const std::string& model, const LoadOptions& load,
                                             const std::vector<ResizeStep>& steps,
                                             const std::string& strategy, std::size_t invokes,
                                             const std::function<void(const std::string&)>& stage);

// {"model", "resize": [names], "strategy", "steps": [{"dims", "shapes", "arena_bytes", ...}]}.
nlohmann::ordered_json ResizeStepsJson(const std::string& model,
                                       const std::vector<ResizeStep>& steps,
                                       const std::string& strategy,
                                       const std::vector<ResizeStepReport>& reports);

}  // namespace memplan
