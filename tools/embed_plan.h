#pragma once
// What `memplan embed` does, for other commands: plan a .tflite model held in memory
// (offsets/best, outputs in place by TFLM's rules, optionally the best operator order) and write
// the plan into it as TFLM's offline plan, checked as embed checks it.
#include <string>

#include "memplan/problem.h"

namespace memplan::cli {

struct EmbeddedPlan {
  std::string bytes;           // the model with its offline plan (and maybe a new op order)
  Bytes arena = 0;             // the planned head
  Bytes plain_arena = 0;       // offsets/best on the model's own records and order
  bool order_changed = false;  // the operators were written in another order
};

// `reorder`: also search the operator order (slower on models with many branches).
// InputError naming `label` for a model embed refuses.
EmbeddedPlan EmbedPlanInModel(const std::string& bytes, const std::string& label, bool reorder,
                              bool quiet);

}  // namespace memplan::cli
