// Default-domain operators and attributes newer than ONNX 1.12 (opset 17) that exported
// models use: opset 18's axes inputs (Reduce*, Pad) and Split's num_outputs, Resize's
// antialias and keep_aspect_ratio_policy, Cast's saturate, blocked quantization, and the
// operators added up to opset 24 (RMSNormalization, RotaryEmbedding, Attention,
// TensorScatter, ...). Rules follow the ONNX operator specification (docs/import.md).
#include <algorithm>
#include <cmath>

#include "src/formats/onnx/onnx_schema_rules.h"
#include "src/formats/onnx/onnx_schemas.h"

namespace memplan::formats {

namespace {

using namespace onnx_rules;

// The integer values of constant input i (ints, or int64/int32 raw data).
std::optional<std::vector<std::int64_t>> IntsInput(Ctx& ctx, std::size_t i) {
  if (i >= ctx.getNumInputs()) return std::nullopt;
  const onnx::TensorProto* t = ctx.getInputData(i);
  if (!t) return std::nullopt;
  std::vector<std::int64_t> out;
  if (t->data_type() == onnx::TensorProto::INT64) {
    if (t->has_raw_data()) {
      out.resize(t->raw_data().size() / 8);
      std::copy_n(t->raw_data().data(), out.size() * 8, reinterpret_cast<char*>(out.data()));
    } else {
      out.assign(t->int64_data().begin(), t->int64_data().end());
    }
    return out;
  }
  if (t->data_type() == onnx::TensorProto::INT32 && !t->has_raw_data()) {
    out.assign(t->int32_data().begin(), t->int32_data().end());
    return out;
  }
  return std::nullopt;
}

bool Present(Ctx& ctx, std::size_t i) {
  return i < ctx.getNumInputs() && ctx.getInputType(i);
}

// Reduce*-18: axes from the optional second input; keepdims; noop_with_empty_axes.
void ReduceRule(Ctx& ctx) {
  const std::int32_t type = InputType(ctx, 0);
  const auto x = InputDims(ctx, 0);
  const bool keep = IntAttribute(ctx, "keepdims", 1) != 0;
  std::optional<std::vector<std::int64_t>> axes;
  if (Present(ctx, 1)) {
    axes = IntsInput(ctx, 1);
    if (!axes) {  // axes computed at run time: only the rank is known, and only if kept
      SetOutput(ctx, 0, type,
                keep && x ? std::optional<Dims>(Dims(x->size(), Unknown())) : std::nullopt);
      return;
    }
  }
  if (!x) {
    SetOutput(ctx, 0, type, std::nullopt);
    return;
  }
  if ((!axes || axes->empty()) && IntAttribute(ctx, "noop_with_empty_axes", 0) != 0) {
    SetOutput(ctx, 0, type, x);
    return;
  }
  const auto rank = static_cast<std::int64_t>(x->size());
  std::vector<bool> reduced(x->size(), !axes || axes->empty());
  if (axes)
    for (std::int64_t a : *axes) {
      if (a < -rank || a >= rank) return;
      reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    }
  Dims out;
  for (std::size_t i = 0; i < x->size(); ++i)
    if (!reduced[i])
      out.push_back((*x)[i]);
    else if (keep)
      out.push_back(Value(1));
  SetOutput(ctx, 0, type, out);
}

// Split-18: the split input, or num_outputs pieces of ceil(dim / n) with a smaller last one.
void SplitRule(Ctx& ctx) {
  const auto x = InputDims(ctx, 0);
  const std::int32_t type = InputType(ctx, 0);
  const std::size_t n = ctx.getNumOutputs();
  for (std::size_t i = 0; i < n; ++i) SetOutput(ctx, i, type, std::nullopt);
  if (!x || n == 0) return;
  const auto rank = static_cast<std::int64_t>(x->size());
  std::int64_t axis = IntAttribute(ctx, "axis", 0);
  if (axis < -rank || axis >= rank) return;
  if (axis < 0) axis += rank;
  const Dim& whole = (*x)[static_cast<std::size_t>(axis)];
  std::vector<std::int64_t> sizes;
  if (Present(ctx, 1)) {
    const auto split = IntsInput(ctx, 1);
    if (!split || split->size() != n) return;
    sizes = *split;
  } else {
    if (!whole.has_dim_value() || whole.dim_value() > (std::int64_t{1} << 62)) return;
    const std::int64_t total = whole.dim_value();
    const auto count = static_cast<std::int64_t>(n);
    const std::int64_t chunk = (total + count - 1) / count;
    for (std::int64_t i = 0; i < count; ++i)
      sizes.push_back(std::clamp<std::int64_t>(total - i * chunk, 0, chunk));
  }
  for (std::size_t i = 0; i < n; ++i) {
    Dims out = *x;
    out[static_cast<std::size_t>(axis)] = Value(sizes[i]);
    SetOutput(ctx, i, type, out);
  }
}

// Pad-18: pads for the listed axes only (all axes without an axes input).
void PadRule(Ctx& ctx) {
  if (!Present(ctx, 3)) {
    InferAs(ctx, "Pad", 13, {0, 1, 2});
    return;
  }
  const std::int32_t type = InputType(ctx, 0);
  const auto x = InputDims(ctx, 0);
  const auto pads = IntsInput(ctx, 1);
  const auto axes = IntsInput(ctx, 3);
  if (!x || !pads || !axes || pads->size() != 2 * axes->size()) {
    SetOutput(ctx, 0, type, x ? std::optional<Dims>(Dims(x->size(), Unknown())) : std::nullopt);
    return;
  }
  Dims out = *x;
  const auto rank = static_cast<std::int64_t>(x->size());
  for (std::size_t k = 0; k < axes->size(); ++k) {
    std::int64_t a = (*axes)[k];
    if (a < -rank || a >= rank) return;
    if (a < 0) a += rank;
    Dim& d = out[static_cast<std::size_t>(a)];
    d = Add(Add(d, Value((*pads)[k])), Value((*pads)[k + axes->size()]));
  }
  SetOutput(ctx, 0, type, out);
}

// Resize-18/19: the opset-13 rule, except where `axes` or a keep_aspect_ratio_policy
// other than "stretch" changes how sizes apply.
void ResizeRule(Ctx& ctx) {
  const onnx::AttributeProto* policy_attr = ctx.getAttribute("keep_aspect_ratio_policy");
  const std::string policy = policy_attr ? policy_attr->s() : "stretch";
  const onnx::AttributeProto* axes_attr = ctx.getAttribute("axes");
  if (policy == "stretch" && !axes_attr) {
    InferAs(ctx, "Resize", 13, {0, 1, 2, 3});
    return;
  }
  const std::int32_t type = InputType(ctx, 0);
  const auto x = InputDims(ctx, 0);
  SetOutput(ctx, 0, type, x ? std::optional<Dims>(Dims(x->size(), Unknown())) : std::nullopt);
  if (!x) return;
  const auto rank = static_cast<std::int64_t>(x->size());
  std::vector<std::int64_t> axes;
  if (axes_attr)
    for (std::int64_t a : axes_attr->ints()) axes.push_back(a < 0 ? a + rank : a);
  else
    for (std::int64_t a = 0; a < rank; ++a) axes.push_back(a);
  for (const std::int64_t a : axes)
    if (a < 0 || a >= rank || !(*x)[static_cast<std::size_t>(a)].has_dim_value()) return;
  Dims out = *x;
  if (const auto sizes = Present(ctx, 3) ? IntsInput(ctx, 3) : std::nullopt) {
    if (sizes->size() != axes.size()) return;
    double scale = policy == "not_larger" ? 1e300 : 0.0;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const double s = static_cast<double>((*sizes)[k]) /
                       static_cast<double>((*x)[static_cast<std::size_t>(axes[k])].dim_value());
      scale = policy == "not_larger"    ? std::min(scale, s)
              : policy == "not_smaller" ? std::max(scale, s)
                                        : s;
    }
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const auto a = static_cast<std::size_t>(axes[k]);
      const double scaled = std::round(scale * static_cast<double>((*x)[a].dim_value()));
      if (policy == "stretch")
        out[a] = Value((*sizes)[k]);
      else
        out[a] =
            scaled >= 0 && scaled < 1e15 ? Value(static_cast<std::int64_t>(scaled)) : Unknown();
    }
    SetOutput(ctx, 0, type, out);
  }
}

