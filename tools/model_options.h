#pragma once
// The options the subcommands share: how a model becomes records (--dim, --shape,
// --intermediates-only, --kernel-sized, --objects), the output format, alignment, in-place
// rules, target and kernels, --quiet; the checks of a model and the files a command writes;
// and the flags that apply an error's remedies.
#include <CLI/CLI.hpp>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/checked_run.h"
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

// An error's message with the flags that apply its remedies (include/memplan/remedy.h):
// "... (--shape det=1x10x4 --dim batch=N)"; the message alone when it has none.
std::string MessageWithFlags(const std::exception& error);

// The options several subcommands share, each added the same way; `help` where the
// option means something of the command's own.

// -f,--format: one of `formats`, the first the default ("text or json").
void AddFormatOption(CLI::App& cmd, std::string& format, const std::vector<std::string>& formats);

// --align: the alignment of every offset, 1 byte to 1 GiB.
void AddAlignOption(CLI::App& cmd, std::optional<Bytes>& align,
                    const std::string& help = "alignment of every offset in bytes");

// --inplace: an in-place rule set (none, tflite, tflm, all).
void AddInplaceOption(CLI::App& cmd, std::string& inplace, const std::string& help);

// -t,--target and --kernels: the device TFLM runs on and the kernels it is built with.
void AddTargetOptions(CLI::App& cmd, std::string& target, std::string& kernels,
                      const std::string& target_help);

// -q,--quiet: no progress on stderr.
void AddQuietFlag(CLI::App& cmd, bool& quiet);

// The steps that --resize NAME=N1,N2,... [--resize ...] values name, in order (several
// dimensions move together, step by step). UsageError for a malformed value or for
// dimensions given different numbers of values.
std::vector<ResizeStep> ResizeSteps(const std::vector<std::string>& resize);

// Adds --objects and --gpu-precision (plan, show and verify: the commands that plan objects).
void AddGpuObjectFlags(CLI::App& cmd, ModelFlags& flags);

// The workload as --objects asks: unchanged without it, else re-derived as TensorFlow Lite's
// GPU delegate stores the model's tensors (include/memplan/gpu_storage.h).
Workload WithGpuObjects(Workload workload, const ModelFlags& flags);

// The input loaded with `load` (ToLoadOptions(flags), or a step's) and as --objects asks; a
// usage error of the bindings names the flags that gave them.
Workload LoadInput(const std::string& input, const LoadOptions& load, const ModelFlags& flags);

// Checks the model a command reads and the files it will write before any work, so a bad
// call writes nothing: a .tflite model (else UsageError: "`writes` TensorFlow Lite models"),
// outputs that are other files than the model, in folders that exist, and no folders.
void CheckModelOutputs(std::string_view writes, const std::string& model,
                       const std::vector<std::filesystem::path>& outputs);

}  // namespace memplan::cli
