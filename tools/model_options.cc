#include "tools/model_options.h"

#include "memplan/gpu_storage.h"
#include "memplan/shape_binding.h"

namespace memplan::cli {

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
