#pragma once
// The target model of TensorFlow Lite's GPU delegate: how it stores each tensor for a storage
// type (docs/gpu-storage.md), so that a model's tensors can be planned as the GPU objects the
// delegate creates. Every tensor becomes BHWC (rank 1: B; rank 2: B,C; rank 3: B,W,C;
// rank 4: B,H,W,C), its channels grouped in 4-channel slices, each texel holding 4 values of
// the precision's type:
//   buffer, image-buffer   one linear object of B*H*W*slices texels (bytes)
//   texture2d              a 2-D texture of width W*B, height H*slices
//   texture3d              a 3-D texture of width W*B, height H, depth slices
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/graph.h"
#include "memplan/workload.h"

namespace memplan {

// The storage types of the delegate's OpenCL backend that memplan models.
enum class GpuStorage {
  kBuffer,       // BUFFER: a linear buffer
  kImageBuffer,  // IMAGE_BUFFER: a 1-D image over a buffer (same bytes as a buffer)
  kTexture2D,    // TEXTURE_2D: a 2-D image
  kTexture3D,    // TEXTURE_3D: a 3-D image
};

// The delegate's precision: the type of every value it stores, whatever the tensor's type.
enum class GpuPrecision {
  kFp32,  // 4 bytes per value (the delegate's default: precision loss not allowed)
  kFp16,  // 2 bytes per value
};

// "buffer", "image-buffer", "texture2d", "texture3d"; UsageError for another name.
GpuStorage ParseGpuStorage(std::string_view name);
std::string_view GpuStorageName(GpuStorage storage);
// "fp32", "fp16"; UsageError for another name.
GpuPrecision ParseGpuPrecision(std::string_view name);

// How a tensor's dimensions are ordered in its model.
enum class DimOrder {
  kChannelsLast,   // .tflite: [B, H, W, C]
  kChannelsFirst,  // .onnx: [N, C, H, W] for rank 4 (laid out as the NHWC a converter makes)
};

// One tensor as the delegate stores it.
struct GpuTensorLayout {
  std::int64_t b = 1, h = 1, w = 1, c = 1;  // the BHWC shape
  std::int64_t slices = 1;                  // ceil(c / 4)
  std::vector<std::uint64_t> extent;  // texels per dimension: [n] (linear), [x, y] or [x, y, z]
  std::uint64_t bytes = 0;            // texels * 4 values * bytes per value
};

// The layout of a tensor with a static shape. Ranks above 4 fold their leading dimensions
// into B (the delegate itself refuses them; memplan still plans the model). InputError naming
// the tensor for an open dimension.
GpuTensorLayout LayOutForGpu(const Tensor& tensor, GpuStorage storage, GpuPrecision precision,
                             DimOrder order);

// Bytes of one texel: 4 values of the precision's type.
std::uint64_t TexelBytes(GpuPrecision precision);

// A model's workload re-derived as the delegate's objects: the same tensors and lifetimes,
// each record sized by LayOutForGpu. Buffer storage gives records in bytes (`problem`); the
// texture storages give texture records (`textures`, sizes in texels, element_bytes set).
// Adds a "note:" line saying what was laid out how. InputError for a workload that is not a
// model, or a tensor without a static shape.
Workload GpuObjectsWorkload(const Workload& model, GpuStorage storage, GpuPrecision precision);

}  // namespace memplan
