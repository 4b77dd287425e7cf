// What TFLM's reference kernels allocate, op type by op type (an op table), and the
// kernel set a target uses: include/memplan/tflm_target.h, docs/tflm.md, docs/tflm-facts.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "memplan/tflite.h"
#include "memplan/vela.h"
#include "src/target/kernel_view.h"
#include "src/target/tflm_structs.h"

namespace memplan::target {

std::int64_t OpView::Elements(std::int32_t t) const {
  const Tensor* x = TensorAt(t);
  if (!x) return 0;
  std::int64_t n = 1;
  for (std::int64_t d : x->shape) n *= std::max<std::int64_t>(d, 0);
  return n;
}

void AddTemps(KernelMemory& m, std::initializer_list<std::int32_t> tensors) {
  for (std::int32_t t : tensors)
    if (t >= 0) m.temps.push_back(t);
}

void Builtin(KernelMemory& m, Layout layout) {
  m.has_builtin_data = true;
  m.builtin_data = layout;
}

Layout PaddingValues(const TargetAbi& abi) {
  return StructLayout(abi, {kInt, kInt, kInt, kInt}).Done();
}

// Padding, input/filter/output zero points, output multiplier and shift, per-channel
// multiplier and shift arrays, activation min and max, filter_buffer_index.
Layout OpDataConv(const TargetAbi& abi) {
  return StructLayout(abi).Add(PaddingValues(abi)).Add(kInt, 5).Add(kPtr, 2).Add(kInt, 3).Done();
}

// Output multiplier, shift, activation min, max, input quantized index, input/filter/
// output zero points, filter_buffer_index; per-channel multiplier and shift arrays;
// is_per_channel.
Layout OpDataFullyConnected(const TargetAbi& abi) {
  return StructLayout(abi).Add(kInt, 9).Add(kPtr, 2).Add(kBool).Done();
}

// Padding, activation min and max (int and float).
Layout OpDataPooling(const TargetAbi& abi) {
  return StructLayout(abi).Add(PaddingValues(abi)).Add(kInt, 4).Done();
}

// Beta (double), seven ints, five table pointers.
Layout SoftmaxParams(const TargetAbi& abi) {
  return StructLayout(abi).Add(Field::kInt64).Add(kInt, 7).Add(kPtr, 5).Done();
}

Layout OpDataSvdf(const TargetAbi& abi) {
  return StructLayout(abi).Add(kInt, 9).Done();
}

// Broadcast category, ten offsets, multipliers and shifts, quantized and float activation
// limits, int64 and int16 limits, broadcast_shape[5].
Layout ArithmeticParams(const TargetAbi& abi) {
  return StructLayout(abi)
      .Add(kInt, 11)
      .Add(kInt, 4)
      .Add(Field::kInt64, 2)
      .Add(Field::kInt16, 2)
      .Add(kInt, 5)
      .Done();
}

// Size info (time_major, batch, steps, input and state dimensions), cell state info
// (clip, int16 clip, scale power), the cell gate's activation (an enum), four gates of two
// FullyConnectedParams, three ArithmeticParams, four scratch indices.
Layout OpDataLstm(const TargetAbi& abi) {
  const Layout fc_params = StructLayout(abi).Add(kInt, 9).Add(kBool, 3).Done();
  const Layout gate = StructLayout(abi).Add(fc_params, 2).Done();
  return StructLayout(abi)
      .Add(StructLayout(abi).Add(kBool).Add(kInt, 4).Done())
      .Add(StructLayout(abi).Add(kInt).Add(Field::kInt16).Add(kInt).Done())
      .Add(kEnum)
      .Add(gate, 4)
      .Add(ArithmeticParams(abi), 3)
      .Add(kInt, 4)
      .Done();
}

// TfLiteConvParams: padding, strides, activation, dilations, quantized_bias_type.
Layout ConvParams(const TargetAbi& abi) {
  return StructLayout(abi, {kEnum, kInt, kInt, kEnum, kInt, kInt, kEnum}).Done();
}

// TfLiteDepthwiseConvParams: padding, strides, depth_multiplier, activation, dilations.
Layout DepthwiseConvParams(const TargetAbi& abi) {
  return StructLayout(abi, {kEnum, kInt, kInt, kInt, kEnum, kInt, kInt}).Done();
}

// activation, weights_format, keep_num_dims, asymmetric_quantize_inputs,
// quantized_bias_type.
Layout FullyConnectedParams(const TargetAbi& abi) {
  return StructLayout(abi, {kEnum, kEnum, kBool, kBool, kEnum}).Done();
}

// TfLitePoolParams: padding, strides, filter size, activation, computed padding.
Layout PoolParams(const TargetAbi& abi) {
  return StructLayout(abi).Add(kEnum).Add(kInt, 4).Add(kEnum).Add(PaddingValues(abi)).Done();
}

bool IsQuantizedType(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kUInt8 ||
         t == DataType::kInt4;
}

namespace {

// TFLite's padding arithmetic (kernels/padding.h): the output size the padding type
// gives, then the padding that output size needs.
std::int64_t PaddingFor(std::int64_t padding_type, std::int64_t in, std::int64_t filter,
                        std::int64_t stride, std::int64_t dilation) {
  if (stride <= 0 || dilation <= 0 || filter <= 0) return 0;
  const std::int64_t effective = (filter - 1) * dilation + 1;
  const std::int64_t out =
      padding_type == 0 ? (in + stride - 1) / stride : (in + stride - effective) / stride;
  if (out < 0) return 0;
  const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * stride + effective - in);
  return total / 2;
}

}  // namespace

