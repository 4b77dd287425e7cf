#pragma once
// Dimensions that follow from symbolic values (onnx_symbolic.cc). Only onnx_infer.cc and
// onnx_symbolic.cc include this header.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace memplan::formats {

// What ONNX's data propagation derived: tensor name -> its values as dimensions (a number
// or a symbol each), for the shape arithmetic Shape, Gather, Slice, Concat, ... compute.
using PropagatedValues = std::unordered_map<std::string, onnx::TensorShapeProto>;

// Gives the outputs of main-graph Range (start 0, step 1), ConstantOfShape and Expand the
// dimensions their symbolic inputs name, where ONNX 1.12's rules, which read values only
// when they are constants, leave them unknown: Range(0, Gather(Shape(ids), 1), 1) is
// [sequence_len] when ids is [batch, sequence_len]. Fills only unknown dimensions (those
// without a number, or with a name ONNX made up); returns whether anything changed.
bool ApplySymbolicValueRules(onnx::ModelProto& model, const PropagatedValues& values);

// The value of a graph's integer scalar that the file or folding made constant (an
// initializer or a Constant node), if any.
std::optional<std::int64_t> KnownScalar(const onnx::GraphProto& graph, const std::string& name);

}  // namespace memplan::formats
