// Helpers for memplan's shape rules (onnx_schema_rules.h).
#include "src/formats/onnx/onnx_schema_rules.h"

#include <algorithm>
#include <cstring>

namespace memplan::formats::onnx_rules {

const onnx::TensorShapeProto* InputShape(Ctx& ctx, std::size_t i) {
  if (i >= ctx.getNumInputs()) return nullptr;
  const onnx::TypeProto* type = ctx.getInputType(i);
  if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return nullptr;
  return &type->tensor_type().shape();
}

std::optional<Dims> InputDims(Ctx& ctx, std::size_t i) {
  const onnx::TensorShapeProto* shape = InputShape(ctx, i);
  if (!shape) return std::nullopt;
  return Dims(shape->dim().begin(), shape->dim().end());
}

std::int32_t InputType(Ctx& ctx, std::size_t i) {
  if (i >= ctx.getNumInputs()) return 0;
  const onnx::TypeProto* type = ctx.getInputType(i);
  if (!type || !type->has_tensor_type()) return 0;
  return type->tensor_type().elem_type();
}

bool HasOutput(Ctx& ctx, std::size_t i) {
  return i < ctx.getNumOutputs();
}

Dim Value(std::int64_t v) {
  Dim d;
  if (v >= 0) d.set_dim_value(v);  // a negative size from a hostile file stays unknown
  return d;
}

Dim Unknown() {
  return Dim();
}

Dim Add(const Dim& a, const Dim& b) {
  std::int64_t sum = 0;
  if (!a.has_dim_value() || !b.has_dim_value() ||
      __builtin_add_overflow(a.dim_value(), b.dim_value(), &sum))
    return Unknown();
  return Value(sum);
}

Dim Mul(const Dim& a, const Dim& b) {
  std::int64_t product = 0;
  if (!a.has_dim_value() || !b.has_dim_value() ||
      __builtin_mul_overflow(a.dim_value(), b.dim_value(), &product))
    return Unknown();
  return Value(product);
}

Dim Div(const Dim& a, std::int64_t b) {
  if (!a.has_dim_value() || b <= 0 || a.dim_value() % b != 0) return Unknown();
  return Value(a.dim_value() / b);
}

void SetOutput(Ctx& ctx, std::size_t out, std::int32_t type, const std::optional<Dims>& dims) {
  if (!HasOutput(ctx, out)) return;
  onnx::TypeProto_Tensor* tensor = ctx.getOutputType(out)->mutable_tensor_type();
  if (type != 0) tensor->set_elem_type(type);
  if (!dims) return;
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  shape->clear_dim();
  for (const Dim& d : *dims) *shape->add_dim() = d;
}

void SameAs(Ctx& ctx, std::size_t in, std::size_t out) {
  SetOutput(ctx, out, InputType(ctx, in), InputDims(ctx, in));
}

std::int64_t IntAttribute(Ctx& ctx, const char* name, std::int64_t fallback) {
  const onnx::AttributeProto* a = ctx.getAttribute(name);
  return a && a->type() == onnx::AttributeProto::INT ? a->i() : fallback;
}

std::optional<std::int64_t> ScalarInput(Ctx& ctx, std::size_t i) {
  if (i >= ctx.getNumInputs()) return std::nullopt;
  const onnx::TensorProto* t = ctx.getInputData(i);
  if (!t) return std::nullopt;
  const std::string& raw = t->raw_data();
  if (t->data_type() == onnx::TensorProto::INT32 && raw.size() == 4) {
    std::int32_t v;
    std::memcpy(&v, raw.data(), 4);
    return v;
  }
  if (t->data_type() == onnx::TensorProto::INT64 && raw.size() == 8) {
    std::int64_t v;
    std::memcpy(&v, raw.data(), 8);
    return v;
  }
  if (!raw.empty()) return std::nullopt;
  if (t->int64_data_size() == 1) return t->int64_data(0);
  if (t->int32_data_size() == 1) return t->int32_data(0);
  return std::nullopt;
}

std::optional<Dims> MatMulDims(Dims a, Dims b, bool trans_a, bool trans_b) {
  if (a.empty() || b.empty()) return std::nullopt;
  if (trans_a && a.size() >= 2) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (trans_b && b.size() >= 2) std::swap(b[b.size() - 1], b[b.size() - 2]);
  const bool a_vector = a.size() == 1, b_vector = b.size() == 1;
  if (a_vector) a.insert(a.begin(), Value(1));
  if (b_vector) b.push_back(Value(1));
  // Batch dims broadcast; a number wins over 1 and over a symbol.
  Dims batch_a(a.begin(), a.end() - 2), batch_b(b.begin(), b.end() - 2);
  while (batch_a.size() < batch_b.size()) batch_a.insert(batch_a.begin(), Value(1));
  while (batch_b.size() < batch_a.size()) batch_b.insert(batch_b.begin(), Value(1));
  Dims out;
  for (std::size_t i = 0; i < batch_a.size(); ++i) {
    const Dim& da = batch_a[i];
    const Dim& db = batch_b[i];
    const bool a_one = da.has_dim_value() && da.dim_value() == 1;
    const bool b_one = db.has_dim_value() && db.dim_value() == 1;
    out.push_back(a_one || (!da.has_dim_value() && !b_one) ? db : da);
  }
  if (!a_vector) out.push_back(a[a.size() - 2]);
  if (!b_vector) out.push_back(b[b.size() - 1]);
  return out;
}

}  // namespace memplan::formats::onnx_rules