std::optional<Window> ConvWindow(const OpView& v, bool depthwise) {
  const std::size_t n = depthwise ? 6 : 5;
  if (v.op().int_params.size() < n) return std::nullopt;
  const std::int32_t input = v.In(0), filter = v.In(1);
  Window w;
  w.stride_w = *v.Param(1);
  w.stride_h = *v.Param(2);
  w.dilation_w = *v.Param(3);
  w.dilation_h = *v.Param(4);
  w.filter_h = v.Dim(filter, 1);
  w.filter_w = v.Dim(filter, 2);
  w.pad_w = PaddingFor(*v.Param(0), v.Dim(input, 2), w.filter_w, w.stride_w, w.dilation_w);
  w.pad_h = PaddingFor(*v.Param(0), v.Dim(input, 1), w.filter_h, w.stride_h, w.dilation_h);
  return w;
}

std::optional<Window> PoolWindow(const OpView& v) {
  if (v.op().int_params.size() < 5) return std::nullopt;
  const std::int32_t input = v.In(0);
  Window w;
  w.stride_w = *v.Param(1);
  w.stride_h = *v.Param(2);
  w.filter_w = *v.Param(3);
  w.filter_h = *v.Param(4);
  w.pad_w = PaddingFor(*v.Param(0), v.Dim(input, 2), w.filter_w, w.stride_w, 1);
  w.pad_h = PaddingFor(*v.Param(0), v.Dim(input, 1), w.filter_h, w.stride_h, 1);
  return w;
}

void ReferenceConv(const TargetAbi& abi, const OpView& v, KernelMemory& m, bool depthwise) {
  Builtin(m, depthwise ? DepthwiseConvParams(abi) : ConvParams(abi));
  m.init.push_back(OpDataConv(abi).size);
  const std::int32_t input = v.In(0), filter = v.In(1), bias = v.In(2), output = v.Out(0);
  // Prepare views output, input and filter, then input, filter, bias and output again
  // while it computes the op data.
  AddTemps(m, {output, input, filter});
  m.temps_before_prepare = m.temps.size();  // the per-channel arrays come between
  AddTemps(m, {input, filter, bias, output});
  // Per-channel multipliers and shifts (int32 each) are allocated for every type: the
  // channels are the filter's output channels (dimension 0; 3 for depthwise). Float never
  // uses them and Prepare does not check that they were granted.
  const Bytes channels =
      static_cast<Bytes>(std::max<std::int64_t>(0, v.Dim(filter, depthwise ? 3 : 0)));
  m.prepare.push_back(channels * 4);
  m.prepare.push_back(channels * 4);
  m.prepare_unchecked = v.TypeOf(input) == DataType::kFloat32;
  if (v.TypeOf(input) == DataType::kFloat32 && IsQuantizedType(v.TypeOf(filter)))
    m.unsupported = fmt::format("hybrid {} (float32 input, {} filter)", v.op().type,
                                DataTypeName(v.TypeOf(filter)));
  else if (v.TypeOf(input) == DataType::kUInt8)
    m.unsupported = fmt::format("{} on uint8 tensors", v.op().type);
}

void ReferenceFullyConnected(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, FullyConnectedParams(abi));
  m.init.push_back(OpDataFullyConnected(abi).size);
  const std::int32_t input = v.In(0), filter = v.In(1), bias = v.In(2), output = v.Out(0);
  AddTemps(m, {input, filter, bias, output});
  const Tensor* f = v.TensorAt(filter);
  if (v.TypeOf(input) != DataType::kFloat32 && f && f->quant_channels > 1) {
    m.prepare.push_back(Bytes{f->quant_channels} * 4);
    m.prepare.push_back(Bytes{f->quant_channels} * 4);
  }
  if (v.TypeOf(input) == DataType::kFloat32 && IsQuantizedType(v.TypeOf(filter)))
    m.unsupported = fmt::format("hybrid FULLY_CONNECTED (float32 input, {} weights)",
                                DataTypeName(v.TypeOf(filter)));
}

