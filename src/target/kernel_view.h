#pragma once
// What the descriptions of TFLM's kernels (reference and CMSIS-NN) share: an op's view of
// its tensors and options, and the structs several kernels keep.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "memplan/graph.h"
#include "src/target/tflm_kernels.h"

namespace memplan::target {

inline constexpr Field kInt = Field::kInt32;  // int, int32_t, float
inline constexpr Field kEnum = Field::kEnum;  // a C enum (TfLiteType, TfLiteFusedActivation, ...)
inline constexpr Field kPtr = Field::kPointer;
inline constexpr Field kBool = Field::kBool;

// The op's view of its tensors: optional inputs (-1 or missing) are absent.
class OpView {
 public:
  OpView(const Subgraph& subgraph, const Operator& op) : subgraph_(subgraph), op_(op) {}
  std::int32_t In(std::size_t k) const { return Index(op_.inputs, k); }
  std::int32_t Out(std::size_t k) const { return Index(op_.outputs, k); }
  std::size_t Inputs() const { return op_.inputs.size(); }
  std::size_t Outputs() const { return op_.outputs.size(); }
  const Tensor* TensorAt(std::int32_t t) const {
    if (t < 0 || static_cast<std::size_t>(t) >= subgraph_.tensors.size()) return nullptr;
    return &subgraph_.tensors[static_cast<std::size_t>(t)];
  }
  DataType TypeOf(std::int32_t t) const {
    const Tensor* x = TensorAt(t);
    return x ? x->type : DataType::kFloat32;
  }
  std::int64_t Dim(std::int32_t t, std::size_t d) const {
    const Tensor* x = TensorAt(t);
    return x && d < x->shape.size() ? x->shape[d] : 0;
  }
  std::size_t Rank(std::int32_t t) const {
    const Tensor* x = TensorAt(t);
    return x ? x->shape.size() : 0;
  }
  std::int64_t Elements(std::int32_t t) const;
  bool IsConstant(std::int32_t t) const {
    const Tensor* x = TensorAt(t);
    return x && x->is_constant;
  }
  // Operator::int_params[k], or nothing when the model did not say.
  std::optional<std::int64_t> Param(std::size_t k) const {
    if (k >= op_.int_params.size()) return std::nullopt;
    return op_.int_params[k];
  }
  const Operator& op() const { return op_; }
  const Subgraph& subgraph() const { return subgraph_; }

 private:
  static std::int32_t Index(const std::vector<std::int32_t>& v, std::size_t k) {
    return k < v.size() ? v[k] : -1;
  }
  const Subgraph& subgraph_;
  const Operator& op_;
};

// Temps: the listed tensors that exist (an absent optional tensor makes no view).
void AddTemps(KernelMemory& m, std::initializer_list<std::int32_t> tensors);
void Builtin(KernelMemory& m, Layout layout);

// TfLitePaddingValues: width, height, width_offset, height_offset.
Layout PaddingValues(const TargetAbi& abi);
// OpDataConv (conv and depthwise conv, every kernel set).
Layout OpDataConv(const TargetAbi& abi);
// OpDataFullyConnected (every kernel set).
Layout OpDataFullyConnected(const TargetAbi& abi);
// OpDataPooling.
Layout OpDataPooling(const TargetAbi& abi);
// SoftmaxParams of TFLite's kernel types.
Layout SoftmaxParams(const TargetAbi& abi);
// OpDataSvdf of the reference kernel.
Layout OpDataSvdf(const TargetAbi& abi);
// OpDataLSTM of TFLM's lstm_shared.h.
Layout OpDataLstm(const TargetAbi& abi);
// ArithmeticParams of TFLite's kernel types.
Layout ArithmeticParams(const TargetAbi& abi);
// The options structs of the windowed ops.
Layout ConvParams(const TargetAbi& abi);
Layout DepthwiseConvParams(const TargetAbi& abi);
Layout FullyConnectedParams(const TargetAbi& abi);
Layout PoolParams(const TargetAbi& abi);

bool IsQuantizedType(DataType t);

// A windowed op's geometry as TFLM computes it in Prepare (NHWC input and output).
struct Window {
  std::int64_t stride_w = 1, stride_h = 1;
  std::int64_t dilation_w = 1, dilation_h = 1;
  std::int64_t filter_w = 1, filter_h = 1;
  std::int64_t pad_w = 0, pad_h = 0;  // TfLitePaddingValues width and height
};
// From the op's options and input and filter (or pool) sizes; nothing when the model's
// options are missing. `depthwise`: the filter is [1, h, w, c], else [o, h, w, i].
std::optional<Window> ConvWindow(const OpView& v, bool depthwise);
std::optional<Window> PoolWindow(const OpView& v);

// One kernel set: how each op type's memory is described.
using DescribeFn = void (*)(const TargetAbi& abi, const OpView& v, KernelMemory& m);
struct KernelEntry {
  std::string_view type;
  DescribeFn describe;
};
// The CMSIS-NN kernel for a type, or nullptr where TFLM's cmsis_nn folder has none.
DescribeFn CmsisNnKernel(std::string_view type);
// TFLM's ethos_u kernel for Vela's `ethos-u` custom op on a Cortex-M target (a system with an
// Ethos-U NPU), or nullptr.
DescribeFn EthosUKernel(const TargetAbi& abi, std::string_view type);
// The reference description of conv, depthwise conv, fully connected, pooling, SVDF and
// LSTM, which the CMSIS-NN ones extend or fall back to.
void ReferenceConv(const TargetAbi& abi, const OpView& v, KernelMemory& m, bool depthwise);
void ReferenceFullyConnected(const TargetAbi& abi, const OpView& v, KernelMemory& m);

// What TFLM's Prepare refuses in the op (an input count, a rank, a type), or "".
std::string TflmRefusal(const OpView& v);

}  // namespace memplan::target
