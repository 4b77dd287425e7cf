#pragma once
// Constant folding for shape inference (docs/import.md, "Constant folding"): small tensors
// whose values are known before the model runs (initializers, Constant nodes, Shape of a
// statically shaped tensor, and what default-domain operators compute from those) are
// evaluated here, so ONNX's inference sees them as data and gives static shapes to
// Resize, Reshape, Expand, Tile, Slice, ConstantOfShape, ... that read them.
// Only src/formats/onnx/ and the reader's tests include this header.

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memplan::formats {

// Largest tensor the evaluator reads or writes; anything larger does not fold (shape
// arithmetic works on a handful of numbers; this only keeps hostile files harmless).
inline constexpr std::int64_t kMaxFoldElements = std::int64_t{1} << 20;
// Highest rank the evaluator works on (its loops run over elements times axes).
inline constexpr std::size_t kMaxFoldRank = 32;

// A tensor whose values are known: integer and bool types keep their values in `ints`
// (bool as 0/1, unsigned 64-bit as its bit pattern), FLOAT and DOUBLE in `reals`.
struct ConstTensor {
  std::int32_t type = 0;  // TensorProto.DataType
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;

  bool IsReal() const;
  std::int64_t Elements() const;  // product of dims (1 for a scalar)
};

// True for the element types the evaluator computes with (integers, bool, FLOAT, DOUBLE).
bool IsFoldableType(std::int32_t type);
// An integer type's value wrapped to its width, as a cast in C++ would store it.
std::int64_t WrapInteger(std::int32_t type, std::int64_t value);

// The values of a TensorProto, or nullopt when they are not in the file (external data),
// of a type the evaluator does not compute with, inconsistent with the dims, more than
// kMaxFoldElements or of a rank above kMaxFoldRank.
std::optional<ConstTensor> FromTensorProto(const onnx::TensorProto& tensor);
// The TensorProto holding `value`, named `name`.
onnx::TensorProto ToTensorProto(const ConstTensor& value, const std::string& name);

// The value of a default-domain `node`'s single output at operator-set `opset`, from its
// inputs' values (nullptr for an omitted optional input), or nullopt when memplan does
// not evaluate this operator, the inputs are outside what the operator accepts (an index
// out of range, a division by zero, an integer overflow), or the result would exceed
// kMaxFoldElements.
std::optional<ConstTensor> EvaluateNode(const onnx::NodeProto& node, std::int64_t opset,
                                        const std::vector<const ConstTensor*>& inputs);

// Shape and Size of a tensor whose dims are known though its values are not.
std::optional<ConstTensor> EvaluateShapeOf(const onnx::NodeProto& node,
                                           const std::vector<std::int64_t>& dims);

// One folding pass over the main graph and the subgraphs of If, Loop and Scan (which also
// read the values of the graphs around them), in node order: each default-domain node with one
// output that feeds a shape (an input such as Reshape's shape or Resize's sizes, directly
// or through other nodes) whose inputs are all known values (or a Shape/Size of a tensor inference
// left statically shaped) and which EvaluateNode can compute is replaced by a Constant node of the
// same name holding its result. Returns the number of nodes replaced.
std::size_t FoldConstants(onnx::ModelProto& model);

}  // namespace memplan::formats