namespace {

void Conv2d(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  ReferenceConv(abi, v, m, false);
}

void DepthwiseConv2d(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  ReferenceConv(abi, v, m, true);
}

void FullyConnected(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  ReferenceFullyConnected(abi, v, m);
}

void AddOrSub(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum, kBool}).Done());  // activation, pot_scale_int16
  // OpDataAdd: requires_broadcast, then shifts, limits, multipliers, offsets (12 ints),
  // and float limits (ADD only).
  const bool add = v.op().type == "ADD";
  m.init.push_back(StructLayout(abi).Add(kBool).Add(kInt, add ? 14 : 12).Done().size);
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

void Mul(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum}).Done());                 // activation
  m.init.push_back(StructLayout(abi).Add(kInt, 9).Done().size);  // OpDataMul
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

void Relu(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // ReluOpData: ActivationParams (a 1-byte enum class, min, max) and input/output offsets,
  // multiplier, shift.
  m.init.push_back(StructLayout(abi).Add(kInt, 7).Done().size);
  AddTemps(m, {v.In(0), v.Out(0)});
}

void Pad(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // OpData: PadParams (left count, left[5], right count, right[5], category) and the
  // output zero point.
  const Layout pad_params =
      StructLayout(abi).Add(kBool).Add(kInt, 5).Add(kBool).Add(kInt, 5).Add(kInt).Done();
  m.init.push_back(StructLayout(abi).Add(pad_params).Add(kInt).Done().size);
  AddTemps(m, {v.In(0), v.In(1), v.op().type == "PADV2" ? v.In(2) : -1, v.Out(0)});
}

void Reshape(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi).Add(kInt, 8).Add(kInt).Done());  // shape[8], num_dimensions
  AddTemps(m, {v.In(0), v.Out(0)});
  // An output shape with a dimension to infer (-1) gets a writable copy of its dims.
  if (const Tensor* o = v.TensorAt(v.Out(0));
      o && std::any_of(o->shape.begin(), o->shape.end(), [](std::int64_t d) { return d < 0; }))
    m.prepare.push_back(IntArrayBytes(o->shape.size()));
}

void Squeeze(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi).Add(kInt, 8).Add(kInt).Done());  // squeeze_dims[8], count
  AddTemps(m, {v.In(0), v.Out(0)});
}

void Pool(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, PoolParams(abi));
  m.init.push_back(OpDataPooling(abi).size);
  AddTemps(m, {v.In(0), v.Out(0)});
}

void Concatenation(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt, kEnum}).Done());  // axis, activation
  // ConcatenationParams: axis, input zero points and scales, count, output zp and scale.
  m.init.push_back(StructLayout(abi).Add(kInt).Add(kPtr, 2).Add(kInt, 3).Done().size);
  AddTemps(m, {v.In(0), v.Out(0)});
  for (std::size_t k = 0; k < v.Inputs(); ++k) AddTemps(m, {v.In(k)});
}

void Resize(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kBool, kBool}).Done());  // align_corners, half_pixel
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

void Softmax(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt}).Done());  // beta
  m.init.push_back(SoftmaxParams(abi).size);
  AddTemps(m, {v.In(0), v.Out(0)});
  if (v.TypeOf(v.In(0)) == DataType::kInt16) {  // exp and 1/(1+x) tables of 513 int16
    m.prepare.push_back(513 * 2);
    m.prepare.push_back(513 * 2);
  }
}

void Logistic(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kInt, 4).Done().size);  // OpDataLogistic
  AddTemps(m, {v.In(0), v.Out(0)});
}

void QuantizeOrDequantize(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // QuantizationParams (int32 zero point, double scale), then requantize multiplier,
  // shift and input zero point (QUANTIZE) / output multiplier, shift, zero point.
  const Layout qp = StructLayout(abi).Add(kInt).Add(Field::kInt64).Done();
  m.init.push_back(StructLayout(abi).Add(qp).Add(kInt, 3).Done().size);
  AddTemps(m, {v.In(0), v.Out(0)});
  if (v.op().type == "DEQUANTIZE" && v.TypeOf(v.In(0)) == DataType::kFloat16)
    m.unsupported = "DEQUANTIZE from float16";
}

void Svdf(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt, kEnum, kBool}).Done());  // rank, activation, asymmetric
  m.init.push_back(OpDataSvdf(abi).size);
  AddTemps(m, {v.In(0), v.In(1), v.In(2), v.In(3), v.In(4), v.Out(0)});
}

void Reduce(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kBool}).Done());                  // keep_dims
  m.init.push_back(StructLayout(abi).Add(kInt, 11).Done().size);  // OpDataReduce
  // PrepareSimple views input, axis and output, then the mean helper views them again.
  const std::int32_t in0 = v.In(0), in1 = v.In(1), out0 = v.Out(0);
  AddTemps(m, {in0, in1, out0, in0, out0, in1});
}

void AbsOrRsqrt(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // OpDataAbsRsqrt: multiplier, shift, input and output offsets, needs_rescale, input
  // quantization type and input type (enums).
  m.init.push_back(StructLayout(abi).Add(kInt, 4).Add(kBool).Add(kEnum, 2).Done().size);
  AddTemps(m, {v.In(0), v.Out(0)});
}

