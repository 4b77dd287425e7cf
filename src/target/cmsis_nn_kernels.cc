// What TFLM's CMSIS-NN kernels (its kernels/cmsis_nn folder, OPTIMIZED_KERNEL_DIR=cmsis_nn,
// KERNELS_OPTIMIZED_FOR_SPEED as its Makefile sets) allocate where they differ from the
// reference kernels, and the scratch sizes CMSIS-NN's *_get_buffer_size functions give per
// core (no DSP, DSP, MVE): docs/tflm-facts.md, "CMSIS-NN".
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "memplan/tflite.h"
#include "src/target/kernel_view.h"
#include "src/target/tflm_structs.h"

namespace memplan::target {

namespace {

// cmsis_nn_dims.
struct Dims {
  std::int64_t n = 1, h = 1, w = 1, c = 1;
};

Dims Nhwc(const OpView& v, std::int32_t t) {
  return {v.Dim(t, 0), v.Dim(t, 1), v.Dim(t, 2), v.Dim(t, 3)};
}

std::int64_t RoundUp(std::int64_t x, std::int64_t to) {
  return (x + to - 1) / to * to;
}

// arm_convolve_s8_get_buffer_size (and its _mve form).
std::int64_t ConvolveS8(ArmExtensions ext, const Dims& input, const Dims& filter) {
  const std::int64_t cols = input.c * filter.w * filter.h;
  if (ext == ArmExtensions::kMve) return 4 * RoundUp(cols, 16);
  return 2 * RoundUp(cols, 4) * 2;  // two columns of int16
}

// arm_convolve_1_x_n_s8_get_buffer_size_mve: a left and a right padded window.
std::int64_t Convolve1xNS8Mve(const Window& w, const Dims& input, const Dims& filter,
                              const Dims& output) {
  const std::int64_t total_pad = (output.w - 1) * w.stride_w + filter.w - input.w;
  const std::int64_t asym_pad = total_pad % 2;
  const std::int64_t stride = w.stride_w;
  const std::int64_t right_num =
      w.pad_w + asym_pad != 0
          ? std::max<std::int64_t>(1, (w.pad_w + asym_pad + stride - 1) / stride)
          : 0;
  const std::int64_t left_num =
      w.pad_w != 0 ? std::max<std::int64_t>(1, (w.pad_w + stride - 1) / stride) : 0;
  const std::int64_t no_pad_num = std::max<std::int64_t>(output.w - (right_num + left_num), 0);
  if (right_num + no_pad_num + left_num != output.w)
    return ConvolveS8(ArmExtensions::kMve, input, filter);
  const std::int64_t pad_left = w.pad_w * input.c;
  const std::int64_t pad_right = asym_pad ? right_num * input.c : pad_left;
  const std::int64_t elems_left = filter.w * input.c;
  const std::int64_t elems_right = elems_left - input.c;
  return std::max(elems_left + pad_left, elems_right + pad_right);
}

// arm_convolve_wrapper_s8_get_buffer_size. The 1x1 unit-stride kernel's buffer is used
// only when Arm Compiler 6 builds it: 0 with GCC, as TFLM's Makefile builds.
std::int64_t ConvolveWrapperS8(ArmExtensions ext, const Window& w, const Dims& input,
                               const Dims& filter, const Dims& output) {
  const bool one_by_one = w.pad_w == 0 && w.pad_h == 0 && filter.w == 1 && filter.h == 1 &&
                          w.dilation_w == 1 && w.dilation_h == 1 && input.c == filter.c;
  if (one_by_one) return 0;
  const bool one_by_n = input.h == 1 && w.dilation_w == 1 && filter.h == 1 &&
                        (w.stride_w * input.c) % 4 == 0 && input.c == filter.c;
  if (one_by_n && ext == ArmExtensions::kMve) return Convolve1xNS8Mve(w, input, filter, output);
  return ConvolveS8(ext, input, filter);
}

// arm_convolve_wrapper_s16_get_buffer_size.
std::int64_t ConvolveWrapperS16(ArmExtensions ext, const Dims& input, const Dims& filter) {
  const std::int64_t cols = input.c * filter.w * filter.h;
  if (ext == ArmExtensions::kMve) return 4 * RoundUp(cols, 8) * 2;
  return 2 * cols * 2;
}

// arm_depthwise_conv_wrapper_s8_get_buffer_size. On MVE a depthwise conv of one input
// channel runs as a conv (GCC's threshold: more than one output channel); TFLM does not set
// the stride it passes, so the op's own stride is taken.
std::int64_t DepthwiseWrapperS8(ArmExtensions ext, const Window& w, const Dims& input,
                                const Dims& filter, const Dims& output) {
  if (ext == ArmExtensions::kMve && input.c == 1 && output.c > 1) {
    const Dims as_conv{filter.c, filter.h, filter.w, filter.n};
    return ConvolveWrapperS8(ext, w, input, as_conv, output) + filter.c * filter.h * filter.w;
  }
  if (input.c != output.c || input.n != 1 || w.dilation_w != 1 || w.dilation_h != 1) return 0;
  if (ext == ArmExtensions::kMve) return 4 * 124 * filter.w * filter.h;  // CH_IN_BLOCK_MVE
  if (filter.w == 3 && filter.h == 3 && w.pad_h <= 1 && w.pad_w <= 1) return 0;
  if (ext == ArmExtensions::kDsp) return input.c * filter.w * filter.h * 2;
  return 0;
}

void Scratch(KernelMemory& m, std::int64_t bytes) {
  if (bytes > 0) m.scratch.push_back(static_cast<Bytes>(bytes));
}

// The types CMSIS-NN's conv, depthwise conv and fully connected kernels take.
std::string RefusedTypes(const OpView& v) {
  const DataType in = v.TypeOf(v.In(0)), filter = v.TypeOf(v.In(1));
  if (in != DataType::kFloat32 && in != DataType::kInt8 && in != DataType::kInt16)
    return fmt::format("{} on {} input (CMSIS-NN's kernel takes float32, int8 and int16)",
                       v.op().type, DataTypeName(in));
  const bool paired =
      (in == DataType::kFloat32 && filter == DataType::kFloat32) ||
      (in == DataType::kInt16 && filter == DataType::kInt8) ||
      (in == DataType::kInt8 && (filter == DataType::kInt8 || filter == DataType::kInt4));
  if (!paired)
    return fmt::format("hybrid {} ({} input, {} filter)", v.op().type, DataTypeName(in),
                       DataTypeName(filter));
  return "";
}

// Conv and depthwise conv: OpDataConv and a scratch index; the per-channel arrays only
// for int8 and int16; the bias is looked up among the outputs (so never viewed before the
// op data is computed).
void ConvLike(const TargetAbi& abi, const OpView& v, KernelMemory& m, bool depthwise) {
  Builtin(m, depthwise ? DepthwiseConvParams(abi) : ConvParams(abi));
  m.init.push_back(StructLayout(abi).Add(OpDataConv(abi)).Add(kInt).Done().size);
  const std::int32_t input = v.In(0), filter = v.In(1), bias = v.In(2), output = v.Out(0);
  AddTemps(m, {input, filter, output});
  m.temps_before_prepare = m.temps.size();
  AddTemps(m, {input, filter, bias, output});
  m.unsupported = RefusedTypes(v);
  const DataType type = v.TypeOf(input);
  if (type != DataType::kInt8 && type != DataType::kInt16) return;
  const Bytes channels =
      static_cast<Bytes>(std::max<std::int64_t>(0, v.Dim(filter, depthwise ? 3 : 0)));
  m.prepare.push_back(channels * 4);
  m.prepare.push_back(channels * 4);
  m.prepare_unchecked = true;  // CMSIS-NN's Prepare does not check them
  const std::optional<Window> w = ConvWindow(v, depthwise);
  if (!w) {
    m.known = false;  // the scratch size needs the op's strides and padding
    return;
  }
  const Dims in = Nhwc(v, input), out = Nhwc(v, output);
  const ArmExtensions ext = abi.extensions;
  if (!depthwise) {
    const Dims f{1, v.Dim(filter, 1), v.Dim(filter, 2), v.Dim(filter, 3)};
    Scratch(m, type == DataType::kInt8 ? ConvolveWrapperS8(ext, *w, in, f, out)
                                       : ConvolveWrapperS16(ext, in, f));
    return;
  }
  const Dims f{1, v.Dim(filter, 1), v.Dim(filter, 2), out.c};
  if (type == DataType::kInt16) return;  // no scratch for int16 depthwise in TFLM's Prepare
  if (v.TypeOf(filter) == DataType::kInt4)
    m.known = false;  // the int4 depthwise buffer is not modelled
  else
    Scratch(m, DepthwiseWrapperS8(ext, *w, {in.n, in.h, in.w, in.c}, f, out));
}

void Conv2d(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  ConvLike(abi, v, m, false);
}

void DepthwiseConv2d(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  ConvLike(abi, v, m, true);
}

// OpDataFullyConnected, two scratch indices, the kernel sums pointer, batches, accum and
// output depth.
void FullyConnected(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, FullyConnectedParams(abi));
  m.init.push_back(StructLayout(abi)
                       .Add(OpDataFullyConnected(abi))
                       .Add(kInt, 2)
                       .Add(kPtr)
                       .Add(kInt, 3)
                       .Done()
                       .size);
  const std::int32_t input = v.In(0), filter = v.In(1), bias = v.In(2), output = v.Out(0);
  AddTemps(m, {input, filter, bias, output});
  const Tensor* f = v.TensorAt(filter);
  const bool per_channel = f && f->quant_channels > 1;
  if (v.TypeOf(input) != DataType::kFloat32 && per_channel) {
    m.prepare.push_back(Bytes{f->quant_channels} * 4);
    m.prepare.push_back(Bytes{f->quant_channels} * 4);
  }
  m.prepare_unchecked = true;  // neither those arrays nor the kernel sums are checked
  m.unsupported = RefusedTypes(v);
  if (v.TypeOf(input) != DataType::kInt8 || v.TypeOf(filter) == DataType::kInt4) return;
  const std::size_t out_rank = v.Rank(output);
  const std::int64_t accum_depth = v.Rank(filter) ? v.Dim(filter, v.Rank(filter) - 1) : 0;
  const std::int64_t output_depth = out_rank ? v.Dim(output, out_rank - 1) : 0;
  if (out_rank > 2 && accum_depth % 4 == 0) {
    // Run as a 1x1 convolution: per-tensor quantization gets per-channel arrays as scratch.
    if (!per_channel) Scratch(m, output_depth * 4 * 2);
    return;  // the 1x1 kernel's own buffer: 0 with GCC
  }
  if (abi.extensions != ArmExtensions::kMve) return;  // arm_fully_connected_s8: no buffer
  const std::int64_t sums = output_depth * 4;
  // Optimised for speed, constant weights get their kernel sums once, in a persistent
  // buffer; otherwise a scratch buffer.
  if (v.IsConstant(filter) && (bias < 0 || v.IsConstant(bias)))
    m.prepare.push_back(static_cast<Bytes>(sums));
  else
    Scratch(m, sums);
}

void Pool(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, PoolParams(abi));
  m.init.push_back(StructLayout(abi).Add(OpDataPooling(abi)).Add(kInt).Done().size);
  const std::int32_t input = v.In(0), output = v.Out(0);
  AddTemps(m, {input, output});
  if (v.op().type != "AVERAGE_POOL_2D") return;
  AddTemps(m, {input, output});  // AveragePrepare views them again
  const DataType type = v.TypeOf(input);
  if ((type == DataType::kInt8 || type == DataType::kInt16) &&
      abi.extensions == ArmExtensions::kDsp)
    Scratch(m, v.Dim(output, 3) * 4);  // arm_avgpool_s8/s16: one int32 per channel
}

