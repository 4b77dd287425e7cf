#pragma once
// A .tflite model split (include/memplan/split.h) for the smallest whole TensorFlow Lite
// Micro arena on a target (head, tail and temporary memory, as include/memplan/tflm_target.h
// models it), and planned as embed plans it (include/memplan/embed.h): what `memplan split`
// runs. A split must go under the smaller of the original's two arenas on that target, as it
// is and as memplan's embed (outputs in place, the best operator order) plans it; else
// nothing is rewritten unless forced.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "memplan/split.h"

namespace memplan {

struct SplitForTargetRequest {
  std::string model;      // the .tflite model's bytes
  std::string label;      // the model, for messages
  std::string out_label;  // the model to be written, for messages
  std::string target;     // a TFLM target (TflmTargetNames())
  std::string kernels;    // the kernels TFLM is built with there: reference or cmsis-nn
  SplitRequest search;    // grid, stage, extra MACs, force (the arena functions are set here)
  // Hears the warnings of planning the written model (embed's), when set.
  std::function<void(const std::string&)> warn;
};

// A model's whole arena on one target three ways.
struct TargetArenas {
  std::string target;
  SplitArena as_is;     // the original as it is (TFLM plans it, or its offline plan)
  SplitArena embedded;  // the original planned by memplan's embed, no split
  SplitArena after;     // the split model as written (when split)
  // The bar a split must go under: the smaller of the original's two arenas.
  const SplitArena& before() const { return embedded.whole < as_is.whole ? embedded : as_is; }
};

struct SplitForTarget {
  SplitResult result;
  std::string written;  // the split model with its offline plan; empty when not split
  // Not split: the chosen target's arenas. Split: the chosen target first, then host64 and
  // arm32 (the general targets, for comparison) where the chosen one is neither.
  std::vector<TargetArenas> targets;
};

// Splits and plans the model. InputError when the target's kernels refuse an op of a
// candidate that the original does not have; UsageError for an unknown target or kernels.
SplitForTarget SplitForTflmTarget(const SplitForTargetRequest& request);

// Split: {"input", "output", "split": true, "larger", "target", "arena_before", "arena_after",
// "targets": {NAME: {"before", "embedded", "after"}}, "not_smaller_on", "macs_before", ...}.
// Not split: {"input", "split": false, "why", "target", "arena_before", "before", "embedded",
// "best_candidate", "macs_before", "candidates"}. Arenas are {"head", "tail", "arena"}.
nlohmann::ordered_json SplitForTargetJson(const SplitForTargetRequest& request,
                                          const SplitForTarget& split);

}  // namespace memplan
