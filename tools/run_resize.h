#pragma once
// memplan run MODEL --resize NAME=N1,N2,...: the model through a sequence of shapes with the
// CPU arena planner (tools/run_resize.cc, docs/cpu-planner.md).
#include <cstdint>
#include <string>
#include <utility>
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

// One step of --resize NAME=N1,N2,... [--resize ...]: the --dim bindings it adds, and its
// name ("batch=2", "sequence_length=32 total_sequence_length=48").
struct ResizeStep {
  std::vector<std::pair<std::string, std::int64_t>> dims;
  std::string name;
};

// The steps the --resize values name, in order. UsageError for a malformed value or for
// dimensions given different numbers of values.
std::vector<ResizeStep> ResizeSteps(const std::vector<std::string>& resize);

}  // namespace memplan::cli