void Softmax(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt}).Done());  // beta
  // SoftmaxParams, then the rows and the row size.
  m.init.push_back(StructLayout(abi).Add(SoftmaxParams(abi)).Add(kInt, 2).Done().size);
  AddTemps(m, {v.In(0), v.Out(0)});
  if (v.TypeOf(v.In(0)) == DataType::kInt16) {  // the reference tables, as CalculateSoftmaxParams
    m.prepare.push_back(513 * 2);
    m.prepare.push_back(513 * 2);
  }
}

void Svdf(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kInt, kEnum, kBool}).Done());  // rank, activation, asymmetric
  // Scales (4), two scratch indices, three zero points, the kernel sums pointer.
  m.init.push_back(StructLayout(abi).Add(kInt, 9).Add(kPtr).Done().size);
  AddTemps(m, {v.In(0), v.In(1), v.In(2), v.In(3), v.In(4), v.Out(0)});
  const std::int64_t batch = v.Dim(v.In(0), 0);
  const std::int64_t filters = v.Dim(v.In(1), 0);
  const std::int64_t units = v.Dim(v.Out(0), 1);
  Scratch(m, batch * filters * 4);
  if (v.TypeOf(v.In(0)) != DataType::kInt8) return;
  Scratch(m, batch * units * 4);
  if (abi.extensions == ArmExtensions::kMve)  // arm_svdf_s8's kernel sums, kept, unchecked
    m.prepare.push_back(static_cast<Bytes>(filters * 4));
  m.prepare_unchecked = true;
}

