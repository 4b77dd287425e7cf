// TensorFlow Lite GPU delegate's storage of tensors (docs/gpu-storage.md restates the rules
// and where they come from).
#include "memplan/gpu_storage.h"

#include <fmt/format.h>

#include <limits>

#include "memplan/error.h"
#include "memplan/remedy.h"

namespace memplan {

namespace {

constexpr std::int64_t kValuesPerTexel = 4;  // RGBA: a slice of 4 channels per texel

std::uint64_t CheckedProduct(std::initializer_list<std::int64_t> factors, const Tensor& tensor) {
  std::uint64_t product = 1;
  for (std::int64_t f : factors) {
    const auto u = static_cast<std::uint64_t>(f);
    if (u != 0 && product > std::numeric_limits<std::uint64_t>::max() / 4 / u)
      throw InputError(fmt::format("tensor '{}': GPU object size overflows", tensor.name));
    product *= u;
  }
  return product;
}

// The BHWC shape the delegate gives a tensor of this rank (its converter's rule; a rank-4
// channels-first shape is reordered to the NHWC a converter to .tflite would write).
void ToBhwc(const Tensor& tensor, DimOrder order, GpuTensorLayout& out) {
  std::vector<std::int64_t> dims = tensor.shape;
  for (std::int64_t d : dims)
    if (d < 0)
      throw InputErrorWithRemedies(
          fmt::format("tensor '{}': a GPU object needs a static shape; bind its open dimensions",
                      tensor.name),
          {{Remedy::Kind::kBindDimension, "NAME", "N"}});
  if (order == DimOrder::kChannelsFirst && dims.size() == 4)
    dims = {dims[0], dims[2], dims[3], dims[1]};
  // Leading dimensions beyond four are folded into the batch.
  while (dims.size() > 4) {
    dims[1] *= dims[0];
    dims.erase(dims.begin());
  }
  switch (dims.size()) {
    case 0:
      break;  // a scalar: one value
    case 1:
      out.b = dims[0];
      break;
    case 2:
      out.b = dims[0];
      out.c = dims[1];
      break;
    case 3:
      out.b = dims[0];
      out.w = dims[1];
      out.c = dims[2];
      break;
    default:
      out.b = dims[0];
      out.h = dims[1];
      out.w = dims[2];
      out.c = dims[3];
      break;
  }
}

}  // namespace

GpuStorage ParseGpuStorage(std::string_view name) {
  if (name == "buffer" || name == "buffers") return GpuStorage::kBuffer;
  if (name == "image-buffer") return GpuStorage::kImageBuffer;
  if (name == "texture2d") return GpuStorage::kTexture2D;
  if (name == "texture3d") return GpuStorage::kTexture3D;
  throw UsageError(
      fmt::format("unknown GPU storage '{}': buffers, image-buffer, texture2d or texture3d", name));
}

std::string_view GpuStorageName(GpuStorage storage) {
  switch (storage) {
    case GpuStorage::kBuffer:
      return "buffers";
    case GpuStorage::kImageBuffer:
      return "image-buffer";
    case GpuStorage::kTexture2D:
      return "texture2d";
    case GpuStorage::kTexture3D:
      return "texture3d";
  }
  return "?";
}

GpuPrecision ParseGpuPrecision(std::string_view name) {
  if (name == "fp32") return GpuPrecision::kFp32;
  if (name == "fp16") return GpuPrecision::kFp16;
  throw UsageError(fmt::format("unknown GPU precision '{}': fp32 or fp16", name));
}

std::uint64_t TexelBytes(GpuPrecision precision) {
  return kValuesPerTexel * (precision == GpuPrecision::kFp32 ? 4 : 2);
}

GpuTensorLayout LayOutForGpu(const Tensor& tensor, GpuStorage storage, GpuPrecision precision,
                             DimOrder order) {
  GpuTensorLayout layout;
  ToBhwc(tensor, order, layout);
  layout.slices = (layout.c + kValuesPerTexel - 1) / kValuesPerTexel;
  const std::uint64_t texels =
      CheckedProduct({layout.b, layout.h, layout.w, layout.slices}, tensor);
  layout.bytes = texels * TexelBytes(precision);
  switch (storage) {
    case GpuStorage::kBuffer:
    case GpuStorage::kImageBuffer:
      layout.extent = {texels};
      break;
    case GpuStorage::kTexture2D:
      layout.extent = {CheckedProduct({layout.w, layout.b}, tensor),
                       CheckedProduct({layout.h, layout.slices}, tensor)};
      break;
    case GpuStorage::kTexture3D:
      layout.extent = {CheckedProduct({layout.w, layout.b}, tensor),
                       static_cast<std::uint64_t>(layout.h),
                       static_cast<std::uint64_t>(layout.slices)};
      break;
  }
  return layout;
}

Workload GpuObjectsWorkload(const Workload& model, GpuStorage storage, GpuPrecision precision) {
  if (!model.graph)
    throw InputError(
        fmt::format("{}: GPU objects are laid out from a model's tensor shapes; "
                    "records have none (give a .tflite, .onnx or zoo:NAME)",
                    model.label));
  if (model.textures)
    throw InputError(fmt::format("{}: already planned as texture records", model.label));
  const Graph& graph = *model.graph;
  const DimOrder order =
      graph.format == "onnx" ? DimOrder::kChannelsFirst : DimOrder::kChannelsLast;

  Workload out;
  out.label = model.label;
  out.kind = model.kind;
  out.graph = model.graph;
  out.origins = model.origins;
  out.ops = model.ops;
  out.notes = model.notes;
  out.step_ops = model.step_ops;
  out.step_bands = model.step_bands;

  const bool textures = storage == GpuStorage::kTexture2D || storage == GpuStorage::kTexture3D;
  TextureProblem texture_problem;
  texture_problem.kind = TextureKind::kTexture;
  texture_problem.element_bytes = TexelBytes(precision);
  Problem bytes_problem;
  std::size_t folded = 0;
  for (std::size_t i = 0; i < model.problem.size(); ++i) {
    const UsageRecord& r = model.problem.records[i];
    const std::string name = model.problem.NameOf(i);
    if (i >= model.origins.size())
      throw InputError(fmt::format("{}: record '{}' stands for no tensor", model.label, name));
    const TensorRef ref = model.origins[i];
    const Tensor& tensor = graph.subgraphs.at(static_cast<std::size_t>(ref.subgraph))
                               .tensors.at(static_cast<std::size_t>(ref.tensor));
    if (tensor.shape.size() > 4) ++folded;
    const GpuTensorLayout layout = LayOutForGpu(tensor, storage, precision, order);
    if (textures) {
      texture_problem.records.push_back({layout.extent, r.first, r.last});
      texture_problem.names.push_back(name);
    } else {
      bytes_problem.records.push_back({layout.bytes, r.first, r.last});
      bytes_problem.names.push_back(name);
    }
  }
  const std::string what =
      textures ? fmt::format("{}-D textures of {}-byte texels",
                             storage == GpuStorage::kTexture2D ? 2 : 3, TexelBytes(precision))
               : fmt::format("{} of {}-byte values in 4-channel slices", GpuStorageName(storage),
                             TexelBytes(precision) / kValuesPerTexel);
  out.notes.push_back(fmt::format(
      "note: {} tensors laid out as TensorFlow Lite's GPU delegate stores them: {} "
      "({}; {} order{})",
      model.problem.size(), what, precision == GpuPrecision::kFp32 ? "fp32" : "fp16",
      order == DimOrder::kChannelsFirst ? "NCHW read as NHWC" : "BHWC",
      folded > 0 ? fmt::format("; {} tensors of rank > 4 folded into the batch", folded) : ""));
  if (textures) {
    Validate(texture_problem);
    out.textures = std::move(texture_problem);
  } else {
    Validate(bytes_problem);
    out.problem = std::move(bytes_problem);
  }
  return out;
}

}  // namespace memplan
