#include "tools/model_options.h"

#include <fmt/format.h>

#include <charconv>

#include "memplan/error.h"
#include "memplan/gpu_storage.h"
#include "memplan/shape_binding.h"

namespace memplan::cli {

namespace {

std::int64_t ParseSize(std::string_view text, std::string_view flag, std::string_view whole) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0)
    throw UsageError(
        fmt::format("{} {}: '{}' is not a size (a whole number >= 0)", flag, whole, text));
  return value;
}

}  // namespace

std::pair<std::string, std::int64_t> ParseDimBinding(std::string_view text) {
  const auto eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UsageError(fmt::format("--dim {}: expected NAME=VALUE, e.g. --dim batch=1", text));
  return {std::string(text.substr(0, eq)), ParseSize(text.substr(eq + 1), "--dim", text)};
}

std::pair<std::string, std::vector<std::int64_t>> ParseShapeBinding(std::string_view text) {
  const auto eq = text.rfind('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UsageError(
        fmt::format("--shape {}: expected TENSOR=DIMS, e.g. --shape input=1x224x224x3", text));
  std::vector<std::int64_t> shape;
  std::string_view dims = text.substr(eq + 1);
  while (!dims.empty()) {
    const auto x = dims.find('x');
    shape.push_back(ParseSize(dims.substr(0, x), "--shape", text));
    if (x == std::string_view::npos) break;
    dims.remove_prefix(x + 1);
    if (dims.empty()) throw UsageError(fmt::format("--shape {}: a dimension is missing", text));
  }
  return {std::string(text.substr(0, eq)), std::move(shape)};
}

void AddModelFlags(CLI::App& cmd, ModelFlags& flags, bool with_accounting) {
  cmd.add_option("--dim", flags.dims,
                 "set a dimension of the inputs: batch=N, a .tflite input's INPUT:AXIS (open or "
                 "stored) or an .onnx symbolic name; repeatable")
      ->type_name("NAME=N");
  cmd.add_option("--shape", flags.shapes,
                 "give a tensor a shape, e.g. 'TFLite_Detection_PostProcess=1x10x4'; repeatable")
      ->type_name("TENSOR=DxDxD");
  cmd.add_option("--kernel-sized", flags.kernel_sized,
                 "outputs a custom op sizes at run time (stored as []): options (sizes read "
                 "from the op's options, default) or stored (one element, as TFLM reads them)")
      ->check(CLI::IsMember({"options", "stored"}));
  if (!with_accounting) return;
  cmd.add_flag("--intermediates-only", flags.intermediates_only,
               "plan only intermediate tensors, op index intervals, raw sizes (the TFLite memory "
               "paper's accounting) instead of a TFLM arena");
}

LoadOptions ToLoadOptions(const ModelFlags& flags) {
  LoadOptions options;
  options.intermediates_only = flags.intermediates_only;
  options.kernel_sized = flags.kernel_sized == "stored" ? KernelSizedOutputs::kAsStored
                                                        : KernelSizedOutputs::kFromOptions;
  for (const std::string& d : flags.dims) options.dims.push_back(ParseDimBinding(d));
  for (const std::string& s : flags.shapes) options.shapes.push_back(ParseShapeBinding(s));
  return options;
}

void AddGpuObjectFlags(CLI::App& cmd, ModelFlags& flags) {
  cmd.add_option("--objects", flags.objects,
                 "plan a model's tensors as TensorFlow Lite's GPU delegate stores them: buffers, "
                 "image-buffer, texture2d or texture3d (docs/gpu-storage.md)")
      ->check(CLI::IsMember({"buffers", "image-buffer", "texture2d", "texture3d"}));
  cmd.add_option("--gpu-precision", flags.gpu_precision,
                 "the type of the values in GPU objects: fp32 (the delegate's default) or fp16")
      ->check(CLI::IsMember({"fp32", "fp16"}));
}

Workload WithGpuObjects(Workload workload, const ModelFlags& flags) {
  if (flags.objects.empty()) return workload;
  return GpuObjectsWorkload(workload, ParseGpuStorage(flags.objects),
                            ParseGpuPrecision(flags.gpu_precision));
}

}  // namespace memplan::cli
