#pragma once
// The flags that say how a model becomes records (--dim, --shape,
// --intermediates-only), shared by every subcommand that reads models.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "memplan/workload.h"

namespace memplan::cli {

// The flags as typed.
struct ModelFlags {
  std::vector<std::string> dims;         // --dim NAME=VALUE
  std::vector<std::string> shapes;       // --shape TENSOR=1x10x4
  bool intermediates_only = false;       // --intermediates-only
  std::string kernel_sized = "options";  // --kernel-sized: options or stored
  std::string objects;                   // --objects: a GPU storage type, empty = bytes as stored
  std::string gpu_precision = "fp32";    // --gpu-precision: the values' type in GPU objects
};

// Adds the flags to a subcommand (--intermediates-only only when it picks an accounting).
void AddModelFlags(CLI::App& cmd, ModelFlags& flags, bool with_accounting = true);

// Parses them (UsageError when malformed).
LoadOptions ToLoadOptions(const ModelFlags& flags);

// Parses "NAME=VALUE" (--dim) and "TENSOR=1x10x4" (--shape; "TENSOR=" is a scalar). The
// name may contain '='; the last one separates the value. UsageError when malformed.
std::pair<std::string, std::int64_t> ParseDimBinding(std::string_view text);
std::pair<std::string, std::vector<std::int64_t>> ParseShapeBinding(std::string_view text);

// Adds --objects and --gpu-precision (plan, show and verify: the commands that plan objects).
void AddGpuObjectFlags(CLI::App& cmd, ModelFlags& flags);

// The workload as --objects asks: unchanged without it, else re-derived as TensorFlow Lite's
// GPU delegate stores the model's tensors (include/memplan/gpu_storage.h).
Workload WithGpuObjects(Workload workload, const ModelFlags& flags);

}  // namespace memplan::cli