void SquaredDifference(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kBool).Add(ArithmeticParams(abi)).Done().size);
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

void SelectV2(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kBool).Done().size);  // requires_broadcast
  AddTemps(m, {v.In(0), v.In(1), v.In(2), v.Out(0)});
}

void Slice(const TargetAbi&, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.In(1), v.In(2), v.Out(0)});
}

void BatchMatmul(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kBool, kBool, kBool}).Done());  // adj_x, adj_y, asymmetric
  // OpDataBatchMatmul: quantization, lhs and rhs transposed tensors; three flags.
  m.init.push_back(StructLayout(abi).Add(kPtr, 3).Add(kBool, 3).Done().size);
  const std::int32_t in0 = v.In(0), in1 = v.In(1), out0 = v.Out(0);
  AddTemps(m, {in0, in1, out0});
  const DataType t = v.TypeOf(in0);
  if (t == DataType::kInt8 || t == DataType::kInt16)
    m.prepare.push_back(StructLayout(abi).Add(kInt, 6).Done().size);
  const bool adj_x = v.Param(0).value_or(0) != 0;
  const bool adj_y = v.Param(1).value_or(0) != 0;
  // A transposed copy of an operand: a TfLiteEvalTensor, its dims, its data.
  auto transposed = [&](std::int32_t operand) {
    const Tensor* x = v.TensorAt(operand);
    m.prepare.push_back(TfLiteEvalTensorLayout(abi).size);
    m.prepare.push_back(IntArrayBytes(v.Rank(operand)));
    m.prepare.push_back(x && x->bytes ? *x->bytes : 0);
  };
  if (adj_x) transposed(in0);
  if (!adj_y) transposed(in1);
  // The output's dims are copied into the arena before they are rewritten.
  m.prepare.push_back(IntArrayBytes(v.Rank(out0)));
}

void Lstm(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // activation, cell_clip, proj_clip, time_major, asymmetric_quantize_inputs,
  // diagonal_recurrent_tensors
  Builtin(m, StructLayout(abi).Add(kEnum).Add(kInt, 2).Add(kBool, 3).Done());
  m.init.push_back(OpDataLstm(abi).size);
  // LstmTensors views every present input and the output.
  for (std::size_t k = 0; k < v.Inputs(); ++k) AddTemps(m, {v.In(k)});
  AddTemps(m, {v.Out(0)});
}

void Relu6(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kInt, 2).Done().size);  // Relu6OpData: six, zero
  AddTemps(m, {v.In(0), v.Out(0)});
}

void Tanh(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kInt, 4).Done().size);  // zero point, radius, mult
  AddTemps(m, {v.In(0), v.Out(0)});
}

void HardSwish(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // HardSwishParams: input and output zero points, reluish multiplier (int16) and
  // exponent, output multiplier (int16) and exponent.
  m.init.push_back(
      StructLayout(abi).Add(Field::kInt16, 3).Add(kInt).Add(Field::kInt16).Add(kInt).Done().size);
  AddTemps(m, {v.In(0), v.Out(0)});
}

void LeakyRelu(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt}).Done());                  // alpha
  m.init.push_back(StructLayout(abi).Add(kInt, 6).Done().size);  // LeakyReluOpData
  AddTemps(m, {v.In(0), v.Out(0)});
}

void Prelu(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kInt, 7).Done().size);  // PreluParams
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

void Div(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum}).Done());                 // activation
  m.init.push_back(StructLayout(abi).Add(kInt, 7).Done().size);  // OpDataDiv
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

// No options struct, no Init, no Prepare memory (MAXIMUM, MINIMUM, FLOOR, NEG,
// LOGICAL_AND, LOGICAL_OR).
void Nothing(const TargetAbi&, const OpView&, KernelMemory&) {}

void StridedSlice(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // begin, end, ellipsis, new axis and shrink axis masks; offset.
  Builtin(m, StructLayout(abi).Add(kInt, 5).Add(kBool).Done());
  // StridedSliceParams: three (int8 count, int32[5]) index lists, five uint16 masks, offset.
  const Layout list = StructLayout(abi).Add(kBool).Add(kInt, 5).Done();
  m.init.push_back(StructLayout(abi).Add(list, 3).Add(Field::kInt16, 5).Add(kBool).Done().size);
  AddTemps(m, {v.In(0), v.In(1), v.In(2), v.In(3), v.Out(0)});
}

void Gather(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt, kInt}).Done());  // axis, batch_dims
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
  m.prepare.push_back(IntArrayBytes(v.Rank(v.Out(0))));  // the output's dims, made writable
}

void PackOrUnpack(const TargetAbi& abi, const OpView&, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt, kInt}).Done());  // count, axis
}

void Split(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt}).Done());  // num_splits
  AddTemps(m, {v.In(0)});                        // the axis
}

// Views the input and the output (EXP, SIN, CEIL, ROUND, ZEROS_LIKE, LOGICAL_NOT, ...).
void ViewsInOut(const TargetAbi&, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.Out(0)});
}

