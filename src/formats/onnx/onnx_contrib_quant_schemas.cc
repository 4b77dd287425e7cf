// Shape rules for the com.microsoft operators ONNX Runtime's quantization tools write:
// the QLinear* operators of its QOperator format, 4-bit MatMulNBits, dynamic-quantized
// MatMuls, QGemm, QAttention, the QOrdered* operators and its Quantize/DequantizeLinear.
// Inputs as ONNX Runtime's contrib operator documentation lists them (docs/import.md).
#include "src/formats/onnx/onnx_schema_rules.h"
#include "src/formats/onnx/onnx_schemas.h"

namespace memplan::formats {

namespace {

using namespace onnx_rules;

constexpr const char* kMs = kMicrosoftDomain;

// Output 0: MatMul of inputs a and b, element type `type` (0: input a's).
void MatMulOf(Ctx& ctx, std::size_t a, std::size_t b, std::int32_t type) {
  const auto da = InputDims(ctx, a), db = InputDims(ctx, b);
  SetOutput(ctx, 0, type ? type : InputType(ctx, a),
            da && db ? MatMulDims(*da, *db) : std::nullopt);
}

// QLinearAdd/QLinearMul: A (0) and B (3) broadcast; C has A's type.
void QLinearBinaryRule(Ctx& ctx) {
  const auto a = InputShape(ctx, 0), b = InputShape(ctx, 3);
  SetOutput(ctx, 0, InputType(ctx, 0), std::nullopt);
  if (!a || !b || !HasOutput(ctx, 0)) return;
  onnx::bidirectionalBroadcastShapeInference(
      *a, *b, *ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape());
}

// QLinearConcat: Y_scale, Y_zero_point, then (X, scale, zero point) per input.
void QLinearConcatRule(Ctx& ctx) {
  const std::int64_t axis_attr = IntAttribute(ctx, "axis", 0);
  std::optional<Dims> out;
  for (std::size_t i = 2; i < ctx.getNumInputs(); i += 3) {
    const auto x = InputDims(ctx, i);
    if (!x) {
      out.reset();
      break;
    }
    const auto rank = static_cast<std::int64_t>(x->size());
    const std::int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
    if (axis < 0 || axis >= rank || (out && out->size() != x->size())) {
      out.reset();
      break;
    }
    if (!out) {
      out = *x;
      continue;
    }
    auto& d = (*out)[static_cast<std::size_t>(axis)];
    d = Add(d, (*x)[static_cast<std::size_t>(axis)]);
  }
  SetOutput(ctx, 0, InputType(ctx, 2), out);
}

// Pooling in NCHW, or NHWC when channels_last: the standard rule on the transposed shape.
void PoolRule(Ctx& ctx, bool global, const char* pool = "AveragePool") {
  const std::int32_t type = InputType(ctx, 0);
  auto x = InputDims(ctx, 0);
  const bool last = IntAttribute(ctx, "channels_last", 0) != 0 || pool[0] == 'M';
  if (!x || x->size() < 3) {
    SetOutput(ctx, 0, type, std::nullopt);
    return;
  }
  if (global) {
    Dims out(x->size(), Value(1));
    out[0] = (*x)[0];
    out[last ? x->size() - 1 : 1] = last ? x->back() : (*x)[1];
    SetOutput(ctx, 0, type, out);
    return;
  }
  if (!last) {
    InferAs(ctx, pool, 11, {0});
    SetOutput(ctx, 0, type, std::nullopt);
    return;
  }
  // NHWC: compute as NCHW through a private node, then move channels back to the end.
  onnx::TypeProto nchw = *ctx.getInputType(0);
  auto* shape = nchw.mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  *shape->add_dim() = (*x)[0];
  *shape->add_dim() = x->back();
  for (std::size_t i = 1; i + 1 < x->size(); ++i) *shape->add_dim() = (*x)[i];
  onnx::TypeProto result;
  struct One final : onnx::InferenceContext {
    Ctx& base;
    const onnx::TypeProto& in;
    onnx::TypeProto& out;
    One(Ctx& b, const onnx::TypeProto& i, onnx::TypeProto& o) : base(b), in(i), out(o) {}
    const onnx::AttributeProto* getAttribute(const std::string& n) const override {
      return base.getAttribute(n);
    }
    size_t getNumInputs() const override { return 1; }
    const onnx::TypeProto* getInputType(size_t) const override { return &in; }
    const onnx::TensorProto* getInputData(size_t) const override { return nullptr; }
    size_t getNumOutputs() const override { return 1; }
    onnx::TypeProto* getOutputType(size_t) override { return &out; }
    onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
      return nullptr;
    }
    const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
    const onnx::TensorShapeProto* getSymbolicInput(size_t) const override { return nullptr; }
  } one(ctx, nchw, result);
  onnx::OpSchemaRegistry::Schema(pool, 12, "")->GetTypeAndShapeInferenceFunction()(one);
  SetOutput(ctx, 0, type, std::nullopt);
  if (!result.tensor_type().has_shape()) return;
  const auto& y = result.tensor_type().shape();
  Dims out{y.dim(0)};
  for (int i = 2; i < y.dim_size(); ++i) out.push_back(y.dim(i));
  out.push_back(y.dim(1));
  SetOutput(ctx, 0, type, out);
}

// MatMulNBits: A [..., K] times a packed [N, K] weight: [..., N] in A's type.
void MatMulNBitsRule(Ctx& ctx) {
  auto a = InputDims(ctx, 0);
  const std::int64_t n = IntAttribute(ctx, "N", -1);
  if (a && !a->empty()) a->back() = n > 0 ? Value(n) : Unknown();
  SetOutput(ctx, 0, InputType(ctx, 0), a);
}

// QAttention: Attention's shapes; output in the scale's type (float).
void QAttentionRule(Ctx& ctx) {
  const auto input = InputDims(ctx, 0);
  const auto weights = InputDims(ctx, 1);
  const std::int32_t type = InputType(ctx, 3);
  if (input && input->size() == 3 && weights && weights->size() == 2)
    SetOutput(ctx, 0, type, Dims{(*input)[0], (*input)[1], Div((*weights)[1], 3)});
  else
    SetOutput(ctx, 0, type, std::nullopt);
  const auto past = InputDims(ctx, 8);
  if (HasOutput(ctx, 1) && past && past->size() == 5 && input && input->size() == 3) {
    Dims present = *past;
    present[3] = Add((*past)[3], (*input)[1]);
    SetOutput(ctx, 1, type, present);
  }
}

}  // namespace