void Lstm(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi).Add(kEnum).Add(kInt, 2).Add(kBool, 3).Done());
  // cmsis_nn_lstm_gate: multipliers and shifts, weights and effective biases, the bias
  // and the activation (an enum); cmsis_nn_lstm_params: 15 ints and four gates.
  const Layout gate =
      StructLayout(abi).Add(kInt, 2).Add(kPtr, 2).Add(kInt, 2).Add(kPtr, 3).Add(kEnum).Done();
  const Layout params = StructLayout(abi).Add(kInt, 15).Add(gate, 4).Done();
  m.init.push_back(StructLayout(abi).Add(OpDataLstm(abi)).Add(params).Done().size);
  for (std::size_t k = 0; k < v.Inputs(); ++k) AddTemps(m, {v.In(k)});
  AddTemps(m, {v.Out(0)});
  constexpr std::int32_t kCellState = 19, kOutputState = 18;
  const DataType activation = v.TypeOf(v.In(0));
  const DataType cell = v.TypeOf(v.In(kCellState));
  const std::int64_t hidden = v.Dim(v.In(kOutputState), v.Rank(v.In(kOutputState)) - 1);
  const bool integer =
      cell == DataType::kInt16 && (activation == DataType::kInt8 || activation == DataType::kInt16);
  if (integer)  // eight kernel sums (input and hidden, four gates): int32, or int64 for int16
    for (int k = 0; k < 8; ++k)
      m.prepare.push_back(static_cast<Bytes>(hidden * (activation == DataType::kInt8 ? 4 : 8)));
  m.prepare_unchecked = true;  // none of the eight is checked
  const Tensor* state = v.TensorAt(v.In(kCellState));
  const Bytes buffer = state && state->bytes ? *state->bytes : 0;  // batch x state x cell type
  for (int k = 0; k < (integer ? 3 : 4); ++k) m.scratch.push_back(buffer);
}

