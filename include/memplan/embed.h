#pragma once
// What `memplan embed` does, as a library call: plan a .tflite model held in memory as
// TFLM runs it (an offsets strategy, outputs in place by a rule set, optionally the best
// operator order), write the plan into the model as TFLM's offline plan
// (OfflineMemoryAllocation metadata) and check the written plan as TFLM will read it.
// `memplan split` plans each candidate rewrite with it.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memplan/exact.h"
#include "memplan/problem.h"
#include "memplan/tflm_target.h"
#include "memplan/workload.h"

namespace memplan {

struct EmbedRequest {
  std::string model;                  // the model's name in messages (its path)
  std::string out;                    // the written model's name in messages
  std::string strategy = "best";      // one offsets strategy: NAME or offsets/NAME
  std::optional<Bytes> align;         // the arena alignment, else the model's
  std::string inplace = "tflm";       // in-place rule set; tflm is safe on its kernels
  bool reorder = false;               // also search the operator order (slower)
  LoadOptions load;                   // how the model's records are made
  ExactOptions exact;                 // when the strategy is exact
  std::string target = "host64";      // the device TFLM runs on (TflmTargetNamed)
  std::string kernels = "reference";  // the kernels TFLM is built with (TflmKernelsNamed)
  // Refuse a model TFLM's kernels will refuse on the device (InputError naming each op and
  // why): its plan would never be used. Off for an application with kernels of its own.
  bool refuse_unsupported = false;
};

// The written model and what was written.
struct EmbeddedPlan {
  std::string bytes;           // the model with its offline plan (and maybe a new op order)
  std::string strategy;        // the strategy of the written plan
  std::string variant;         // "", "inplace=tflm", "reorder+inplace=tflm", ...
  Bytes arena = 0;             // the planned head
  Bytes lower_bound = 0;       // of the records (or the variant's) that were planned
  Bytes plain_arena = 0;       // the strategy on the model's own records and order
  std::size_t tensors = 0;     // tensors of the model
  std::size_t planned = 0;     // tensors the plan places
  std::size_t shares = 0;      // in-place shares the plan uses
  bool order_changed = false;  // the operators were written in another order
  std::size_t input_bytes = 0;
  double ms = 0;  // wall time of planning, writing and checking
  // What TFLM will place (the runtime's model of it, kernels' scratch buffers included):
  Bytes tflm_head = 0;            // the head with the written plan (0: not modelled)
  Bytes tflm_own_head = 0;        // the head TFLM's own planner makes for the model
  bool scratch_fallback = false;  // the chosen plan put TFLM's head above its own: a plan of
                                  // tensors and scratch buffers together was written instead
  Bytes device_arena = 0;         // smallest tensor_arena_size on the target (0: not modelled)
  Bytes device_tail = 0;          // its tail
  bool device_lower_bound = false;
  std::optional<TflmArenaFigures> device;  // the whole arena on the target, when modelled
  std::string device_problem;              // why not, when not
  // What the caller should hear (an unusable offline plan replaced, variables TFLM will
  // misplace), one line each.
  std::vector<std::string> warnings;
};

// Plans `bytes` (a .tflite model) as `request` asks and writes the plan into a copy.
// UsageError for a strategy that is not one offsets strategy; InputError naming
// `request.model` for a model embed refuses; InternalError if the written plan does not
// check out.
EmbeddedPlan EmbedPlanInTflite(const std::string& bytes, const EmbedRequest& request);

// The defaults (offsets/best, outputs in place by TFLM's rules); `reorder`: also search the
// operator order.
EmbeddedPlan EmbedPlanInModel(const std::string& bytes, const std::string& label, bool reorder);

// {"input", "output", "strategy", "variant", "arena_bytes", ..., "tflm_target",
//  "tflm_kernels", "tflm_arena_bytes", "tflm_arena_is_lower_bound"}: what embed wrote.
nlohmann::ordered_json EmbeddedPlanJson(const EmbedRequest& request, const EmbeddedPlan& plan);

}  // namespace memplan