void ExpandDims(const TargetAbi&, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

void L2Normalization(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum}).Done());              // activation
  m.init.push_back(StructLayout(abi).Add(kInt).Done().size);  // input zero point
  AddTemps(m, {v.In(0), v.Out(0)});
}

void ArgMinMax(const TargetAbi& abi, const OpView&, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum}).Done());  // output_type
}

void Cast(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum, kEnum}).Done());  // input and output types
  AddTemps(m, {v.In(0), v.Out(0)});
  if (v.TypeOf(v.In(0)) == DataType::kUInt8) m.unsupported = "CAST from uint8";
}

void DepthSpace(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt}).Done());  // block_size
  AddTemps(m, {v.In(0), v.Out(0)});
  m.prepare.push_back(IntArrayBytes(v.Rank(v.Out(0))));  // the output's dims, made writable
}

// IF: TfLiteIfParams (then and else subgraph indices), OpData the same; Prepare views the
// condition. The branch subgraphs' arrays are allocated with every subgraph's.
void If(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt, kInt}).Done());
  m.init.push_back(StructLayout(abi, {kInt, kInt}).Done().size);
  AddTemps(m, {v.In(0)});
}

// WHILE: TfLiteWhileParams (cond and body subgraph indices), OpData the same; no views.
void While(const TargetAbi& abi, const OpView&, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt, kInt}).Done());
  m.init.push_back(StructLayout(abi, {kInt, kInt}).Done().size);
}

// CALL_ONCE: TfLiteCallOnceParams (init subgraph index); OpData: the index and has_run.
void CallOnce(const TargetAbi& abi, const OpView&, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt}).Done());
  m.init.push_back(StructLayout(abi).Add(kInt).Add(kBool).Done().size);
}

// EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL: ComparisonParams (seven
// ints and is_broadcast); Prepare views both inputs.
void Comparison(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi).Add(kInt, 7).Add(kBool).Done().size);
  AddTemps(m, {v.In(0), v.In(1)});
}

// FLOOR_DIV, FLOOR_MOD, GATHER_ND, BROADCAST_ARGS, BROADCAST_TO, REVERSE_V2: no options,
// no Init; Prepare views two inputs and the output.
void ViewsTwoInOut(const TargetAbi&, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

// ELU: a 256-entry int8 lookup table.
void Elu(const TargetAbi&, const OpView& v, KernelMemory& m) {
  m.init.push_back(256);
  AddTemps(m, {v.In(0), v.Out(0)});
}

// FILL: views the dims, the value and the output.
void Fill(const TargetAbi&, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
}

// SHAPE: TfLiteShapeParams (out_type, an enum); no views.
void Shape(const TargetAbi& abi, const OpView&, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum}).Done());
}

// SPACE_TO_BATCH_ND: SpaceToBatchParams (the output offset); views input and output.
void SpaceToBatch(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  m.init.push_back(StructLayout(abi, {kInt}).Done().size);
  AddTemps(m, {v.In(0), v.Out(0)});
}

// L2_POOL_2D: TfLitePoolParams (ParsePool); views output, then input.
void L2Pool(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, PoolParams(abi));
  AddTemps(m, {v.Out(0), v.In(0)});
}

// SPLIT_V: TfLiteSplitVParams (num_splits); views the axis (input 2).
void SplitV(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt}).Done());
  AddTemps(m, {v.In(2)});
}

// LOG_SOFTMAX: views input and output; int8 keeps LogSoftmaxOpData (five ints, two size_t)
// from Prepare.
void LogSoftmax(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.Out(0)});
  if (v.TypeOf(v.In(0)) == DataType::kInt8)
    m.prepare.push_back(StructLayout(abi).Add(kInt, 5).Add(kPtr, 2).Done().size);
}

// CUMSUM: TfLiteCumsumParams (exclusive, reverse); views input, axis and output; int8 keeps
// nine ints of op data from Prepare.
void Cumsum(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kBool, kBool}).Done());
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
  if (v.TypeOf(v.Out(0)) == DataType::kInt8)
    m.prepare.push_back(StructLayout(abi).Add(kInt, 9).Done().size);
}

// EMBEDDING_LOOKUP: views both inputs and the output; Prepare keeps a scale and a column
// count (size_t).
void EmbeddingLookup(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
  m.prepare.push_back(StructLayout(abi).Add(kInt).Add(kPtr).Done().size);
}

// ADD_N: views the first input, the output, then the others; float asks a scratch array of
// an input pointer per input; int8 keeps ten ints of op data and asks the same array.
void AddN(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.Out(0)});
  for (std::size_t k = 1; k < v.Inputs(); ++k) AddTemps(m, {v.In(k)});
  const DataType type = v.TypeOf(v.Out(0));
  if (type == DataType::kInt8) m.prepare.push_back(StructLayout(abi).Add(kInt, 10).Done().size);
  if (type == DataType::kFloat32 || type == DataType::kInt8)
    m.scratch.push_back(abi.pointer * v.Inputs());
}