// arm_transpose_conv_s8_get_buffer_size and ..._get_reverse_conv_buffer_size: with strides up
// to 2 and more than 16 input channels the op runs as a convolution over the upsampled input
// (that convolution's buffer, and a reversed copy of the filter); otherwise a buffer of int32
// columns and no reversed filter.
struct TransposeConvBuffers {
  std::int64_t columns = 0, reversed_filter = 0;
};
TransposeConvBuffers TransposeConvS8(ArmExtensions ext, std::int64_t stride_w,
                                     std::int64_t stride_h, const Dims& input, const Dims& filter,
                                     const Dims& output) {
  if (stride_w <= 2 && stride_h <= 2 && input.c > 16) {
    const Dims upsampled{input.n, input.h * stride_h, input.w * stride_w, input.c};
    return {ConvolveS8(ext, upsampled, filter), input.c * filter.w * filter.h * filter.n};
  }
  const std::int64_t x = ((input.w - 1) * stride_w + std::max(filter.w, stride_h)) * output.c;
  return {x * std::max(filter.h, stride_h) * 4, 0};
}

// TRANSPOSE_CONV: as the reference (options, per-channel arrays for every type, views) with
// three buffer indices in its op data, the arrays unchecked; int16 asks the same scratch
// output and bias copy; int8 asks arm_transpose_conv_s8's two buffers (the second may be of
// 0 bytes: TFLM requests it all the same), which need the op's strides.
void TransposeConv(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kEnum, kInt, kInt, kEnum, kEnum}).Done());
  const Layout conv_params =
      StructLayout(abi).Add(kBool).Add(Field::kInt16, 4).Add(Field::kInt16, 4).Add(kInt, 9).Done();
  m.init.push_back(StructLayout(abi).Add(conv_params).Add(kInt, 3).Add(kPtr, 2).Done().size);
  const std::int32_t filter = v.In(1), input = v.In(2), bias = v.In(3), output = v.Out(0);
  AddTemps(m, {output, input, filter});
  const Bytes channels = static_cast<Bytes>(std::max<std::int64_t>(0, v.Dim(filter, 0)));
  m.prepare.push_back(channels * 4);
  m.prepare.push_back(channels * 4);
  const DataType type = v.TypeOf(input), f = v.TypeOf(filter);
  m.prepare_unchecked = true;  // for every type, unlike the reference kernel
  if (!((type == DataType::kFloat32 && f == DataType::kFloat32) ||
        (type == DataType::kInt16 && f == DataType::kInt8) ||
        (type == DataType::kInt8 && f == DataType::kInt8)))
    m.unsupported = fmt::format("TRANSPOSE_CONV of {} input and {} filter (CMSIS-NN's kernel)",
                                DataTypeName(type), DataTypeName(f));
  if (type == DataType::kInt8) {
    const std::optional<std::int64_t> stride_w = v.Param(1), stride_h = v.Param(2);
    if (!stride_w || !stride_h) {
      m.known = false;  // the buffers need the strides
    } else {
      const Dims in = Nhwc(v, input), out = Nhwc(v, output);
      const Dims weights{out.c, v.Dim(filter, 1), v.Dim(filter, 2), in.c};
      const TransposeConvBuffers b =
          TransposeConvS8(abi.extensions, *stride_w, *stride_h, in, weights, out);
      m.scratch.push_back(static_cast<Bytes>(b.columns));
      m.scratch.push_back(static_cast<Bytes>(b.reversed_filter));
    }
  }
  if (type == DataType::kInt16) m.scratch.push_back(static_cast<Bytes>(v.Elements(output)) * 8);
  if (type != DataType::kFloat32) AddTemps(m, {input, filter, bias, output});
  if (type == DataType::kInt16 && bias >= 0 && v.TypeOf(bias) == DataType::kInt16)
    m.scratch.push_back(static_cast<Bytes>(v.Elements(bias)) * 8);
}

