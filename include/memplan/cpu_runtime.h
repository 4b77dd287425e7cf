#pragma once
// memplan's runtime with the CPU arena planner (docs/cpu-planner.md): a model run through a
// sequence of shapes. Each step's graph (the model with its open dimensions bound, shapes
// propagated by the reader) is planned by a CpuArenaPlanner that lives across the steps,
// so a step re-plans only what its shapes changed; the plan drives an Interpreter with the
// verification kernels, whose outputs are compared with a naive layout's.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memplan/cpu_arena_planner.h"
#include "memplan/graph.h"
#include "memplan/kernel.h"

namespace memplan {

// Subgraph 0 of `graph` as the planner sees it: constants are read-only, variables
// persistent, tensors without a size dynamic (the engine sizes them); nodes keep their
// inputs and outputs, and no in-place bits.
CpuGraph CpuGraphOf(const Graph& graph);

// What one step did.
struct ResizeStepReport {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> input_shapes;
  Bytes arena_bytes = 0;             // the memplan mode's plan
  Bytes tflite_cpu_arena_bytes = 0;  // TensorFlow Lite's plan for the same shapes
  Bytes lower_bound_bytes = 0;       // no plan of these tensors can be smaller
  std::size_t replanned_tensors = 0;
  std::size_t arena_tensors = 0;  // tensors in the main arena
  std::int32_t first_replanned_node = -1;
  bool cache_hit = false;
  bool scaled = false;  // the layout before, its offsets scaled (CpuPlanStats::scaled)
  // Bytes of the old main-arena buffer each mode copied when the step grew it (memplan: none,
  // a whole re-plan after ResetAllocations keeps no data; tflite_cpu: the whole old buffer).
  Bytes buffer_bytes_copied = 0;
  Bytes tflite_cpu_buffer_bytes_copied = 0;
  double replan_us = 0;      // ResetAllocations + ExecuteAllocations, memplan mode
  double tflite_cpu_us = 0;  // the same calls in tflite_cpu mode
  double full_plan_us = 0;   // memplan mode from nothing (a new planner, no cache)
  bool outputs_match_naive = false;
  std::string difference;  // the first difference when they do not match
};

class ResizeSession {
 public:
  // `options.mode` is ignored: the session runs both modes side by side.
  explicit ResizeSession(CpuPlannerOptions options = {});
  ~ResizeSession();
  ResizeSession(const ResizeSession&) = delete;
  ResizeSession& operator=(const ResizeSession&) = delete;

  // Plans, invokes `invokes` times and checks one step. InputError for a model with more
  // than one subgraph.
  ResizeStepReport Step(const Graph& graph, const KernelRegistry& kernels, std::size_t invokes = 1);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace memplan
