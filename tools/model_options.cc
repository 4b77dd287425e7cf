#include "tools/model_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

#include "memplan/error.h"
#include "memplan/gpu_storage.h"
#include "memplan/remedy.h"
#include "memplan/shape_binding.h"
#include "memplan/tflm_target.h"
#include "tools/commands.h"

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

struct ResizeSpec {
  std::string name;
  std::vector<std::int64_t> values;
};

ResizeSpec ParseResize(const std::string& text) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(fmt::format("--resize {}: expected NAME=N1,N2,...", text));
  ResizeSpec spec{text.substr(0, eq), {}};
  std::size_t at = eq + 1;
  while (at <= text.size()) {
    const auto comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    if (item.empty() || item.size() > 12 ||
        item.find_first_not_of("0123456789") != std::string::npos || std::stoll(item) == 0)
      throw UsageError(fmt::format("--resize {}: '{}' is not a positive size", spec.name, item));
    spec.values.push_back(std::stoll(item));
    at = comma + 1;
  }
  return spec;
}

// "sequence_length=32 total_sequence_length=48" for step k.
std::string StepName(const std::vector<ResizeSpec>& specs, std::size_t k) {
  std::string out;
  for (const ResizeSpec& s : specs)
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", s.name, s.values[k]);
  return out;
}

// The name to type on a command line: as is when it is plain, else single-quoted.
std::string ShellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == ':' || c == '/' || c == '-';
  });
  if (plain) return word;
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The flag that applies a remedy, as a user would type it.
std::string FlagOf(const Remedy& remedy) {
  switch (remedy.kind) {
    case Remedy::Kind::kBindDimension:
      return fmt::format("--dim {}={}", ShellWord(remedy.name), remedy.value);
    case Remedy::Kind::kBindShape:
      return fmt::format("--shape {}={}", ShellWord(remedy.name), remedy.value);
    case Remedy::Kind::kIntermediatesOnly:
      return "--intermediates-only";
    case Remedy::Kind::kKernelSizedStored:
      return "--kernel-sized stored";
  }
  return "";
}

}  // namespace

std::string MessageWithFlags(const std::exception& error) {
  const std::vector<Remedy>& remedies = RemediesOf(error);
  if (remedies.empty()) return error.what();
  std::vector<std::string> flags;
  for (const Remedy& remedy : remedies) flags.push_back(FlagOf(remedy));
  return fmt::format("{} ({})", error.what(), fmt::join(flags, " "));
}

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

std::vector<ResizeStep> ResizeSteps(const std::vector<std::string>& resize) {
  std::vector<ResizeSpec> specs;
  for (const std::string& text : resize) specs.push_back(ParseResize(text));
  if (specs.empty()) throw UsageError("--resize: expected NAME=N1,N2,...");
  for (const ResizeSpec& s : specs)
    if (s.values.size() != specs[0].values.size())
      throw UsageError(
          fmt::format("--resize {} has {} values and --resize {} has {}: dimensions "
                      "resized together need one value per step each",
                      specs[0].name, specs[0].values.size(), s.name, s.values.size()));
  std::vector<ResizeStep> steps(specs[0].values.size());
  for (std::size_t k = 0; k < steps.size(); ++k) {
    for (const ResizeSpec& spec : specs) steps[k].dims.emplace_back(spec.name, spec.values[k]);
    steps[k].name = StepName(specs, k);
  }
  return steps;
}

void AddFormatOption(CLI::App& cmd, std::string& format, const std::vector<std::string>& formats) {
  std::string help = formats.front();
  for (std::size_t i = 1; i < formats.size(); ++i)
    help += (i + 1 == formats.size() ? " or " : ", ") + formats[i];
  cmd.add_option("-f,--format", format, help)->check(CLI::IsMember(formats));
}

void AddAlignOption(CLI::App& cmd, std::optional<Bytes>& align, const std::string& help) {
  cmd.add_option("--align", align, help)->check(CLI::Range(Bytes{1}, Bytes{1} << 30));
}

void AddInplaceOption(CLI::App& cmd, std::string& inplace, const std::string& help) {
  cmd.add_option("--inplace", inplace, help)
      ->check(CLI::IsMember({"none", "tflite", "tflm", "all"}));
}

void AddTargetOptions(CLI::App& cmd, std::string& target, std::string& kernels,
                      const std::string& target_help) {
  cmd.add_option("-t,--target", target, target_help)->check(CLI::IsMember(TflmTargetNames()));
  cmd.add_option("--kernels", kernels,
                 "the kernels TFLM is built with: reference, or cmsis-nn (CMSIS-NN's kernels, "
                 "OPTIMIZED_KERNEL_DIR=cmsis_nn; Cortex-M targets)")
      ->check(CLI::IsMember({"reference", "cmsis-nn"}));
}

Workload LoadInput(const std::string& input, const LoadOptions& load, const ModelFlags& flags) {
  if (load.dims.empty() && load.shapes.empty())
    return WithGpuObjects(LoadWorkload(input, load), flags);
  return WithGpuObjects(NamingFlags("--dim, --shape", [&] { return LoadWorkload(input, load); }),
                        flags);
}

void AddQuietFlag(CLI::App& cmd, bool& quiet) {
  cmd.add_flag("-q,--quiet", quiet, "no progress on stderr");
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

namespace {

bool SameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

}  // namespace

void CheckModelOutputs(std::string_view writes, const std::string& model,
                       const std::vector<std::filesystem::path>& outputs) {
  std::string lower = model;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!lower.ends_with(".tflite"))
    throw UsageError(
        fmt::format("{} TensorFlow Lite models: '{}' is not a .tflite file", writes, model));
  for (const std::filesystem::path& out : outputs) {
    if (SameFile(model, out))
      throw UsageError(fmt::format(
          "-o {}: the output must be another file than the model (the input is never changed)",
          out.string()));
    const std::filesystem::path parent = out.parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
      throw InputError(
          fmt::format("{}: cannot write: no directory {}", out.string(), parent.string()));
    if (std::filesystem::is_directory(out, ec))
      throw InputError(fmt::format("{}: cannot write: it is a directory", out.string()));
  }
}

}  // namespace memplan::cli
