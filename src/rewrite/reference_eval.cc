// The reference evaluator (include/memplan/reference_eval.h). Each kernel restates the
// arithmetic of TensorFlow Lite Micro's reference kernel for the op, in the same loop
// order, so float sums round the same way and int8 results requantize the same way
// (docs/below-the-bound.md, "The reference evaluator").
#include "memplan/reference_eval.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "memplan/error.h"
#include "memplan/tflite.h"
#include "src/rewrite/model_io.h"
#include "src/rewrite/quantized_math.h"

namespace memplan {

namespace {

using rewrite::fb::ActivationFunctionType;
using rewrite::fb::Padding;
using rewrite::fb::TensorType;
namespace fb = rewrite::fb;

// Why an op cannot run here; ends evaluation (stop_at_unsupported) or becomes an InputError.
struct Unsupported {
  std::string why;  // e.g. "int16 tensors"
};

// Output range of a fused activation, in real values.
struct RealRange {
  float min = std::numeric_limits<float>::lowest();  // lower clamp
  float max = std::numeric_limits<float>::max();     // upper clamp
};

RealRange FloatActivation(ActivationFunctionType a) {
  switch (a) {
    case ActivationFunctionType::NONE:
      return {};
    case ActivationFunctionType::RELU:
      return {0.0f, std::numeric_limits<float>::max()};
    case ActivationFunctionType::RELU6:
      return {0.0f, 6.0f};
    case ActivationFunctionType::RELU_N1_TO_1:
      return {-1.0f, 1.0f};
    default:
      throw Unsupported{fmt::format("fused activation {}", static_cast<int>(a))};
  }
}

// A quantized activation range: the real bounds quantized with the output's scale and
// zero point (rounded half away from zero), within the type's range.
struct IntRange {
  std::int32_t min = -128;  // lower clamp
  std::int32_t max = 127;   // upper clamp
};

IntRange QuantizedActivation(ActivationFunctionType a, float scale, std::int32_t zero_point,
                             TensorType type) {
  const auto quantize = [&](float real) {
    return zero_point + static_cast<std::int32_t>(std::round(real / scale));
  };
  IntRange r;
  if (type == TensorType::UINT8) r = {0, 255};
  switch (a) {
    case ActivationFunctionType::NONE:
      break;
    case ActivationFunctionType::RELU:
      r.min = std::max(r.min, quantize(0.0f));
      break;
    case ActivationFunctionType::RELU6:
      r.min = std::max(r.min, quantize(0.0f));
      r.max = std::min(r.max, quantize(6.0f));
      break;
    case ActivationFunctionType::RELU_N1_TO_1:
      r.min = std::max(r.min, quantize(-1.0f));
      r.max = std::min(r.max, quantize(1.0f));
      break;
    default:
      throw Unsupported{fmt::format("fused activation {}", static_cast<int>(a))};
  }
  return r;
}

// TFLite's padding before the first element of a spatial axis.
int PaddingBefore(Padding padding, int in, int filter, int stride, int dilation, int out) {
  if (padding == Padding::VALID) return 0;
  const int effective = (filter - 1) * dilation + 1;
  return std::max((out - 1) * stride + effective - in, 0) / 2;
}

int OutputSize(Padding padding, int in, int filter, int stride, int dilation) {
  const int effective = (filter - 1) * dilation + 1;
  if (padding == Padding::SAME) return (in + stride - 1) / stride;
  return (in - effective + stride) / stride;
}

template <typename T>
std::vector<T> AsVector(const std::vector<std::uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

template <typename T>
std::vector<std::uint8_t> AsBytes(const std::vector<T>& values) {
  std::vector<std::uint8_t> out(values.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// NHWC dimensions of a rank-4 tensor.
struct Dims4 {
  int n = 0, h = 0, w = 0, c = 0;  // batch, height, width, channels
  int Index(int b, int y, int x, int ch) const { return ((b * h + y) * w + x) * c + ch; }
};

class Evaluator {
 public:
  Evaluator(const fb::ModelT& model, std::string_view source, EvalResult& result)
      : model_(model), sg_(*model.subgraphs.at(0)), source_(source), result_(result) {}

  void Run(const std::vector<std::vector<std::uint8_t>>& inputs, const EvalOptions& options) {
    const bool stop_at_unsupported = options.stop_at_unsupported;
    result_.tensors.assign(sg_.tensors.size(), {});
    for (std::size_t t = 0; t < sg_.tensors.size(); ++t) {
      const auto buffer = sg_.tensors[t]->buffer;
      if (buffer != 0 && buffer < model_.buffers.size() && model_.buffers[buffer] &&
          !model_.buffers[buffer]->data.empty())
        result_.tensors[t] = model_.buffers[buffer]->data;
    }
    if (inputs.size() != sg_.inputs.size())
      throw InputError(fmt::format("{}: the model has {} inputs, {} given", source_,
                                   sg_.inputs.size(), inputs.size()));
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const int t = CheckedTensor(sg_.inputs[i], "subgraph input");
      if (inputs[i].size() != Bytes(t))
        throw InputError(fmt::format("{}: input '{}' takes {} bytes, {} given", source_,
                                     sg_.tensors[t]->name, Bytes(t), inputs[i].size()));
      result_.tensors[t] = inputs[i];
    }
    for (std::size_t i = 0; i < sg_.operators.size(); ++i) {
      const auto& op = *sg_.operators[i];
      const std::string type = BuiltinOperatorName(rewrite::BuiltinCodeOf(model_, op));
      try {
        op_label_ = fmt::format("op {} ({})", i, type);
        RunOp(type, op);
      } catch (const Unsupported& u) {
        const std::string where = fmt::format("{}: {}", op_label_, u.why);
        if (!stop_at_unsupported)
          throw InputError(fmt::format("{}: cannot evaluate {}", source_, where));
        result_.stopped_at = where;
        return;
      }
      ++result_.ops_run;
      if (!options.until_tensor.empty())
        for (const int t : op.outputs)
          if (t >= 0 && static_cast<std::size_t>(t) < sg_.tensors.size() &&
              sg_.tensors[t]->name == options.until_tensor)
            return;
    }
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw InputError(fmt::format("{}: {}: {}", source_, op_label_, what));
  }

  int CheckedTensor(std::int32_t index, std::string_view role) const {
    if (index < 0 || static_cast<std::size_t>(index) >= sg_.tensors.size())
      Fail(fmt::format("{} refers to tensor {}, which does not exist", role, index));
    return index;
  }

  const fb::TensorT& T(int t) const { return *sg_.tensors[static_cast<std::size_t>(t)]; }

  std::size_t Elements(int t) const {
    std::size_t n = 1;
    for (const int d : T(t).shape) {
      if (d < 0) Fail(fmt::format("tensor '{}' has an unknown dimension", T(t).name));
      n *= static_cast<std::size_t>(d);
    }
    return n;
  }

  std::size_t ElementBytes(int t) const {
    switch (T(t).type) {
      case TensorType::FLOAT32:
      case TensorType::INT32:
        return 4;
      case TensorType::INT8:
      case TensorType::UINT8:
        return 1;
      case TensorType::INT64:
        return 8;
      case TensorType::INT16:
        return 2;
      default:
        throw Unsupported{
            fmt::format("tensor '{}' of type {}", T(t).name, fb::EnumNameTensorType(T(t).type))};
    }
  }

  std::size_t Bytes(int t) const { return Elements(t) * ElementBytes(t); }

  // The op's input `i` (must be present and computed).
  int In(const fb::OperatorT& op, std::size_t i) const {
    if (i >= op.inputs.size() || op.inputs[i] < 0) Fail(fmt::format("input {} is missing", i));
    const int t = CheckedTensor(op.inputs[i], "an input");
    if (result_.tensors[static_cast<std::size_t>(t)].size() != Bytes(t))
      Fail(fmt::format("input '{}' holds {} bytes, not its size {}", T(t).name,
                       result_.tensors[static_cast<std::size_t>(t)].size(), Bytes(t)));
    return t;
  }
  bool HasIn(const fb::OperatorT& op, std::size_t i) const {
    return i < op.inputs.size() && op.inputs[i] >= 0;
  }
  int Out(const fb::OperatorT& op) const {
    if (op.outputs.size() != 1) Fail("expected one output");
    return CheckedTensor(op.outputs[0], "the output");
  }

  Dims4 Dims(int t) const {
    const auto& s = T(t).shape;
    if (s.size() != 4)
      Fail(fmt::format("tensor '{}' has shape rank {}, expected 4", T(t).name, s.size()));
    return {s[0], s[1], s[2], s[3]};
  }

  TensorType TypeOf(int t) const { return T(t).type; }

  void NeedType(int t, TensorType type) const {
    if (T(t).type != type)
      Fail(fmt::format("tensor '{}' is {}, expected {}", T(t).name,
                       fb::EnumNameTensorType(T(t).type), fb::EnumNameTensorType(type)));
  }

  // Per-tensor scale and zero point (the first of per-channel ones).
  float Scale(int t) const {
    const auto& q = T(t).quantization;
    if (!q || q->scale.empty()) Fail(fmt::format("int8 tensor '{}' has no scale", T(t).name));
    return q->scale[0];
  }
  std::int32_t ZeroPoint(int t) const {
    const auto& q = T(t).quantization;
    return q && !q->zero_point.empty() ? static_cast<std::int32_t>(q->zero_point[0]) : 0;
  }

  bool IsQuantized(int t) const {
    return TypeOf(t) == TensorType::INT8 || TypeOf(t) == TensorType::UINT8;
  }

  // An int8 or uint8 tensor's values.
  std::vector<std::int32_t> QuantValues(int t) const {
    std::vector<std::int32_t> out;
    out.reserve(Data(t).size());
    for (const std::uint8_t byte : Data(t))
      out.push_back(TypeOf(t) == TensorType::INT8 ? static_cast<std::int8_t>(byte) : byte);
    return out;
  }

  // Values (already clamped to the type's range) as int8 or uint8 bytes.
  static std::vector<std::uint8_t> QuantBytes(const std::vector<std::int32_t>& values) {
    std::vector<std::uint8_t> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<std::uint8_t>(values[i]);
    return out;
  }

  IntRange ActivationOf(ActivationFunctionType a, int out) const {
    return QuantizedActivation(a, Scale(out), ZeroPoint(out), TypeOf(out));
  }

  void Store(int t, std::vector<std::uint8_t> bytes) {
    if (bytes.size() != Bytes(t))
      Fail(fmt::format("computed {} bytes for '{}', its size is {}", bytes.size(), T(t).name,
                       Bytes(t)));
    result_.tensors[static_cast<std::size_t>(t)] = std::move(bytes);
  }

  const std::vector<std::uint8_t>& Data(int t) const {
    return result_.tensors[static_cast<std::size_t>(t)];
  }

  void RunOp(const std::string& type, const fb::OperatorT& op) {
    if (type == "CONV_2D" || type == "DEPTHWISE_CONV_2D") return Convolution(op, type[0] == 'D');
    if (type == "AVERAGE_POOL_2D" || type == "MAX_POOL_2D") return Pool(op, type[0] == 'M');
    if (type == "ADD") return Add(op);
    if (type == "RELU" || type == "RELU6") return Relu(op, type == "RELU6");
    if (type == "PAD" || type == "PADV2") return Pad(op, type == "PADV2");
    if (type == "STRIDED_SLICE") return StridedSlice(op);
    if (type == "SLICE") return Slice(op);
    if (type == "CONCATENATION") return Concatenation(op);
    if (type == "RESHAPE") return Reshape(op);
    if (type == "TRANSPOSE") return Transpose(op);
    throw Unsupported{"the evaluator has no kernel for it"};
  }

  // A convolution's tensors, options and shapes, checked against each other.
  struct ConvGeometry {
    int in, filter, out, bias;  // tensor indices; bias -1 when absent
    bool depthwise;
    int stride_w, stride_h, dil_w, dil_h;
    ActivationFunctionType act;
    Dims4 id, fd, od;
    int pad_h, pad_w;
    int multiplier;  // depthwise: output channels per input channel
  };

  ConvGeometry ConvolutionGeometry(const fb::OperatorT& op, bool depthwise) const {
    ConvGeometry c{};
    c.in = In(op, 0), c.filter = In(op, 1), c.out = Out(op);
    c.bias = HasIn(op, 2) ? In(op, 2) : -1;
    c.depthwise = depthwise;
    Padding padding;
    if (depthwise) {
      const auto* o = op.builtin_options.AsDepthwiseConv2DOptions();
      if (!o) Fail("no DepthwiseConv2DOptions");
      padding = o->padding, c.stride_w = o->stride_w, c.stride_h = o->stride_h;
      c.dil_w = o->dilation_w_factor, c.dil_h = o->dilation_h_factor,
      c.act = o->fused_activation_function;
    } else {
      const auto* o = op.builtin_options.AsConv2DOptions();
      if (!o) Fail("no Conv2DOptions");
      padding = o->padding, c.stride_w = o->stride_w, c.stride_h = o->stride_h;
      c.dil_w = o->dilation_w_factor, c.dil_h = o->dilation_h_factor,
      c.act = o->fused_activation_function;
    }
    if (c.stride_w < 1 || c.stride_h < 1 || c.dil_w < 1 || c.dil_h < 1)
      Fail("stride or dilation below 1");
    c.id = Dims(c.in), c.fd = Dims(c.filter), c.od = Dims(c.out);
    const Dims4 &id = c.id, &fd = c.fd, &od = c.od;
    if (od.n != id.n) Fail("batch of output and input differ");
    if (depthwise) {
      if (fd.n != 1 || fd.c != od.c || id.c == 0 || od.c % id.c != 0)
        Fail("depthwise filter and channels do not match");
    } else if (fd.n != od.c || fd.c != id.c) {
      throw Unsupported{"grouped convolution (filter channels differ from input channels)"};
    }
    if (od.h != OutputSize(padding, id.h, fd.h, c.stride_h, c.dil_h) ||
        od.w != OutputSize(padding, id.w, fd.w, c.stride_w, c.dil_w))
      Fail("the output shape does not follow from the input, filter and padding");
    c.pad_h = PaddingBefore(padding, id.h, fd.h, c.stride_h, c.dil_h, od.h);
    c.pad_w = PaddingBefore(padding, id.w, fd.w, c.stride_w, c.dil_w, od.w);
    c.multiplier = depthwise ? od.c / id.c : 1;
    if (c.bias >= 0 && Elements(c.bias) != static_cast<std::size_t>(od.c)) Fail("bias size");
    return c;
  }

  // One output element: `accumulate(input index, filter index)` over the window, in the
  // kernel's loop order. Depthwise kernels walk input channel then multiplier: the same
  // oc order.
  template <typename Accumulate>
  static void ForEachTap(const ConvGeometry& c, Accumulate&& accumulate, int b, int oy, int ox,
                         int oc) {
    const int y0 = oy * c.stride_h - c.pad_h, x0 = ox * c.stride_w - c.pad_w;
    for (int ky = 0; ky < c.fd.h; ++ky) {
      const int iy = y0 + c.dil_h * ky;
      for (int kx = 0; kx < c.fd.w; ++kx) {
        const int ix = x0 + c.dil_w * kx;
        if (iy < 0 || iy >= c.id.h || ix < 0 || ix >= c.id.w) continue;
        if (c.depthwise) {
          const int ic = oc / c.multiplier;
          accumulate(c.id.Index(b, iy, ix, ic), c.fd.Index(0, ky, kx, oc));
        } else {
          for (int ic = 0; ic < c.id.c; ++ic)
            accumulate(c.id.Index(b, iy, ix, ic), c.fd.Index(oc, ky, kx, ic));
        }
      }
    }
  }

  void Convolution(const fb::OperatorT& op, bool depthwise) {
    const ConvGeometry c = ConvolutionGeometry(op, depthwise);
    if (TypeOf(c.in) == TensorType::FLOAT32) return FloatConvolution(c);
    if (!IsQuantized(c.in)) throw Unsupported{"input types other than float32, int8, uint8"};
    QuantizedConvolution(c);
  }

  void FloatConvolution(const ConvGeometry& c) {
    NeedType(c.filter, TensorType::FLOAT32);
    NeedType(c.out, TensorType::FLOAT32);
    const Dims4& od = c.od;
    const auto x = AsVector<float>(Data(c.in)), w = AsVector<float>(Data(c.filter));
    const auto bv = c.bias >= 0 ? AsVector<float>(Data(c.bias)) : std::vector<float>(od.c, 0.0f);
    const RealRange r = FloatActivation(c.act);
    std::vector<float> y(Elements(c.out));
    for (int b = 0; b < od.n; ++b)
      for (int oy = 0; oy < od.h; ++oy)
        for (int ox = 0; ox < od.w; ++ox)
          for (int oc = 0; oc < od.c; ++oc) {
            float total = 0.0f;
            ForEachTap(
                c, [&](int xi, int wi) { total += x[xi] * w[wi]; }, b, oy, ox, oc);
            y[od.Index(b, oy, ox, oc)] = std::min(std::max(total + bv[oc], r.min), r.max);
          }
    Store(c.out, AsBytes(y));
  }

  // Per output channel, the multiplier from the accumulator's scale to the output's.
  std::vector<rewrite::QuantizedMultiplier> OutputMultipliers(const ConvGeometry& c) const {
    const auto& fq = T(c.filter).quantization;
    if (!fq || fq->scale.empty()) Fail("the filter has no scales");
    if (fq->scale.size() != 1 && fq->scale.size() != static_cast<std::size_t>(c.od.c))
      Fail("the filter's per-channel scales do not match the output channels");
    const float in_scale = Scale(c.in), out_scale = Scale(c.out);
    std::vector<rewrite::QuantizedMultiplier> scale_of(static_cast<std::size_t>(c.od.c));
    for (int oc = 0; oc < c.od.c; ++oc) {
      const double filter_scale = fq->scale[fq->scale.size() == 1 ? 0 : oc];
      scale_of[oc] = rewrite::QuantizeMultiplier(static_cast<double>(in_scale) * filter_scale /
                                                 static_cast<double>(out_scale));
    }
    return scale_of;
  }

  void QuantizedConvolution(const ConvGeometry& c) {
    NeedType(c.filter, TypeOf(c.in));
    NeedType(c.out, TypeOf(c.in));
    const bool has_bias = c.bias >= 0;
    if (has_bias) NeedType(c.bias, TensorType::INT32);
    const std::vector<rewrite::QuantizedMultiplier> scale_of = OutputMultipliers(c);
    const std::int32_t in_offset = -ZeroPoint(c.in), out_offset = ZeroPoint(c.out);
    const IntRange r = ActivationOf(c.act, c.out);
    // int8 filters are symmetric (zero point 0); uint8 ones carry an offset.
    const std::int32_t filter_offset = -ZeroPoint(c.filter);
    const auto x = QuantValues(c.in), w = QuantValues(c.filter);
    const auto bv = has_bias ? AsVector<std::int32_t>(Data(c.bias)) : std::vector<std::int32_t>();
    const Dims4& od = c.od;
    std::vector<std::int32_t> y(Elements(c.out));
    for (int b = 0; b < od.n; ++b)
      for (int oy = 0; oy < od.h; ++oy)
        for (int ox = 0; ox < od.w; ++ox)
          for (int oc = 0; oc < od.c; ++oc) {
            std::int32_t acc = 0;
            ForEachTap(
                c, [&](int xi, int wi) { acc += (x[xi] + in_offset) * (w[wi] + filter_offset); }, b,
                oy, ox, oc);
            if (has_bias) acc += bv[oc];
            acc = rewrite::MultiplyByQuantizedMultiplier(acc, scale_of[oc]) + out_offset;
            y[od.Index(b, oy, ox, oc)] = std::clamp(acc, r.min, r.max);
          }
    Store(c.out, QuantBytes(y));
  }

  void Pool(const fb::OperatorT& op, bool max) {
    const int in = In(op, 0), out = Out(op);
    const auto* o = op.builtin_options.AsPool2DOptions();
    if (!o) Fail("no Pool2DOptions");
    if (o->stride_w < 1 || o->stride_h < 1 || o->filter_width < 1 || o->filter_height < 1)
      Fail("stride or filter below 1");
    const Dims4 id = Dims(in), od = Dims(out);
    if (od.n != id.n || od.c != id.c) Fail("output batch or channels differ from the input");
    if (od.h != OutputSize(o->padding, id.h, o->filter_height, o->stride_h, 1) ||
        od.w != OutputSize(o->padding, id.w, o->filter_width, o->stride_w, 1))
      Fail("the output shape does not follow from the input, filter and padding");
    const int pad_h = PaddingBefore(o->padding, id.h, o->filter_height, o->stride_h, 1, od.h);
    const int pad_w = PaddingBefore(o->padding, id.w, o->filter_width, o->stride_w, 1, od.w);
    const bool is_float = TypeOf(in) == TensorType::FLOAT32;
    if (!is_float && !IsQuantized(in))
      throw Unsupported{"input types other than float32, int8, uint8"};
    NeedType(out, TypeOf(in));
    const auto xf = is_float ? AsVector<float>(Data(in)) : std::vector<float>();
    const auto xi = is_float ? std::vector<std::int32_t>() : QuantValues(in);
    const std::int32_t lowest = TypeOf(in) == TensorType::UINT8 ? 0 : -128;
    std::vector<float> yf(is_float ? Elements(out) : 0);
    std::vector<std::int32_t> yi(is_float ? 0 : Elements(out));
    const RealRange rf = is_float ? FloatActivation(o->fused_activation_function) : RealRange{};
    const IntRange ri = is_float ? IntRange{} : ActivationOf(o->fused_activation_function, out);
    for (int b = 0; b < od.n; ++b)
      for (int oy = 0; oy < od.h; ++oy)
        for (int ox = 0; ox < od.w; ++ox)
          for (int c = 0; c < od.c; ++c) {
            // The window clipped to the image: padding is never part of a pool.
            const int y0 = oy * o->stride_h - pad_h, x0 = ox * o->stride_w - pad_w;
            const int fy0 = std::max(0, -y0), fy1 = std::min(o->filter_height, id.h - y0);
            const int fx0 = std::max(0, -x0), fx1 = std::min(o->filter_width, id.w - x0);
            const int count = (fy1 - fy0) * (fx1 - fx0);
            if (count <= 0) Fail("a pooling window lies wholly in the padding");
            float total = 0.0f, top = std::numeric_limits<float>::lowest();
            std::int32_t sum = 0, itop = lowest;
            for (int fy = fy0; fy < fy1; ++fy)
              for (int fx = fx0; fx < fx1; ++fx) {
                const int index = id.Index(b, y0 + fy, x0 + fx, c);
                if (is_float) {
                  total += xf[index];
                  top = std::max(top, xf[index]);
                } else {
                  sum += xi[index];
                  itop = std::max<std::int32_t>(itop, xi[index]);
                }
              }
            const int at = od.Index(b, oy, ox, c);
            if (is_float) {
              const float v = max ? top : total / static_cast<float>(count);
              yf[at] = std::min(std::max(v, rf.min), rf.max);
            } else {
              std::int32_t v = itop;
              if (!max) v = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
              yi[at] = std::clamp(v, ri.min, ri.max);
            }
          }
    Store(out, is_float ? AsBytes(yf) : QuantBytes(yi));
  }

  // For broadcasting: the flat index of `in` that output element `flat` reads.
  std::size_t BroadcastIndex(const std::vector<int>& out_shape, const std::vector<int>& in_shape,
                             std::size_t flat) const {
    std::size_t index = 0, in_stride = 1;
    const std::size_t rank = out_shape.size(), in_rank = in_shape.size();
    for (std::size_t k = 0; k < rank; ++k) {
      const std::size_t d = rank - 1 - k;
      const auto extent = static_cast<std::size_t>(out_shape[d]);
      const std::size_t coordinate = flat % extent;
      flat /= extent;
      if (k < in_rank) {
        const auto in_extent = static_cast<std::size_t>(in_shape[in_rank - 1 - k]);
        if (in_extent != 1) index += coordinate * in_stride;
        in_stride *= in_extent;
      }
    }
    return index;
  }

  void Add(const fb::OperatorT& op) {
    const int a = In(op, 0), b = In(op, 1), out = Out(op);
    const auto* o = op.builtin_options.AsAddOptions();
    const auto act = o ? o->fused_activation_function : ActivationFunctionType::NONE;
    const auto& os = T(out).shape;
    for (const int t : {a, b}) {
      const auto& s = T(t).shape;
      if (s.size() > os.size()) Fail("an input has a higher rank than the output");
      for (std::size_t k = 0; k < s.size(); ++k) {
        const int d = s[s.size() - 1 - k], e = os[os.size() - 1 - k];
        if (d != e && d != 1) Fail("the inputs do not broadcast to the output shape");
      }
    }
    const std::size_t n = Elements(out);
    if (TypeOf(out) == TensorType::FLOAT32) {
      NeedType(a, TensorType::FLOAT32);
      NeedType(b, TensorType::FLOAT32);
      const auto x = AsVector<float>(Data(a)), z = AsVector<float>(Data(b));
      const RealRange r = FloatActivation(act);
      std::vector<float> y(n);
      for (std::size_t i = 0; i < n; ++i)
        y[i] = std::min(
            std::max(x[BroadcastIndex(os, T(a).shape, i)] + z[BroadcastIndex(os, T(b).shape, i)],
                     r.min),
            r.max);
      return Store(out, AsBytes(y));
    }
    if (!IsQuantized(out)) throw Unsupported{"types other than float32, int8, uint8"};
    NeedType(a, TypeOf(out));
    NeedType(b, TypeOf(out));
    // Both inputs are brought to a common scale (twice the larger one) with 20 bits of
    // headroom, summed, and the sum rescaled to the output.
    constexpr int kLeftShift = 20;
    const double twice_max = 2.0 * static_cast<double>(std::max(Scale(a), Scale(b)));
    const auto ma = rewrite::QuantizeMultiplier(static_cast<double>(Scale(a)) / twice_max);
    const auto mb = rewrite::QuantizeMultiplier(static_cast<double>(Scale(b)) / twice_max);
    const auto mo = rewrite::QuantizeMultiplier(
        twice_max / (static_cast<double>(1 << kLeftShift) * static_cast<double>(Scale(out))));
    const IntRange r = ActivationOf(act, out);
    const auto x = QuantValues(a), z = QuantValues(b);
    const std::int32_t offset_a = -ZeroPoint(a), offset_b = -ZeroPoint(b);
    std::vector<std::int32_t> y(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t va = (x[BroadcastIndex(os, T(a).shape, i)] + offset_a) * (1 << kLeftShift);
      const std::int32_t vb = (z[BroadcastIndex(os, T(b).shape, i)] + offset_b) * (1 << kLeftShift);
      const std::int32_t sum = rewrite::MultiplyByQuantizedMultiplier(va, ma) +
                               rewrite::MultiplyByQuantizedMultiplier(vb, mb);
      const std::int32_t v = rewrite::MultiplyByQuantizedMultiplier(sum, mo) + ZeroPoint(out);
      y[i] = std::clamp(v, r.min, r.max);
    }
    Store(out, QuantBytes(y));
  }

  void Relu(const fb::OperatorT& op, bool six) {
    const int in = In(op, 0), out = Out(op);
    if (Elements(in) != Elements(out)) Fail("input and output sizes differ");
    const std::size_t n = Elements(out);
    if (TypeOf(in) == TensorType::FLOAT32) {
      NeedType(out, TensorType::FLOAT32);
      auto x = AsVector<float>(Data(in));
      for (float& v : x) v = six ? std::min(std::max(v, 0.0f), 6.0f) : std::max(v, 0.0f);
      return Store(out, AsBytes(x));
    }
    if (!IsQuantized(in)) throw Unsupported{"types other than float32, int8, uint8"};
    NeedType(out, TypeOf(in));
    // Requantized from the input's scale to the output's, then clamped to the range.
    const auto m = rewrite::QuantizeMultiplier(static_cast<double>(Scale(in)) /
                                               static_cast<double>(Scale(out)));
    const IntRange r =
        ActivationOf(six ? ActivationFunctionType::RELU6 : ActivationFunctionType::RELU, out);
    const auto x = QuantValues(in);
    std::vector<std::int32_t> y(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int32_t v =
          ZeroPoint(out) + rewrite::MultiplyByQuantizedMultiplier(x[i] - ZeroPoint(in), m);
      y[i] = std::clamp(v, r.min, r.max);
    }
    Store(out, QuantBytes(y));
  }

  // An int32 or int64 constant as int64 values.
  std::vector<std::int64_t> Ints(int t) const {
    std::vector<std::int64_t> out;
    if (TypeOf(t) == TensorType::INT32) {
      for (const auto v : AsVector<std::int32_t>(Data(t))) out.push_back(v);
    } else if (TypeOf(t) == TensorType::INT64) {
      out = AsVector<std::int64_t>(Data(t));
    } else {
      Fail(fmt::format("tensor '{}' must be int32 or int64", T(t).name));
    }
    return out;
  }

  // Copies `in` into `out` where `source_of` maps an output coordinate to an input one
  // (or -1 for the padding value `fill`, given as the element's bytes).
  template <typename SourceOf>
  void Gather(int in, int out, SourceOf source_of, const std::vector<std::uint8_t>& fill) {
    const std::size_t element = ElementBytes(out), n = Elements(out);
    const auto& os = T(out).shape;
    const auto& data = Data(in);
    std::vector<std::uint8_t> y(n * element);
    std::vector<int> coordinate(os.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t from = source_of(coordinate);
      if (from < 0)
        std::memcpy(y.data() + i * element, fill.data(), element);
      else
        std::memcpy(y.data() + i * element, data.data() + static_cast<std::size_t>(from) * element,
                    element);
      for (std::size_t d = os.size(); d-- > 0;) {
        if (++coordinate[d] < os[d]) break;
        coordinate[d] = 0;
      }
    }
    Store(out, std::move(y));
  }

  void Pad(const fb::OperatorT& op, bool v2) {
    const int in = In(op, 0), paddings = In(op, 1), out = Out(op);
    NeedType(out, TypeOf(in));
    const auto& is = T(in).shape;
    const auto& os = T(out).shape;
    const auto p = Ints(paddings);
    if (is.size() != os.size() || p.size() != 2 * is.size())
      Fail("paddings do not match the input rank");
    for (std::size_t d = 0; d < is.size(); ++d)
      if (p[2 * d] < 0 || p[2 * d + 1] < 0 || is[d] + p[2 * d] + p[2 * d + 1] != os[d])
        Fail("the output shape does not follow from the paddings");
    std::vector<std::uint8_t> fill(ElementBytes(out), 0);
    if (v2 && HasIn(op, 2)) {
      const int value = In(op, 2);
      NeedType(value, TypeOf(out));
      if (Data(value).size() < fill.size()) Fail("the pad value is empty");
      std::memcpy(fill.data(), Data(value).data(), fill.size());
    } else if (IsQuantized(out)) {
      fill[0] = static_cast<std::uint8_t>(ZeroPoint(out));
    } else if (TypeOf(out) != TensorType::FLOAT32) {
      throw Unsupported{"types other than float32, int8"};
    }
    Gather(
        in, out,
        [&](const std::vector<int>& c) -> std::int64_t {
          std::int64_t flat = 0;
          for (std::size_t d = 0; d < c.size(); ++d) {
            const std::int64_t x = c[d] - p[2 * d];
            if (x < 0 || x >= is[d]) return -1;
            flat = flat * is[d] + x;
          }
          return flat;
        },
        fill);
  }

  void StridedSlice(const fb::OperatorT& op) {
    const int in = In(op, 0), out = Out(op);
    const auto begin = Ints(In(op, 1)), end = Ints(In(op, 2));
    const auto strides =
        HasIn(op, 3) ? Ints(In(op, 3)) : std::vector<std::int64_t>(begin.size(), 1);
    const auto* o = op.builtin_options.AsStridedSliceOptions();
    const int begin_mask = o ? o->begin_mask : 0, end_mask = o ? o->end_mask : 0;
    if (o && (o->ellipsis_mask || o->new_axis_mask || o->shrink_axis_mask))
      throw Unsupported{"ellipsis, new-axis or shrink masks"};
    NeedType(out, TypeOf(in));
    const auto& is = T(in).shape;
    const auto& os = T(out).shape;
    if (begin.size() != is.size() || end.size() != is.size() || strides.size() != is.size() ||
        os.size() != is.size())
      Fail("begin, end and strides must have one entry per input dimension");
    std::vector<std::int64_t> first(is.size());
    for (std::size_t d = 0; d < is.size(); ++d) {
      const std::int64_t dim = is[d], s = strides[d];
      if (s <= 0) throw Unsupported{"strides below 1"};
      std::int64_t b = (begin_mask >> d) & 1 ? 0 : begin[d];
      if (b < 0) b += dim;
      b = std::clamp<std::int64_t>(b, 0, dim);
      std::int64_t e = (end_mask >> d) & 1 ? dim : end[d];
      if (o && o->offset && !((end_mask >> d) & 1)) e = b + end[d];
      if (e < 0) e += dim;
      e = std::clamp<std::int64_t>(e, 0, dim);
      const std::int64_t size = e > b ? (e - b + s - 1) / s : 0;
      if (size != os[d]) Fail("the output shape does not follow from begin, end and strides");
      first[d] = b;
    }
    Gather(in, out,
           [&](const std::vector<int>& c) -> std::int64_t {
             std::int64_t flat = 0;
             for (std::size_t d = 0; d < c.size(); ++d)
               flat = flat * is[d] + first[d] + c[d] * strides[d];
             return flat;
           },
           {});
  }

  // TFLM's SLICE: a block from `begin` of `size` (-1: to the end) per dimension.
  void Slice(const fb::OperatorT& op) {
    const int in = In(op, 0), out = Out(op);
    const auto begin = Ints(In(op, 1)), size = Ints(In(op, 2));
    NeedType(out, TypeOf(in));
    const auto& is = T(in).shape;
    const auto& os = T(out).shape;
    if (begin.size() != is.size() || size.size() != is.size() || os.size() != is.size())
      Fail("begin and size must have one entry per input dimension");
    for (std::size_t d = 0; d < is.size(); ++d) {
      const std::int64_t extent = size[d] == -1 ? is[d] - begin[d] : size[d];
      if (begin[d] < 0 || extent < 0 || begin[d] + extent > is[d])
        Fail("begin and size reach outside the input");
      if (extent != os[d]) Fail("the output shape does not follow from begin and size");
    }
    Gather(in, out,
           [&](const std::vector<int>& c) -> std::int64_t {
             std::int64_t flat = 0;
             for (std::size_t d = 0; d < c.size(); ++d) flat = flat * is[d] + begin[d] + c[d];
             return flat;
           },
           {});
  }

  void Concatenation(const fb::OperatorT& op) {
    const int out = Out(op);
    const auto* o = op.builtin_options.AsConcatenationOptions();
    if (!o) Fail("no ConcatenationOptions");
    if (o->fused_activation_function != ActivationFunctionType::NONE)
      throw Unsupported{"a fused activation on CONCATENATION"};
    const auto& os = T(out).shape;
    const int rank = static_cast<int>(os.size());
    const int axis = o->axis < 0 ? o->axis + rank : o->axis;
    if (axis < 0 || axis >= rank) Fail("the axis is outside the output rank");
    std::size_t outer = 1, inner = ElementBytes(out);
    for (int d = 0; d < axis; ++d) outer *= static_cast<std::size_t>(os[d]);
    for (int d = axis + 1; d < rank; ++d) inner *= static_cast<std::size_t>(os[d]);
    std::vector<int> inputs;
    int total = 0;
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const int t = In(op, i);
      NeedType(t, TypeOf(out));
      const auto& s = T(t).shape;
      if (static_cast<int>(s.size()) != rank) Fail("inputs differ in rank from the output");
      for (int d = 0; d < rank; ++d)
        if (d != axis && s[d] != os[d]) Fail("inputs differ from the output off the axis");
      if (IsQuantized(out) && (Scale(t) != Scale(out) || ZeroPoint(t) != ZeroPoint(out)))
        throw Unsupported{"int8 inputs quantized unlike the output"};
      total += s[axis];
      inputs.push_back(t);
    }
    if (total != os[axis]) Fail("the inputs do not add up to the output along the axis");
    std::vector<std::uint8_t> y;
    y.reserve(Bytes(out));
    for (std::size_t k = 0; k < outer; ++k)
      for (const int t : inputs) {
        const std::size_t chunk = inner * static_cast<std::size_t>(T(t).shape[axis]);
        const auto* from = Data(t).data() + k * chunk;
        y.insert(y.end(), from, from + chunk);
      }
    Store(out, std::move(y));
  }

  void Transpose(const fb::OperatorT& op) {
    const int in = In(op, 0), out = Out(op);
    NeedType(out, TypeOf(in));
    const auto perm = Ints(In(op, 1));
    const auto& is = T(in).shape;
    const auto& os = T(out).shape;
    if (perm.size() != is.size() || os.size() != is.size()) Fail("the permutation's rank");
    std::vector<bool> seen(is.size(), false);
    for (std::size_t d = 0; d < perm.size(); ++d) {
      if (perm[d] < 0 || static_cast<std::size_t>(perm[d]) >= is.size() || seen[perm[d]] ||
          os[d] != is[perm[d]])
        Fail("the permutation does not map the input shape to the output shape");
      seen[perm[d]] = true;
    }
    // Input strides, so output coordinate d walks input axis perm[d].
    std::vector<std::int64_t> stride(is.size(), 1);
    for (std::size_t d = is.size(); d-- > 1;) stride[d - 1] = stride[d] * is[d];
    Gather(in, out,
           [&](const std::vector<int>& c) -> std::int64_t {
             std::int64_t flat = 0;
             for (std::size_t d = 0; d < c.size(); ++d) flat += c[d] * stride[perm[d]];
             return flat;
           },
           {});
  }

  void Reshape(const fb::OperatorT& op) {
    const int in = In(op, 0), out = Out(op);
    NeedType(out, TypeOf(in));
    if (Bytes(in) != Bytes(out)) Fail("input and output sizes differ");
    Store(out, Data(in));
  }

  const fb::ModelT& model_;
  const fb::SubGraphT& sg_;
  std::string source_;
  EvalResult& result_;
  std::string op_label_;  // "op N (TYPE)" of the op running, for messages
};

}  // namespace

EvalResult EvaluateTflite(std::string_view bytes, std::string_view source,
                          const std::vector<std::vector<std::uint8_t>>& inputs,
                          const EvalOptions& options) {
  const auto model = rewrite::LoadModel(bytes, source);
  if (model->subgraphs.empty() || !model->subgraphs[0])
    throw InputError(fmt::format("{}: the model has no subgraph", source));
  EvalResult result;
  Evaluator(*model, source, result).Run(inputs, options);
  return result;
}

std::vector<std::string> TfliteTensorNames(std::string_view bytes, std::string_view source) {
  const auto model = rewrite::LoadModel(bytes, source);
  std::vector<std::string> names;
  if (!model->subgraphs.empty() && model->subgraphs[0])
    for (const auto& t : model->subgraphs[0]->tensors) names.push_back(t ? t->name : "");
  return names;
}

}  // namespace memplan