// Attention-23: Q, K, V as [B,S,hidden] (with q_num_heads/kv_num_heads) or [B,N,S,H];
// past_key/past_value [B,N_kv,P,H]; Y like Q with V's head size; present [B,N_kv,P+L,H].
void Attention23Rule(Ctx& ctx) {
  const std::int32_t type = InputType(ctx, 0);
  const auto q = InputDims(ctx, 0), k = InputDims(ctx, 1), v = InputDims(ctx, 2);
  const std::int64_t q_heads = IntAttribute(ctx, "q_num_heads", 0);
  const std::int64_t kv_heads = IntAttribute(ctx, "kv_num_heads", 0);
  std::optional<Dims> y;
  Dim v_head, kv_len, k_head;
  if (v && v->size() == 4)
    v_head = (*v)[3];
  else if (v && v->size() == 3 && kv_heads > 0)
    v_head = Div((*v)[2], kv_heads);
  if (k && k->size() == 4) {
    kv_len = (*k)[2];
    k_head = (*k)[3];
  } else if (k && k->size() == 3 && kv_heads > 0) {
    kv_len = (*k)[1];
    k_head = Div((*k)[2], kv_heads);
  }
  if (q && q->size() == 4)
    y = Dims{(*q)[0], (*q)[1], (*q)[2], v_head};
  else if (q && q->size() == 3 && q_heads > 0)
    y = Dims{(*q)[0], (*q)[1], Mul(Value(q_heads), v_head)};
  SetOutput(ctx, 0, type, y);
  for (std::size_t out : {1u, 2u}) {
    const auto past = InputDims(ctx, out == 1 ? 4 : 5);
    if (!HasOutput(ctx, out)) continue;
    if (past && past->size() == 4) {
      Dims present = *past;
      present[2] = Add((*past)[2], kv_len);
      SetOutput(ctx, out, type, present);
    } else if (q && !q->empty()) {
      SetOutput(ctx, out, type,
                Dims{(*q)[0], k && k->size() == 4 ? (*k)[1] : Value(kv_heads), kv_len,
                     out == 1 ? k_head : v_head});
    }
  }
}

