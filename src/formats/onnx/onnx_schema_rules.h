#pragma once
// Small pieces the shape rules of memplan's schemas are written with (onnx_schemas.h).
#include <onnx/defs/shape_inference.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace memplan::formats::onnx_rules {

using Ctx = onnx::InferenceContext;
using Dim = onnx::TensorShapeProto_Dimension;
using Dims = std::vector<Dim>;

// Input i's shape when the node has that input and inference knows its rank.
const onnx::TensorShapeProto* InputShape(Ctx& ctx, std::size_t i);
// Input i's dims (empty optional when unknown).
std::optional<Dims> InputDims(Ctx& ctx, std::size_t i);
// Input i's element type, 0 when unknown or absent.
std::int32_t InputType(Ctx& ctx, std::size_t i);
// Whether the node writes output i.
bool HasOutput(Ctx& ctx, std::size_t i);

// A number (unknown when negative).
Dim Value(std::int64_t v);
Dim Unknown();
// a + b, a * b and a / b when both are numbers (a / b only when exact, no overflow);
// unknown otherwise.
Dim Add(const Dim& a, const Dim& b);
Dim Mul(const Dim& a, const Dim& b);
Dim Div(const Dim& a, std::int64_t b);

// Sets output `out`'s element type (when non-zero) and, when given, its shape.
void SetOutput(Ctx& ctx, std::size_t out, std::int32_t type, const std::optional<Dims>& dims);
// Output `out` takes input `in`'s element type and shape (what is known of them).
void SameAs(Ctx& ctx, std::size_t in, std::size_t out);
// The node's integer attribute, or `fallback`.
std::int64_t IntAttribute(Ctx& ctx, const char* name, std::int64_t fallback);
// Input i's value when it is a constant integer scalar (or one-element tensor).
std::optional<std::int64_t> ScalarInput(Ctx& ctx, std::size_t i);

// MatMul's numpy rule on two shapes (after optional transposes of their last two axes);
// nullopt when a rank is unknown or 0.
std::optional<Dims> MatMulDims(Dims a, Dims b, bool trans_a = false, bool trans_b = false);

}  // namespace memplan::formats::onnx_rules
