// The evaluator's entry points and shared helpers (onnx_eval.h): which operators fold is
// decided by the two families in onnx_eval_math.cc and onnx_eval_shape.cc.
#include <algorithm>
#include <limits>

#include "src/formats/onnx/onnx_eval.h"

namespace memplan::formats {

namespace onnx_eval {

std::int64_t IntAttr(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INT) return a.i();
  return fallback;
}

std::optional<Dims> IntsAttr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::INTS)
      return Dims(a.ints().begin(), a.ints().end());
  return std::nullopt;
}

const onnx::TensorProto* TensorAttr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::TENSOR) return &a.t();
  return nullptr;
}

std::optional<std::int64_t> CappedElements(const Dims& dims) {
  if (dims.size() > kMaxFoldRank) return std::nullopt;
  std::int64_t n = 1;
  for (const std::int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d == 0) n = 0;
    if (d > 0 && n > kMaxFoldElements / d) return std::nullopt;
    n *= d;
  }
  // A zero dimension makes the product 0; the others must still be sane.
  for (const std::int64_t d : dims)
    if (d > kMaxFoldElements) return std::nullopt;
  return n;
}

std::optional<std::int64_t> NormalizeAxis(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<Dims> IntList(const ConstTensor* t) {
  if (!t || t->IsReal() || t->dims.size() > 1) return std::nullopt;
  return t->ints;
}

std::optional<std::int64_t> IntScalar(const ConstTensor* t) {
  if (!t || t->Elements() != 1) return std::nullopt;
  if (!t->IsReal()) return t->ints[0];
  const double v = t->reals[0];
  if (!(v >= -9.0e18 && v <= 9.0e18)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::optional<Dims> Broadcast(const Dims& a, const Dims& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const std::int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<std::int64_t> BroadcastIndices(const Dims& from, const Dims& out) {
  const std::size_t rank = out.size();
  // Stride of each output axis in `from`; 0 where `from` is broadcast along it.
  Dims stride(rank, 0);
  std::int64_t s = 1;
  for (std::size_t k = 0; k < from.size(); ++k) {
    const std::size_t axis = from.size() - 1 - k;
    stride[rank - 1 - k] = from[axis] == 1 ? 0 : s;
    s *= from[axis];
  }
  std::int64_t count = 1;
  for (const std::int64_t d : out) count *= d;
  std::vector<std::int64_t> index;
  index.reserve(static_cast<std::size_t>(count));
  Dims position(rank, 0);
  std::int64_t flat = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    index.push_back(flat);
    for (std::size_t axis = rank; axis-- > 0;) {  // odometer: last axis fastest
      flat += stride[axis];
      if (++position[axis] < out[axis]) break;
      flat -= stride[axis] * out[axis];
      position[axis] = 0;
    }
  }
  return index;
}

ConstTensor Take(const ConstTensor& src, const Dims& dims, const std::vector<std::int64_t>& index) {
  ConstTensor out;
  out.type = src.type;
  out.dims = dims;
  if (src.IsReal()) {
    out.reals.reserve(index.size());
    for (const std::int64_t i : index) out.reals.push_back(src.reals[static_cast<std::size_t>(i)]);
  } else {
    out.ints.reserve(index.size());
    for (const std::int64_t i : index) out.ints.push_back(src.ints[static_cast<std::size_t>(i)]);
  }
  return out;
}

}  // namespace onnx_eval

std::optional<ConstTensor> EvaluateShapeOf(const onnx::NodeProto& node,
                                           const std::vector<std::int64_t>& dims) {
  ConstTensor out;
  out.type = onnx::TensorProto::INT64;
  if (node.op_type() == "Size") {
    std::int64_t n = 1;
    for (const std::int64_t d : dims) {
      if (d < 0 || (d > 0 && n > std::numeric_limits<std::int64_t>::max() / d)) return std::nullopt;
      n *= d;
    }
    out.ints = {n};
    return out;
  }
  if (node.op_type() != "Shape") return std::nullopt;
  // Shape-15's start and end select a range of axes, clamped like Slice's.
  const auto rank = static_cast<std::int64_t>(dims.size());
  auto clamp = [rank](std::int64_t at) { return std::clamp(at < 0 ? at + rank : at, {}, rank); };
  const std::int64_t start = clamp(onnx_eval::IntAttr(node, "start", 0));
  const std::int64_t end = clamp(onnx_eval::IntAttr(node, "end", rank));
  for (std::int64_t i = start; i < end; ++i) out.ints.push_back(dims[static_cast<std::size_t>(i)]);
  out.dims = {static_cast<std::int64_t>(out.ints.size())};
  return out;
}

std::optional<ConstTensor> EvaluateNode(const onnx::NodeProto& node, std::int64_t opset,
                                        const std::vector<const ConstTensor*>& inputs) {
  if (node.op_type() == "Shape" || node.op_type() == "Size") {
    if (inputs.empty() || !inputs[0]) return std::nullopt;
    return EvaluateShapeOf(node, inputs[0]->dims);
  }
  if (auto out = onnx_eval::EvaluateShapeOp(node, opset, inputs)) return out;
  return onnx_eval::EvaluateMath(node, opset, inputs);
}

}  // namespace memplan::formats