// MIRROR_PAD: TfLiteMirrorPaddingParams (mode, an enum); OpDataMirrorPad (five ints); views
// input, paddings and output; asks two scratch arrays of an int per input dimension.
void MirrorPad(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum}).Done());
  m.init.push_back(StructLayout(abi).Add(kInt, 5).Done().size);
  AddTemps(m, {v.In(0), v.In(1), v.Out(0)});
  m.scratch.push_back(4 * v.Rank(v.In(0)));
  m.scratch.push_back(4 * v.Rank(v.In(0)));
}

// REDUCE_ALL: as REDUCE_MAX (its Prepare views the same tensors), and the two scratch arrays
// the verification kernels make only for MIN and MAX: an int per input dimension and per
// axis.
void ReduceAll(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Reduce(abi, v, m);
  m.scratch.push_back(4 * v.Rank(v.In(0)));
  m.scratch.push_back(static_cast<Bytes>(4 * v.Elements(v.In(1))));
}

// DYNAMIC_UPDATE_SLICE: no options, no Init; views operand, update, start indices, output.
void DynamicUpdateSlice(const TargetAbi&, const OpView& v, KernelMemory& m) {
  AddTemps(m, {v.In(0), v.In(1), v.In(2), v.Out(0)});
}

// TRANSPOSE_CONV (inputs: output shape, filter, input, bias): TfLiteTransposeConvParams;
// OpData: ConvParams (a 1-byte padding type, int16 padding values, strides and dilations,
// nine ints), two buffer indices, per-channel multiplier and shift pointers. Prepare views
// output, input and filter, allocates the per-channel arrays for every type (unchecked:
// float never uses them), asks a scratch output of int32 (int8) or int64 (int16) per
// element; quantized types then view input, filter, bias and output again, and int16 with an
// int16 bias asks an int64 copy of the bias.
void TransposeConv(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum, kInt, kInt, kEnum, kEnum}).Done());
  const Layout conv_params =
      StructLayout(abi).Add(kBool).Add(Field::kInt16, 4).Add(Field::kInt16, 4).Add(kInt, 9).Done();
  m.init.push_back(StructLayout(abi).Add(conv_params).Add(kInt, 2).Add(kPtr, 2).Done().size);
  const std::int32_t filter = v.In(1), input = v.In(2), bias = v.In(3), output = v.Out(0);
  AddTemps(m, {output, input, filter});
  const Bytes channels = static_cast<Bytes>(std::max<std::int64_t>(0, v.Dim(filter, 0)));
  m.prepare.push_back(channels * 4);
  m.prepare.push_back(channels * 4);
  const DataType type = v.TypeOf(input);
  m.prepare_unchecked = type == DataType::kFloat32;
  const Bytes elements = static_cast<Bytes>(v.Elements(output));
  if (type == DataType::kInt8) m.scratch.push_back(elements * 4);
  if (type == DataType::kInt16) m.scratch.push_back(elements * 8);
  if (type != DataType::kFloat32) AddTemps(m, {input, filter, bias, output});
  if (type == DataType::kInt16 && v.TypeOf(bias) == DataType::kInt16 && bias >= 0)
    m.scratch.push_back(static_cast<Bytes>(v.Elements(bias)) * 8);
  const DataType f = v.TypeOf(filter);
  if (type != f && !(type == DataType::kInt16 && f == DataType::kInt8))
    m.unsupported = fmt::format("hybrid TRANSPOSE_CONV ({} input, {} filter)", DataTypeName(type),
                                DataTypeName(f));
}