// Zero points may be omitted (empty names) between required inputs, so only the first
// input is required in position for the QLinear* operators and QGemm.
void AddContribQuantSchemas(SchemaRegistry& r) {
  r.Add(RuleSchema("QLinearAdd", kMs, 1, 1, 7, 1, 0, QLinearBinaryRule));
  r.Add(RuleSchema("QLinearMul", kMs, 1, 1, 7, 1, 0, QLinearBinaryRule));
  {
    onnx::OpSchema concat;
    concat.SetName("QLinearConcat").SetDomain(kMs).SinceVersion(1).AllowUncheckedAttributes();
    concat.Input(0, "Y_scale", "", "T");
    concat.Input(1, "Y_zero_point", "", "T");
    concat.Input(2, "inputs", "", "T", onnx::OpSchema::Variadic, false);
    concat.Output(0, "Y", "", "T");
    concat.TypeConstraint("T", onnx::OpSchema::all_tensor_types_with_bfloat(), "any tensor");
    concat.TypeAndShapeInferenceFunction(QLinearConcatRule);
    r.Add(std::move(concat));
  }
  r.Add(
      RuleSchema("QLinearAveragePool", kMs, 1, 1, 4, 1, 0, [](Ctx& ctx) { PoolRule(ctx, false); }));
  r.Add(RuleSchema("QLinearGlobalAveragePool", kMs, 1, 1, 4, 1, 0,
                   [](Ctx& ctx) { PoolRule(ctx, true); }));
  for (const char* op : {"QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax"})
    r.Add(RuleSchema(op, kMs, 1, 1, 4, 1, 0, [](Ctx& ctx) { SameAs(ctx, 0, 0); }));
  // ONNX Runtime's NHWC layout transformer: MaxPool over [N,H,W,C].
  r.Add(RuleSchema("NhwcMaxPool", kMs, 1, 1, 0, 1, 0,
                   [](Ctx& ctx) { PoolRule(ctx, false, "MaxPool"); }));
  r.Add(RuleSchema("MatMulNBits", kMs, 1, 3, 3, 1, 0, MatMulNBitsRule));
  r.Add(RuleSchema("MatMulIntegerToFloat", kMs, 1, 4, 3, 1, 0,
                   [](Ctx& ctx) { MatMulOf(ctx, 0, 1, InputType(ctx, 2)); }));
  r.Add(RuleSchema("DynamicQuantizeMatMul", kMs, 1, 3, 2, 1, 0,
                   [](Ctx& ctx) { MatMulOf(ctx, 0, 1, 0); }));
  r.Add(RuleSchema("QOrderedMatMul", kMs, 1, 5, 3, 1, 0, [](Ctx& ctx) { MatMulOf(ctx, 0, 2, 0); }));
  r.Add(RuleSchema("QOrderedGelu", kMs, 1, 3, 0, 1, 0, [](Ctx& ctx) { SameAs(ctx, 0, 0); }));
  r.Add(RuleSchema("QOrderedLayerNormalization", kMs, 1, 5, 1, 1, 0,
                   [](Ctx& ctx) { SameAs(ctx, 0, 0); }));
  r.Add(RuleSchema("QGemm", kMs, 1, 1, 8, 1, 0, [](Ctx& ctx) {
    InferAs(ctx, "Gemm", 13, {0, 3, 6});
    // Quantized output when y_scale is given, float otherwise.
    const bool quantized = ctx.getNumInputs() > 7 && ctx.getInputType(7);
    SetOutput(ctx, 0, quantized ? InputType(ctx, 0) : onnx::TensorProto::FLOAT, std::nullopt);
  }));
  r.Add(RuleSchema("QAttention", kMs, 1, 5, 4, 1, 1, QAttentionRule));
  r.Add(RuleSchema("QuantizeLinear", kMs, 1, 2, 1, 1, 0, [](Ctx& ctx) {
    const std::int32_t zero_point = InputType(ctx, 2);
    SetOutput(ctx, 0, zero_point ? zero_point : onnx::TensorProto::UINT8, InputDims(ctx, 0));
  }));
  r.Add(RuleSchema("DequantizeLinear", kMs, 1, 2, 1, 1, 0,
                   [](Ctx& ctx) { SetOutput(ctx, 0, InputType(ctx, 1), InputDims(ctx, 0)); }));
}

}  // namespace memplan::formats