// Col2Im-18: [N, C*prod(block), L] with image_shape and block_shape -> [N, C, image...].
void Col2ImRule(Ctx& ctx) {
  const auto x = InputDims(ctx, 0);
  const auto image = IntsInput(ctx, 1);
  const auto block = IntsInput(ctx, 2);
  if (!x || x->size() != 3 || !image || !block) {
    SetOutput(ctx, 0, InputType(ctx, 0), std::nullopt);
    return;
  }
  std::int64_t block_size = 1;
  for (const std::int64_t b : *block)
    if (b < 1 || __builtin_mul_overflow(block_size, b, &block_size)) return;
  Dims out{(*x)[0], Div((*x)[1], block_size)};
  for (const std::int64_t d : *image) out.push_back(Value(d));
  SetOutput(ctx, 0, InputType(ctx, 0), out);
}

// The ints of attribute `name`, empty when absent.
std::vector<std::int64_t> IntsAttribute(Ctx& ctx, const char* name) {
  const onnx::AttributeProto* a = ctx.getAttribute(name);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}

float FloatAttribute(Ctx& ctx, const char* name, float fallback) {
  const onnx::AttributeProto* a = ctx.getAttribute(name);
  return a && a->type() == onnx::AttributeProto::FLOAT ? a->f() : fallback;
}

// Crop-1 (experimental, removed in ONNX 1.5): NCHW input; `scale` [h, w] gives the output's
// spatial size, else `border` [left, top, right, bottom] is cut off.
void CropRule(Ctx& ctx) {
  const auto x = InputDims(ctx, 0);
  SetOutput(ctx, 0, InputType(ctx, 0), std::nullopt);
  if (!x || x->size() != 4) return;
  Dims out = *x;
  const auto scale = IntsAttribute(ctx, "scale");
  const auto border = IntsAttribute(ctx, "border");
  if (scale.size() == 2) {
    out[2] = Value(scale[0]);
    out[3] = Value(scale[1]);
  } else if (border.size() == 4) {
    out[2] =
        (*x)[2].has_dim_value() ? Value((*x)[2].dim_value() - border[1] - border[3]) : Unknown();
    out[3] =
        (*x)[3].has_dim_value() ? Value((*x)[3].dim_value() - border[0] - border[2]) : Unknown();
  }
  SetOutput(ctx, 0, InputType(ctx, 0), out);
}

