#include "src/target/tflm_kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "memplan/tflite.h"
#include "src/target/tflm_structs.h"

namespace memplan::target {

namespace {

constexpr Field kInt = Field::kInt32;  // int, int32_t, float, enums
constexpr Field kPtr = Field::kPointer;
constexpr Field kBool = Field::kBool;

// The op's view of its tensors: optional inputs (-1 or missing) are absent.
class OpView {
 public:
  OpView(const Subgraph& subgraph, const Operator& op) : subgraph_(subgraph), op_(op) {}
  std::int32_t In(std::size_t k) const { return Index(op_.inputs, k); }
  std::int32_t Out(std::size_t k) const { return Index(op_.outputs, k); }
  std::size_t Inputs() const { return op_.inputs.size(); }
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
  const Operator& op() const { return op_; }

 private:
  static std::int32_t Index(const std::vector<std::int32_t>& v, std::size_t k) {
    return k < v.size() ? v[k] : -1;
  }
  const Subgraph& subgraph_;
  const Operator& op_;
};

// Temps: the listed tensors that exist (an absent optional tensor makes no view).
void AddTemps(KernelMemory& m, std::initializer_list<std::int32_t> tensors) {
  for (std::int32_t t : tensors)
    if (t >= 0) m.temps.push_back(t);
}

void Builtin(KernelMemory& m, Layout layout) {
  m.has_builtin_data = true;
  m.builtin_data = layout;
}

// TfLitePaddingValues: width, height, width_offset, height_offset.
Layout PaddingValues(const TargetAbi& abi) {
  return StructLayout(abi, {kInt, kInt, kInt, kInt}).Done();
}

// OpDataConv (conv and depthwise conv): padding, input/filter/output zero points, output
// multiplier and shift, per-channel multiplier and shift arrays, activation min and max,
// filter_buffer_index.
Layout OpDataConv(const TargetAbi& abi) {
  return StructLayout(abi).Add(PaddingValues(abi)).Add(kInt, 5).Add(kPtr, 2).Add(kInt, 3).Done();
}

bool IsQuantizedType(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kUInt8 ||
         t == DataType::kInt4;
}

void Conv(const TargetAbi& abi, const OpView& v, KernelMemory& m, bool depthwise) {
  // TfLiteConvParams: padding, strides, activation, dilations, quantized_bias_type (7);
  // TfLiteDepthwiseConvParams: padding, strides, depth_multiplier, activation, dilations (7).
  Builtin(m, StructLayout(abi, {kInt, kInt, kInt, kInt, kInt, kInt, kInt}).Done());
  m.init.push_back(OpDataConv(abi).size);
  const std::int32_t input = v.In(0), filter = v.In(1), bias = v.In(2), output = v.Out(0);
  // Prepare views output, input and filter, then input, filter, bias and output again
  // while it computes the op data.
  AddTemps(m, {output, input, filter});
  m.temps_before_prepare = m.temps.size();  // the per-channel arrays come between
  AddTemps(m, {input, filter, bias, output});
  // Per-channel multipliers and shifts (int32 each) are allocated for every type: the
  // channels are the filter's output channels (dimension 0; 3 for depthwise).
  const Bytes channels =
      static_cast<Bytes>(std::max<std::int64_t>(0, v.Dim(filter, depthwise ? 3 : 0)));
  m.prepare.push_back(channels * 4);
  m.prepare.push_back(channels * 4);
  if (v.TypeOf(input) == DataType::kFloat32 && IsQuantizedType(v.TypeOf(filter)))
    m.unsupported = fmt::format("hybrid {} (float32 input, {} filter)", v.op().type,
                                DataTypeName(v.TypeOf(filter)));
  else if (v.TypeOf(input) == DataType::kUInt8)
    m.unsupported = fmt::format("{} on uint8 tensors", v.op().type);
}

void FullyConnected(const TargetAbi& abi, const OpView& v, KernelMemory& m) {
  // activation, weights_format, keep_num_dims, asymmetric_quantize_inputs,
  // quantized_bias_type
  Builtin(m, StructLayout(abi, {kInt, kInt, kBool, kBool, kInt}).Done());
  // OpDataFullyConnected: output multiplier, shift, activation min, max, input quantized
  // index, input/filter/output zero points, filter_buffer_index; per-channel multiplier
  // and shift arrays; is_per_channel.
  m.init.push_back(StructLayout(abi).Add(kInt, 9).Add(kPtr, 2).Add(kBool).Done().size);
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

// ArithmeticParams of TFLite's kernel types: broadcast category, ten offsets,
// multipliers and shifts, quantized and float activation limits, int64 and int16 limits,
// broadcast_shape[5].
Layout ArithmeticParams(const TargetAbi& abi) {
  return StructLayout(abi)
      .Add(kInt, 11)
      .Add(kInt, 4)
      .Add(Field::kInt64, 2)
      .Add(Field::kInt16, 2)
      .Add(kInt, 5)
      .Done();
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
  const std::string& type = op.type;
  const std::int32_t in0 = v.In(0), in1 = v.In(1), out0 = v.Out(0);
  if (type == "CONV_2D") {
    Conv(abi, v, m, false);
  } else if (type == "DEPTHWISE_CONV_2D") {
    Conv(abi, v, m, true);
  } else if (type == "FULLY_CONNECTED") {
    FullyConnected(abi, v, m);
  } else if (type == "ADD" || type == "SUB") {
    Builtin(m, StructLayout(abi, {kInt, kBool}).Done());  // activation, pot_scale_int16
    // OpDataAdd: requires_broadcast, then shifts, limits, multipliers, offsets (12 ints),
    // and float limits (ADD only).
    m.init.push_back(StructLayout(abi).Add(kBool).Add(kInt, type == "ADD" ? 14 : 12).Done().size);
    AddTemps(m, {in0, in1, out0});
  } else if (type == "MUL") {
    Builtin(m, StructLayout(abi, {kInt}).Done());                  // activation
    m.init.push_back(StructLayout(abi).Add(kInt, 9).Done().size);  // OpDataMul
    AddTemps(m, {in0, in1, out0});
  } else if (type == "RELU") {
    // ReluOpData: ActivationParams (type, min, max) and input/output offsets, multiplier,
    // shift.
    m.init.push_back(StructLayout(abi).Add(kInt, 7).Done().size);
    AddTemps(m, {in0, out0});
  } else if (type == "PAD" || type == "PADV2") {
    // OpData: PadParams (left count, left[5], right count, right[5], category) and the
    // output zero point.
    const Layout pad_params =
        StructLayout(abi).Add(kBool).Add(kInt, 5).Add(kBool).Add(kInt, 5).Add(kInt).Done();
    m.init.push_back(StructLayout(abi).Add(pad_params).Add(kInt).Done().size);
    AddTemps(m, {in0, in1, type == "PADV2" ? v.In(2) : -1, out0});
  } else if (type == "RESHAPE") {
    Builtin(m, StructLayout(abi).Add(kInt, 8).Add(kInt).Done());  // shape[8], num_dimensions
    AddTemps(m, {in0, out0});
    // An output shape with a dimension to infer (-1) gets a writable copy of its dims.
    if (const Tensor* o = v.TensorAt(out0);
        o && std::any_of(o->shape.begin(), o->shape.end(), [](std::int64_t d) { return d < 0; }))
      m.prepare.push_back(IntArrayBytes(o->shape.size()));
  } else if (type == "SQUEEZE") {
    Builtin(m, StructLayout(abi).Add(kInt, 8).Add(kInt).Done());  // squeeze_dims[8], count
    AddTemps(m, {in0, out0});
  } else if (type == "MAX_POOL_2D" || type == "AVERAGE_POOL_2D") {
    // TfLitePoolParams: padding, strides, filter size, activation, computed padding.
    Builtin(m, StructLayout(abi).Add(kInt, 6).Add(PaddingValues(abi)).Done());
    // OpDataPooling: padding, activation min and max (int and float).
    m.init.push_back(StructLayout(abi).Add(PaddingValues(abi)).Add(kInt, 4).Done().size);
    AddTemps(m, {in0, out0});
  } else if (type == "CONCATENATION") {
    Builtin(m, StructLayout(abi, {kInt, kInt}).Done());  // axis, activation
    // ConcatenationParams: axis, input zero points and scales, count, output zp and scale.
    m.init.push_back(StructLayout(abi).Add(kInt).Add(kPtr, 2).Add(kInt, 3).Done().size);
    AddTemps(m, {in0, out0});
    for (std::size_t k = 0; k < v.Inputs(); ++k) AddTemps(m, {v.In(k)});
  } else if (type == "RESIZE_BILINEAR") {
    Builtin(m, StructLayout(abi, {kBool, kBool}).Done());  // align_corners, half_pixel
    AddTemps(m, {in0, in1, out0});
  } else if (type == "SOFTMAX") {
    Builtin(m, StructLayout(abi, {kInt}).Done());  // beta
    // SoftmaxParams: beta (double), seven ints, five table pointers.
    m.init.push_back(StructLayout(abi).Add(Field::kInt64).Add(kInt, 7).Add(kPtr, 5).Done().size);
    AddTemps(m, {in0, out0});
    if (v.TypeOf(in0) == DataType::kInt16) {  // exp and 1/(1+x) tables of 513 int16
      m.prepare.push_back(513 * 2);
      m.prepare.push_back(513 * 2);
    }
  } else if (type == "LOGISTIC") {
    m.init.push_back(StructLayout(abi).Add(kInt, 4).Done().size);  // OpDataLogistic
    AddTemps(m, {in0, out0});
  } else if (type == "QUANTIZE" || type == "DEQUANTIZE") {
    // QuantizationParams (int32 zero point, double scale), then requantize multiplier,
    // shift and input zero point (QUANTIZE) / output multiplier, shift, zero point.
    const Layout qp = StructLayout(abi).Add(kInt).Add(Field::kInt64).Done();
    m.init.push_back(StructLayout(abi).Add(qp).Add(kInt, 3).Done().size);
    AddTemps(m, {in0, out0});
    if (type == "DEQUANTIZE" && v.TypeOf(in0) == DataType::kFloat16)
      m.unsupported = "DEQUANTIZE from float16";
  } else if (type == "SVDF") {
    Builtin(m, StructLayout(abi, {kInt, kInt, kBool}).Done());     // rank, activation, asymmetric
    m.init.push_back(StructLayout(abi).Add(kInt, 9).Done().size);  // OpDataSvdf
    AddTemps(m, {in0, in1, v.In(2), v.In(3), v.In(4), out0});
  } else if (type == "MEAN" || type == "SUM" || type == "REDUCE_MAX" || type == "REDUCE_MIN") {
    Builtin(m, StructLayout(abi, {kBool}).Done());                  // keep_dims
    m.init.push_back(StructLayout(abi).Add(kInt, 11).Done().size);  // OpDataReduce
    // PrepareSimple views input, axis and output, then the mean helper views them again.
    AddTemps(m, {in0, in1, out0, in0, out0, in1});
  } else if (type == "RSQRT" || type == "ABS") {
    // OpDataAbsRsqrt: multiplier, shift, input and output offsets, needs_rescale, input
    // quantization type, input type.
    m.init.push_back(StructLayout(abi).Add(kInt, 4).Add(kBool).Add(kInt, 2).Done().size);
    AddTemps(m, {in0, out0});
  } else if (type == "SQUARED_DIFFERENCE") {
    m.init.push_back(StructLayout(abi).Add(kBool).Add(ArithmeticParams(abi)).Done().size);
    AddTemps(m, {in0, in1, out0});
  } else if (type == "SELECT_V2") {
    m.init.push_back(StructLayout(abi).Add(kBool).Done().size);  // requires_broadcast
    AddTemps(m, {in0, in1, v.In(2), out0});
  } else if (type == "SLICE") {
    AddTemps(m, {in0, in1, v.In(2), out0});
  } else if (type == "TRANSPOSE") {
    AddTemps(m, {in0, out0});
  } else if (type == "BATCH_MATMUL") {
    Builtin(m, StructLayout(abi, {kBool, kBool, kBool}).Done());  // adj_x, adj_y, asymmetric
    // OpDataBatchMatmul: quantization, lhs and rhs transposed tensors; three flags.
    m.init.push_back(StructLayout(abi).Add(kPtr, 3).Add(kBool, 3).Done().size);
    AddTemps(m, {in0, in1, out0});
    const DataType t = v.TypeOf(in0);
    if (t == DataType::kInt8 || t == DataType::kInt16)
      m.prepare.push_back(StructLayout(abi).Add(kInt, 6).Done().size);
    const bool adj_x = op.int_params.size() > 0 && op.int_params[0] != 0;
    const bool adj_y = op.int_params.size() > 1 && op.int_params[1] != 0;
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
  } else if (type == "UNIDIRECTIONAL_SEQUENCE_LSTM") {
    // activation, cell_clip, proj_clip, time_major, asymmetric_quantize_inputs,
    // diagonal_recurrent_tensors
    Builtin(m, StructLayout(abi).Add(kInt, 3).Add(kBool, 3).Done());
    // OpDataLSTM: size info (time_major, batch, steps, input and state dimensions), cell
    // state info (clip, int16 clip, scale power), the cell gate's activation, four gates of
    // two FullyConnectedParams, three ArithmeticParams, four scratch indices.
    const Layout fc_params = StructLayout(abi).Add(kInt, 9).Add(kBool, 3).Done();
    const Layout gate = StructLayout(abi).Add(fc_params, 2).Done();
    m.init.push_back(StructLayout(abi)
                         .Add(StructLayout(abi).Add(kBool).Add(kInt, 4).Done())
                         .Add(StructLayout(abi).Add(kInt).Add(Field::kInt16).Add(kInt).Done())
                         .Add(kInt)
                         .Add(gate, 4)
                         .Add(ArithmeticParams(abi), 3)
                         .Add(kInt, 4)
                         .Done()
                         .size);
    // LstmTensors views every present input and the output.
    for (std::size_t k = 0; k < v.Inputs(); ++k) AddTemps(m, {v.In(k)});
    AddTemps(m, {out0});
  } else if (type == "RELU6") {
    m.init.push_back(StructLayout(abi).Add(kInt, 2).Done().size);  // Relu6OpData: six, zero
    AddTemps(m, {in0, out0});
  } else if (type == "TANH") {
    m.init.push_back(StructLayout(abi).Add(kInt, 4).Done().size);  // zero point, radius, mult
    AddTemps(m, {in0, out0});
  } else if (type == "HARD_SWISH") {
    // HardSwishParams: input and output zero points, reluish multiplier (int16) and
    // exponent, output multiplier (int16) and exponent.
    m.init.push_back(
        StructLayout(abi).Add(Field::kInt16, 3).Add(kInt).Add(Field::kInt16).Add(kInt).Done().size);
    AddTemps(m, {in0, out0});
  } else if (type == "LEAKY_RELU") {
    Builtin(m, StructLayout(abi, {kInt}).Done());                  // alpha
    m.init.push_back(StructLayout(abi).Add(kInt, 6).Done().size);  // LeakyReluOpData
    AddTemps(m, {in0, out0});
  } else if (type == "PRELU") {
    m.init.push_back(StructLayout(abi).Add(kInt, 7).Done().size);  // PreluParams
    AddTemps(m, {in0, in1, out0});
  } else if (type == "DIV") {
    Builtin(m, StructLayout(abi, {kInt}).Done());                  // activation
    m.init.push_back(StructLayout(abi).Add(kInt, 7).Done().size);  // OpDataDiv
    AddTemps(m, {in0, in1, out0});
  } else if (type == "MAXIMUM" || type == "MINIMUM" || type == "FLOOR") {
    // No options struct, no Init, no Prepare.
  } else if (type == "STRIDED_SLICE") {
    // begin, end, ellipsis, new axis and shrink axis masks; offset.
    Builtin(m, StructLayout(abi).Add(kInt, 5).Add(kBool).Done());
    // StridedSliceParams: three (int8 count, int32[5]) index lists, five uint16 masks, offset.
    const Layout list = StructLayout(abi).Add(kBool).Add(kInt, 5).Done();
    m.init.push_back(StructLayout(abi).Add(list, 3).Add(Field::kInt16, 5).Add(kBool).Done().size);
    AddTemps(m, {in0, in1, v.In(2), v.In(3), out0});
  } else if (type == "GATHER") {
    Builtin(m, StructLayout(abi, {kInt, kInt}).Done());  // axis, batch_dims
    AddTemps(m, {in0, in1, out0});
    m.prepare.push_back(IntArrayBytes(v.Rank(out0)));  // the output's dims, made writable
  } else if (type == "PACK" || type == "UNPACK") {
    Builtin(m, StructLayout(abi, {kInt, kInt}).Done());  // count, axis
  } else if (type == "SPLIT") {
    Builtin(m, StructLayout(abi, {kInt}).Done());  // num_splits
    AddTemps(m, {in0});                            // the axis
  } else if (type == "EXPAND_DIMS") {
    AddTemps(m, {in0, in1, out0});
  } else if (type == "EXP") {
    AddTemps(m, {in0, out0});
  } else if (type == "L2_NORMALIZATION") {
    Builtin(m, StructLayout(abi, {kInt}).Done());               // activation
    m.init.push_back(StructLayout(abi).Add(kInt).Done().size);  // input zero point
    AddTemps(m, {in0, out0});
  } else if (type == "SIN" || type == "COS" || type == "LOG" || type == "SQRT" ||
             type == "SQUARE") {
    AddTemps(m, {in0, out0});  // no options, no Init
  } else if (type == "NEG") {
    // No options, no Init, no Prepare.
  } else if (type == "ARG_MAX" || type == "ARG_MIN") {
    Builtin(m, StructLayout(abi, {kInt}).Done());  // output_type
  } else if (type == "CAST") {
    Builtin(m, StructLayout(abi, {kInt, kInt}).Done());  // input and output types
    AddTemps(m, {in0, out0});
  } else if (type == "RESIZE_NEAREST_NEIGHBOR") {
    Builtin(m, StructLayout(abi, {kBool, kBool}).Done());  // align_corners, half_pixel
    AddTemps(m, {in0, in1, out0});
  } else if (type == "DEPTH_TO_SPACE" || type == "SPACE_TO_DEPTH") {
    Builtin(m, StructLayout(abi, {kInt}).Done());  // block_size
    AddTemps(m, {in0, out0});
    m.prepare.push_back(IntArrayBytes(v.Rank(out0)));  // the output's dims, made writable
  } else {
    m.known = false;
  }
  if (!BuiltinOperatorCode(type))
    m.unsupported = fmt::format(
        "custom op {} (no reference kernel unless the application registers one)", type);
  else if (!TflmHasKernel(type) && m.unsupported.empty())
    m.unsupported = fmt::format("{} (TFLM has no kernel for it)", type);
  if (type == "CAST" && v.TypeOf(in0) == DataType::kUInt8) m.unsupported = "CAST from uint8";
  return m;
}

}  // namespace memplan::target