// BATCH_MATMUL: the reference kernel's op data with the output's cmsis_nn_dims and a scratch
// index; in Prepare the transposed operands first (a TfLiteEvalTensor, its dims, its data),
// then the output's dims, then (int8, int16) the quantization struct, all checked; int8 on
// MVE asks arm_fully_connected_s8's buffer, an int32 per column of the output.
void BatchMatmul(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  Builtin(m, StructLayout(abi, {kBool, kBool, kBool}).Done());  // adj_x, adj_y, asymmetric
  const Layout reference = StructLayout(abi).Add(kPtr, 3).Add(kBool, 3).Done();
  m.init.push_back(StructLayout(abi).Add(reference).Add(kInt, 4).Add(kInt).Done().size);
  const std::int32_t lhs = v.In(0), rhs = v.In(1), output = v.Out(0);
  AddTemps(m, {lhs, rhs, output});
  const auto transposed = [&](std::int32_t operand) {
    const Tensor* x = v.TensorAt(operand);
    m.prepare.push_back(TfLiteEvalTensorLayout(abi).size);
    m.prepare.push_back(IntArrayBytes(v.Rank(operand)));
    m.prepare.push_back(x && x->bytes ? *x->bytes : 0);
  };
  if (v.Param(0).value_or(0) != 0) transposed(lhs);
  if (v.Param(1).value_or(0) == 0) transposed(rhs);
  m.prepare.push_back(IntArrayBytes(v.Rank(output)));
  const DataType type = v.TypeOf(lhs);
  if (type == DataType::kInt8 || type == DataType::kInt16)
    m.prepare.push_back(StructLayout(abi).Add(kInt, 6).Done().size);
  const std::size_t rank = v.Rank(output);
  if (type == DataType::kInt8 && abi.extensions == ArmExtensions::kMve && rank > 0)
    Scratch(m, v.Dim(output, rank - 1) * 4);
  if (type != DataType::kFloat32 && type != DataType::kInt8 && type != DataType::kInt16)
    m.unsupported = fmt::format(
        "BATCH_MATMUL on {} (CMSIS-NN's kernel takes float32, int8 and "
        "int16)",
        DataTypeName(type));
}

// Where TFLM's cmsis_nn folder replaces a reference kernel with different memory. Its ADD,
// MUL, PAD, MAXIMUM, MINIMUM and TRANSPOSE keep the reference kernels' Init and Prepare.
constexpr std::array kCmsisNnKernels = {
    KernelEntry{"AVERAGE_POOL_2D", &Pool},
    KernelEntry{"BATCH_MATMUL", &BatchMatmul},
    KernelEntry{"CONV_2D", &Conv2d},
    KernelEntry{"DEPTHWISE_CONV_2D", &DepthwiseConv2d},
    KernelEntry{"FULLY_CONNECTED", &FullyConnected},
    KernelEntry{"MAX_POOL_2D", &Pool},
    KernelEntry{"SOFTMAX", &Softmax},
    KernelEntry{"SVDF", &Svdf},
    KernelEntry{"TRANSPOSE_CONV", &TransposeConv},
    KernelEntry{"UNIDIRECTIONAL_SEQUENCE_LSTM", &Lstm},
};

}  // namespace

DescribeFn CmsisNnKernel(std::string_view type) {
  for (const KernelEntry& e : kCmsisNnKernels)
    if (e.type == type) return e.describe;
  return nullptr;
}

}  // namespace memplan::target
