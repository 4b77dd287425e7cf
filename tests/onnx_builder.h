#pragma once
// Small ONNX models built in code for the reader's tests: each test states its graph
// in a few lines instead of shipping binary files.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace memplan::testing {

// ONNX element type numbers used by the tests (TensorProto.DataType).
inline constexpr int kOnnxFloat = 1;
inline constexpr int kOnnxUint8 = 2;
inline constexpr int kOnnxInt64 = 7;
inline constexpr int kOnnxString = 8;
inline constexpr int kOnnxBool = 9;

class OnnxBuilder {
 public:
  explicit OnnxBuilder(std::int64_t opset = 13);

  // A graph input; dims are numbers ("3") or symbolic names ("N").
  OnnxBuilder& Input(const std::string& name, int elem_type, const std::vector<std::string>& dims);
  // A graph output, declared without type (inference fills it).
  OnnxBuilder& Output(const std::string& name);
  // An int64 initializer holding `values` (1-D), e.g. a shape for ConstantOfShape.
  OnnxBuilder& Int64Initializer(const std::string& name, const std::vector<std::int64_t>& values);
  // An int64 initializer of any shape (dims {} for a scalar) holding `values`.
  OnnxBuilder& Int64Tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                           const std::vector<std::int64_t>& values);
  // A 1-D float initializer holding `values` (e.g. Resize scales).
  OnnxBuilder& FloatValues(const std::string& name, const std::vector<float>& values);
  // A graph output declared with a type and shape (dims as in Input).
  OnnxBuilder& TypedOutput(const std::string& name, int elem_type,
                           const std::vector<std::string>& dims);
  // A value_info entry declaring a tensor's type and shape (dims as in Input).
  OnnxBuilder& ValueInfo(const std::string& name, int elem_type,
                         const std::vector<std::string>& dims);
  // Imports operator-set `domain` at `version`.
  OnnxBuilder& Opset(const std::string& domain, std::int64_t version);
  // A float initializer of the given shape, filled with zeros.
  OnnxBuilder& FloatInitializer(const std::string& name, const std::vector<std::int64_t>& dims);
  // A node; returns it for attributes. Empty input names are omitted optional inputs.
  onnx::NodeProto& Node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "");

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  std::string Bytes() const { return model_.SerializeAsString(); }

 private:
  onnx::ModelProto model_;
};

// Sets attribute `name` to an integer.
void SetIntAttribute(onnx::NodeProto& node, const std::string& name, std::int64_t value);
// Sets attribute `name` to a list of integers.
void SetIntsAttribute(onnx::NodeProto& node, const std::string& name,
                      const std::vector<std::int64_t>& values);
// Sets attribute `name` to a float.
void SetFloatAttribute(onnx::NodeProto& node, const std::string& name, float value);
// Sets attribute `name` to a string.
void SetStringAttribute(onnx::NodeProto& node, const std::string& name, const std::string& value);
// Gives `node` a graph attribute, as If/Loop/Scan carry.
void SetGraphAttribute(onnx::NodeProto& node, const std::string& name);
// Sets a Constant node's "value" to a float tensor of the given shape.
void SetConstantValue(onnx::NodeProto& node, const std::vector<std::int64_t>& dims);

}  // namespace memplan::testing