// Sorted by type (a binary search finds an entry).
constexpr std::array kReferenceKernels = {
    KernelEntry{"ABS", &AbsOrRsqrt},
    KernelEntry{"ADD", &AddOrSub},
    KernelEntry{"ADD_N", &AddN},
    KernelEntry{"ARG_MAX", &ArgMinMax},
    KernelEntry{"ARG_MIN", &ArgMinMax},
    KernelEntry{"AVERAGE_POOL_2D", &Pool},
    KernelEntry{"BATCH_MATMUL", &BatchMatmul},
    KernelEntry{"BATCH_TO_SPACE_ND", &ViewsInOut},
    KernelEntry{"BROADCAST_ARGS", &ViewsTwoInOut},
    KernelEntry{"BROADCAST_TO", &ViewsTwoInOut},
    KernelEntry{"CALL_ONCE", &CallOnce},
    KernelEntry{"CAST", &Cast},
    KernelEntry{"CEIL", &ViewsInOut},
    KernelEntry{"CONCATENATION", &Concatenation},
    KernelEntry{"CONV_2D", &Conv2d},
    KernelEntry{"COS", &ViewsInOut},
    KernelEntry{"CUMSUM", &Cumsum},
    KernelEntry{"DEPTHWISE_CONV_2D", &DepthwiseConv2d},
    KernelEntry{"DEPTH_TO_SPACE", &DepthSpace},
    KernelEntry{"DEQUANTIZE", &QuantizeOrDequantize},
    KernelEntry{"DIV", &Div},
    KernelEntry{"DYNAMIC_UPDATE_SLICE", &DynamicUpdateSlice},
    KernelEntry{"ELU", &Elu},
    KernelEntry{"EMBEDDING_LOOKUP", &EmbeddingLookup},
    KernelEntry{"EQUAL", &Comparison},
    KernelEntry{"EXP", &ViewsInOut},
    KernelEntry{"EXPAND_DIMS", &ExpandDims},
    KernelEntry{"FILL", &Fill},
    KernelEntry{"FLOOR", &Nothing},
    KernelEntry{"FLOOR_DIV", &ViewsTwoInOut},
    KernelEntry{"FLOOR_MOD", &ViewsTwoInOut},
    KernelEntry{"FULLY_CONNECTED", &FullyConnected},
    KernelEntry{"GATHER", &Gather},
    KernelEntry{"GATHER_ND", &ViewsTwoInOut},
    KernelEntry{"GREATER", &Comparison},
    KernelEntry{"GREATER_EQUAL", &Comparison},
    KernelEntry{"HARD_SWISH", &HardSwish},
    KernelEntry{"IF", &If},
    KernelEntry{"L2_NORMALIZATION", &L2Normalization},
    KernelEntry{"L2_POOL_2D", &L2Pool},
    KernelEntry{"LEAKY_RELU", &LeakyRelu},
    KernelEntry{"LESS", &Comparison},
    KernelEntry{"LESS_EQUAL", &Comparison},
    KernelEntry{"LOG", &ViewsInOut},
    KernelEntry{"LOGICAL_AND", &Nothing},
    KernelEntry{"LOGICAL_NOT", &ViewsInOut},
    KernelEntry{"LOGICAL_OR", &Nothing},
    KernelEntry{"LOGISTIC", &Logistic},
    KernelEntry{"LOG_SOFTMAX", &LogSoftmax},
    KernelEntry{"MAXIMUM", &Nothing},
    KernelEntry{"MAX_POOL_2D", &Pool},
    KernelEntry{"MEAN", &Reduce},
    KernelEntry{"MINIMUM", &Nothing},
    KernelEntry{"MIRROR_PAD", &MirrorPad},
    KernelEntry{"MUL", &Mul},
    KernelEntry{"NEG", &Nothing},
    KernelEntry{"NOT_EQUAL", &Comparison},
    KernelEntry{"PACK", &PackOrUnpack},
    KernelEntry{"PAD", &Pad},
    KernelEntry{"PADV2", &Pad},
    KernelEntry{"PRELU", &Prelu},
    KernelEntry{"QUANTIZE", &QuantizeOrDequantize},
    KernelEntry{"REDUCE_ALL", &ReduceAll},
    KernelEntry{"REDUCE_MAX", &Reduce},
    KernelEntry{"REDUCE_MIN", &Reduce},
    KernelEntry{"RELU", &Relu},
    KernelEntry{"RELU6", &Relu6},
    KernelEntry{"RESHAPE", &Reshape},
    KernelEntry{"RESIZE_BILINEAR", &Resize},
    KernelEntry{"RESIZE_NEAREST_NEIGHBOR", &Resize},
    KernelEntry{"REVERSE_V2", &ViewsTwoInOut},
    KernelEntry{"ROUND", &ViewsInOut},
    KernelEntry{"RSQRT", &AbsOrRsqrt},
    KernelEntry{"SELECT_V2", &SelectV2},
    KernelEntry{"SHAPE", &Shape},
    KernelEntry{"SIN", &ViewsInOut},
    KernelEntry{"SLICE", &Slice},
    KernelEntry{"SOFTMAX", &Softmax},
    KernelEntry{"SPACE_TO_BATCH_ND", &SpaceToBatch},
    KernelEntry{"SPACE_TO_DEPTH", &DepthSpace},
    KernelEntry{"SPLIT", &Split},
    KernelEntry{"SPLIT_V", &SplitV},
    KernelEntry{"SQRT", &ViewsInOut},
    KernelEntry{"SQUARE", &ViewsInOut},
    KernelEntry{"SQUARED_DIFFERENCE", &SquaredDifference},
    KernelEntry{"SQUEEZE", &Squeeze},
    KernelEntry{"STRIDED_SLICE", &StridedSlice},
    KernelEntry{"SUB", &AddOrSub},
    KernelEntry{"SUM", &Reduce},
    KernelEntry{"SVDF", &Svdf},
    KernelEntry{"TANH", &Tanh},
    KernelEntry{"TRANSPOSE", &ViewsInOut},
    KernelEntry{"TRANSPOSE_CONV", &TransposeConv},
    KernelEntry{"UNIDIRECTIONAL_SEQUENCE_LSTM", &Lstm},
    KernelEntry{"UNPACK", &PackOrUnpack},
    KernelEntry{"WHILE", &While},
    KernelEntry{"ZEROS_LIKE", &ViewsInOut},
};