// Upsample-1 (experimental): NCHW scaled by the float attributes height_scale, width_scale.
void Upsample1Rule(Ctx& ctx) {
  const auto x = InputDims(ctx, 0);
  SetOutput(ctx, 0, InputType(ctx, 0), std::nullopt);
  if (!x || x->size() != 4) return;
  Dims out = *x;
  const float scales[2] = {FloatAttribute(ctx, "height_scale", 0.0f),
                           FloatAttribute(ctx, "width_scale", 0.0f)};
  for (int k = 0; k < 2; ++k) {
    const Dim& d = (*x)[static_cast<std::size_t>(2 + k)];
    const double scaled = d.has_dim_value() ? std::floor(d.dim_value() * double{scales[k]}) : -1;
    out[static_cast<std::size_t>(2 + k)] = scales[k] > 0 && scaled >= 0 && scaled < 1e15
                                               ? Value(static_cast<std::int64_t>(scaled))
                                               : Unknown();
  }
  SetOutput(ctx, 0, InputType(ctx, 0), out);
}

// ConstantFill-1 and GivenTensorFill-1 (experimental): the shape is the attribute `shape`
// (and `extra_shape`), or the input's values when input_as_shape is 1; ConstantFill's
// element type is `dtype` (FLOAT by default), GivenTensorFill's FLOAT.
void FillRule(Ctx& ctx, bool has_dtype) {
  const auto dtype = has_dtype ? static_cast<std::int32_t>(IntAttribute(ctx, "dtype", 1))
                               : onnx::TensorProto::FLOAT;
  std::optional<std::vector<std::int64_t>> dims;
  if (IntAttribute(ctx, "input_as_shape", 0) == 1)
    dims = IntsInput(ctx, 0);
  else if (ctx.getAttribute("shape"))
    dims = IntsAttribute(ctx, "shape");
  else if (const auto input = InputDims(ctx, 0))
    for (const Dim& d : *input) {
      if (!d.has_dim_value()) return SetOutput(ctx, 0, dtype, std::nullopt);
      if (!dims) dims.emplace();
      dims->push_back(d.dim_value());
    }
  if (!dims) return SetOutput(ctx, 0, dtype, std::nullopt);
  for (const std::int64_t extra : IntsAttribute(ctx, "extra_shape")) dims->push_back(extra);
  Dims out;
  for (const std::int64_t d : *dims) out.push_back(Value(d));
  SetOutput(ctx, 0, dtype, out);
}

// The experimental operators of early opsets that ONNX removed (ONNX 1.12 has no schema
// for them), as old exporters (Core ML and Caffe2 converters) wrote them; rules from their
// former specifications. Registered at version 1: a later standard version wins.
void AddRemovedOperatorSchemas(SchemaRegistry& r) {
  auto same = [](Ctx& ctx) { SameAs(ctx, 0, 0); };
  for (const char* op : {"ImageScaler", "Affine", "Scale", "ScaledTanh", "ParametricSoftplus",
                         "ThresholdedRelu", "MeanVarianceNormalization"})
    r.Add(RuleSchema(op, "", 1, 1, 0, 1, 0, same));
  r.Add(RuleSchema("Crop", "", 1, 1, 0, 1, 0, CropRule));
  r.Add(RuleSchema("Upsample", "", 1, 1, 0, 1, 0, Upsample1Rule));
  r.Add(RuleSchema("DynamicSlice", "", 1, 3, 1, 1, 0, [](Ctx& ctx) {
    InferAs(ctx, "Slice", 10, {0, 1, 2, 3});
  }));
  r.Add(RuleSchema("ConstantFill", "", 1, 0, 1, 1, 0, [](Ctx& ctx) { FillRule(ctx, true); }));
  r.Add(RuleSchema("GivenTensorFill", "", 1, 0, 1, 1, 0, [](Ctx& ctx) { FillRule(ctx, false); }));
}

}  // namespace

