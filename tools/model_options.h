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
};

// Adds the flags to a subcommand (--intermediates-only only when it picks an accounting).
void AddModelFlags(CLI::App& cmd, ModelFlags& flags, bool with_accounting = true);

// Parses them (UsageError when malformed).
LoadOptions ToLoadOptions(const ModelFlags& flags);

}  // namespace memplan::cli