constexpr bool SortedByType() {
  for (std::size_t i = 1; i < kReferenceKernels.size(); ++i)
    if (!(kReferenceKernels[i - 1].type < kReferenceKernels[i].type)) return false;
  return true;
}
static_assert(SortedByType(), "kReferenceKernels must be sorted by type");

DescribeFn ReferenceKernel(std::string_view type) {
  const auto it =
      std::lower_bound(kReferenceKernels.begin(), kReferenceKernels.end(), type,
                       [](const KernelEntry& e, std::string_view t) { return e.type < t; });
  return it != kReferenceKernels.end() && it->type == type ? it->describe : nullptr;
}

// The builtin ops TFLM's op resolver has a kernel for at kTflmCommit (its
// micro_ops.h); any other builtin op cannot run.
constexpr std::array kTflmBuiltinKernels = {
    "ABS",
    "ADD",
    "ADD_N",
    "ARG_MAX",
    "ARG_MIN",
    "ASSIGN_VARIABLE",
    "AVERAGE_POOL_2D",
    "BATCH_MATMUL",
    "BATCH_TO_SPACE_ND",
    "BROADCAST_ARGS",
    "BROADCAST_TO",
    "CALL_ONCE",
    "CAST",
    "CEIL",
    "CONCATENATION",
    "CONV_2D",
    "COS",
    "CUMSUM",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "DIV",
    "DYNAMIC_UPDATE_SLICE",
    "ELU",
    "EMBEDDING_LOOKUP",
    "EQUAL",
    "EXP",
    "EXPAND_DIMS",
    "FILL",
    "FLOOR",
    "FLOOR_DIV",
    "FLOOR_MOD",
    "FULLY_CONNECTED",
    "GATHER",
    "GATHER_ND",
    "GREATER",
    "GREATER_EQUAL",
    "HARD_SWISH",
    "IF",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LEAKY_RELU",
    "LESS",
    "LESS_EQUAL",
    "LOG",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "LOGICAL_OR",
    "LOGISTIC",
    "LOG_SOFTMAX",
    "MAXIMUM",
    "MAX_POOL_2D",
    "MEAN",
    "MINIMUM",
    "MIRROR_PAD",
    "MUL",
    "NEG",
    "NOT_EQUAL",
    "PACK",
    "PAD",
    "PADV2",
    "PRELU",
    "QUANTIZE",
    "READ_VARIABLE",
    "REDUCE_ALL",
    "REDUCE_MAX",
    "REDUCE_MIN",
    "RELU",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RESIZE_NEAREST_NEIGHBOR",
    "REVERSE_V2",
    "ROUND",
    "RSQRT",
    "SELECT_V2",
    "SHAPE",
    "SIN",
    "SLICE",
    "SOFTMAX",
    "SPACE_TO_BATCH_ND",
    "SPACE_TO_DEPTH",
    "SPLIT",
    "SPLIT_V",
    "SQRT",
    "SQUARE",
    "SQUARED_DIFFERENCE",
    "SQUEEZE",
    "STRIDED_SLICE",
    "SUB",
    "SUM",
    "SVDF",
    "TANH",
    "TRANSPOSE",
    "TRANSPOSE_CONV",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "UNPACK",
    "VAR_HANDLE",
    "WHILE",
    "ZEROS_LIKE",
};

bool TflmHasKernel(std::string_view type) {
  return std::find(kTflmBuiltinKernels.begin(), kTflmBuiltinKernels.end(), type) !=
         kTflmBuiltinKernels.end();
}

}  // namespace

KernelMemory DescribeKernel(const TargetAbi& abi, const Subgraph& subgraph, const Operator& op) {
  KernelMemory m;
  const OpView v(subgraph, op);
  if (const DescribeFn ethos_u = EthosUKernel(abi, op.type)) {
    ethos_u(abi, v, m);
    return m;
  }
  DescribeFn describe = nullptr;
  if (abi.kernels == TflmKernels::kCmsisNn) describe = CmsisNnKernel(op.type);
  if (!describe) describe = ReferenceKernel(op.type);
  if (describe)
    describe(abi, v, m);
  else
    m.known = false;
  if (op.type == kEthosUOp)
    m.unsupported = fmt::format(
        "custom op {} (TFLM's ethos_u kernel is built for a Cortex-M with an Ethos-U NPU, not "
        "for {})",
        op.type, abi.name);
  else if (!BuiltinOperatorCode(op.type))
    m.unsupported =
        fmt::format("custom op {} (no kernel unless the application registers one)", op.type);
  else if (!TflmHasKernel(op.type) && m.unsupported.empty())
    m.unsupported = fmt::format("{} (TFLM has no kernel for it)", op.type);
  if (m.unsupported.empty()) m.unsupported = TflmRefusal(v);
  return m;
}

}  // namespace memplan::target