void AddNewerOpsetSchemas(SchemaRegistry& r) {
  AddRemovedOperatorSchemas(r);
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                         "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    r.Add(RuleSchema(op, "", 18, 1, 1, 1, 0, ReduceRule));
  for (const char* op : {"ReduceMax", "ReduceMin"})
    r.Add(RuleSchema(op, "", 20, 1, 1, 1, 0, ReduceRule));
  {
    onnx::OpSchema split = RuleSchema("Split", "", 18, 1, 1, 0, 0, SplitRule);
    split.Output(0, "outputs", "", "T", onnx::OpSchema::Variadic, true, 1);
    r.Add(std::move(split));
  }
  for (int since : {18, 19, 21}) r.Add(RuleSchema("Pad", "", since, 2, 2, 1, 0, PadRule));
  for (int since : {18, 19}) r.Add(RuleSchema("Resize", "", since, 1, 3, 1, 0, ResizeRule));
  for (int since : {19, 21}) {
    r.Add(
        RuleSchema("Cast", "", since, 1, 0, 1, 0, [](Ctx& ctx) { InferAs(ctx, "Cast", 13, {0}); }));
    r.Add(RuleSchema("CastLike", "", since, 2, 0, 1, 0,
                     [](Ctx& ctx) { SetOutput(ctx, 0, InputType(ctx, 1), InputDims(ctx, 0)); }));
    r.Add(RuleSchema("QuantizeLinear", "", since, 2, 1, 1, 0, [](Ctx& ctx) {
      const std::int32_t zero_point = InputType(ctx, 2);
      const auto dtype = static_cast<std::int32_t>(IntAttribute(ctx, "output_dtype", 0));
      SetOutput(ctx, 0,
                zero_point ? zero_point
                : dtype    ? dtype
                           : onnx::TensorProto::UINT8,
                InputDims(ctx, 0));
    }));
    r.Add(RuleSchema("DequantizeLinear", "", since, 2, 1, 1, 0,
                     [](Ctx& ctx) { SetOutput(ctx, 0, InputType(ctx, 1), InputDims(ctx, 0)); }));
  }
  r.Add(RuleSchema("AveragePool", "", 19, 1, 0, 1, 0,
                   [](Ctx& ctx) { InferAs(ctx, "MaxPool", 12, {0}); }));
  r.Add(
      RuleSchema("LpPool", "", 18, 1, 0, 1, 0, [](Ctx& ctx) { InferAs(ctx, "LpPool", 11, {0}); }));
  r.Add(RuleSchema("Col2Im", "", 18, 3, 0, 1, 0, Col2ImRule));
  auto same = [](Ctx& ctx) { SameAs(ctx, 0, 0); };
  r.Add(RuleSchema("GroupNormalization", "", 18, 3, 0, 1, 0, same));
  r.Add(RuleSchema("GroupNormalization", "", 21, 3, 0, 1, 0, same));
  r.Add(RuleSchema("Mish", "", 18, 1, 0, 1, 0, same));
  r.Add(RuleSchema("BitwiseNot", "", 18, 1, 0, 1, 0, same));
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"})
    r.Add(RuleSchema(op, "", 18, 2, 0, 1, 0, [](Ctx& ctx) { InferAs(ctx, "Add", 14, {0, 1}); }));
  r.Add(RuleSchema("Gelu", "", 20, 1, 0, 1, 0, same));
  r.Add(RuleSchema("RMSNormalization", "", 23, 2, 0, 1, 0, same));
  r.Add(RuleSchema("RotaryEmbedding", "", 23, 3, 1, 1, 0, same));
  r.Add(RuleSchema("Attention", "", 23, 3, 4, 1, 3, Attention23Rule));
  r.Add(RuleSchema("TensorScatter", "", 24, 2, 1, 1, 0, same));
  r.Add(RuleSchema("Swish", "", 24, 1, 0, 1, 0, same));
}

}  // namespace memplan::formats
