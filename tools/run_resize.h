#pragma once
// memplan run MODEL --resize NAME=N1,N2,...: the model through a sequence of shapes with the
// CPU arena planner (tools/run_resize.cc, docs/cpu-planner.md).
#include <string>
#include <vector>

#include "tools/model_options.h"

namespace memplan::cli {

struct ResizeRunOptions {
  std::string model;
  ModelFlags model_flags;  // --dim binds the other open dimensions
  // NAME=N1,N2,...; several move together, step by step (each the same number of values).
  std::vector<std::string> resize;
  std::string strategy = "best";
  std::size_t invokes = 1;
  std::string format = "text";
  bool quiet = false;
};

void RunResize(const ResizeRunOptions& options);

}  // namespace memplan::cli
