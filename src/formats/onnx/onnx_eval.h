#pragma once
// What the evaluator's operator files share (onnx_eval_math.cc, onnx_eval_shape.cc):
// attribute access, element counts under the folding cap, broadcasting and gathering.
#include <optional>
#include <string>
#include <vector>

#include "src/formats/onnx/onnx_fold.h"

namespace memplan::formats::onnx_eval {

using Dims = std::vector<std::int64_t>;
using Inputs = std::vector<const ConstTensor*>;

// The node's integer attribute `name`, or `fallback` when absent.
std::int64_t IntAttr(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
// The node's integer-list attribute `name`, or nullopt when absent.
std::optional<Dims> IntsAttr(const onnx::NodeProto& node, const std::string& name);
// The node's tensor attribute `name`, or nullptr when absent.
const onnx::TensorProto* TensorAttr(const onnx::NodeProto& node, const std::string& name);

// Product of `dims`, or nullopt when a dimension is negative, the product exceeds
// kMaxFoldElements or the rank exceeds kMaxFoldRank.
std::optional<std::int64_t> CappedElements(const Dims& dims);

// `axis` in [-rank, rank) made non-negative, or nullopt when out of range.
std::optional<std::int64_t> NormalizeAxis(std::int64_t axis, std::int64_t rank);

// The values of a 1-D (or scalar) integer tensor, e.g. a shape or a list of axes.
std::optional<Dims> IntList(const ConstTensor* t);
// The single value of a one-element tensor, as an integer.
std::optional<std::int64_t> IntScalar(const ConstTensor* t);

// The multidirectional (numpy) broadcast of two shapes, or nullopt when they do not
// broadcast.
std::optional<Dims> Broadcast(const Dims& a, const Dims& b);
// For each element of `out` (row-major), the flat index of the element of a tensor of
// shape `from` that broadcasting maps to it.
std::vector<std::int64_t> BroadcastIndices(const Dims& from, const Dims& out);

// A tensor of `src`'s type and shape `dims` whose i-th element is src's element `index[i]`.
ConstTensor Take(const ConstTensor& src, const Dims& dims, const std::vector<std::int64_t>& index);

// Operators by family; each returns nullopt for operators it does not know.
std::optional<ConstTensor> EvaluateMath(const onnx::NodeProto& node, std::int64_t opset,
                                        const Inputs& in);
std::optional<ConstTensor> EvaluateShapeOp(const onnx::NodeProto& node, std::int64_t opset,
                                           const Inputs& in);

}  // namespace memplan::formats::onnx_eval
