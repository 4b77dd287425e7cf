#include "tests/onnx_builder.h"

#include <cctype>

namespace memplan::testing {

OnnxBuilder::OnnxBuilder(std::int64_t opset) {
  model_.set_ir_version(7);
  model_.set_producer_name("memplan-tests");
  auto* import = model_.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  model_.mutable_graph()->set_name("test");
}

namespace {

void SetType(onnx::ValueInfoProto* info, int elem_type, const std::vector<std::string>& dims) {
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  auto* shape = tensor->mutable_shape();
  for (const std::string& d : dims) {
    auto* dim = shape->add_dim();
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0])))
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
}

}  // namespace

OnnxBuilder& OnnxBuilder::Input(const std::string& name, int elem_type,
                                const std::vector<std::string>& dims) {
  auto* input = graph().add_input();
  input->set_name(name);
  SetType(input, elem_type, dims);
  return *this;
}

OnnxBuilder& OnnxBuilder::TypedOutput(const std::string& name, int elem_type,
                                      const std::vector<std::string>& dims) {
  auto* output = graph().add_output();
  output->set_name(name);
  SetType(output, elem_type, dims);
  return *this;
}

OnnxBuilder& OnnxBuilder::ValueInfo(const std::string& name, int elem_type,
                                    const std::vector<std::string>& dims) {
  auto* info = graph().add_value_info();
  info->set_name(name);
  SetType(info, elem_type, dims);
  return *this;
}

OnnxBuilder& OnnxBuilder::Opset(const std::string& domain, std::int64_t version) {
  auto* import = model_.add_opset_import();
  import->set_domain(domain);
  import->set_version(version);
  return *this;
}

OnnxBuilder& OnnxBuilder::Int64Tensor(const std::string& name,
                                      const std::vector<std::int64_t>& dims,
                                      const std::vector<std::int64_t>& values) {
  auto* init = graph().add_initializer();
  init->set_name(name);
  init->set_data_type(kOnnxInt64);
  for (const std::int64_t d : dims) init->add_dims(d);
  for (const std::int64_t v : values) init->add_int64_data(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::FloatValues(const std::string& name, const std::vector<float>& values) {
  auto* init = graph().add_initializer();
  init->set_name(name);
  init->set_data_type(kOnnxFloat);
  init->add_dims(static_cast<std::int64_t>(values.size()));
  for (const float v : values) init->add_float_data(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::Output(const std::string& name) {
  graph().add_output()->set_name(name);
  return *this;
}

OnnxBuilder& OnnxBuilder::Int64Initializer(const std::string& name,
                                           const std::vector<std::int64_t>& values) {
  auto* init = graph().add_initializer();
  init->set_name(name);
  init->set_data_type(kOnnxInt64);
  init->add_dims(static_cast<std::int64_t>(values.size()));
  for (const std::int64_t v : values) init->add_int64_data(v);
  return *this;
}

OnnxBuilder& OnnxBuilder::FloatInitializer(const std::string& name,
                                           const std::vector<std::int64_t>& dims) {
  auto* init = graph().add_initializer();
  init->set_name(name);
  init->set_data_type(kOnnxFloat);
  std::int64_t count = 1;
  for (const std::int64_t d : dims) {
    init->add_dims(d);
    count *= d;
  }
  for (std::int64_t i = 0; i < count; ++i) init->add_float_data(0.0f);
  return *this;
}

onnx::NodeProto& OnnxBuilder::Node(const std::string& op_type,
                                   const std::vector<std::string>& inputs,
                                   const std::vector<std::string>& outputs,
                                   const std::string& name) {
  auto* node = graph().add_node();
  node->set_op_type(op_type);
  node->set_name(name);
  for (const std::string& i : inputs) node->add_input(i);
  for (const std::string& o : outputs) node->add_output(o);
  return *node;
}

void SetIntAttribute(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INT);
  attribute->set_i(value);
}

void SetIntsAttribute(onnx::NodeProto& node, const std::string& name,
                      const std::vector<std::int64_t>& values) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INTS);
  for (const std::int64_t v : values) attribute->add_ints(v);
}

void SetFloatAttribute(onnx::NodeProto& node, const std::string& name, float value) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::FLOAT);
  attribute->set_f(value);
}

void SetStringAttribute(onnx::NodeProto& node, const std::string& name, const std::string& value) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::STRING);
  attribute->set_s(value);
}

void SetGraphAttribute(onnx::NodeProto& node, const std::string& name) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::GRAPH);
  attribute->mutable_g()->set_name(name);
}

void SetConstantValue(onnx::NodeProto& node, const std::vector<std::int64_t>& dims) {
  auto* attribute = node.add_attribute();
  attribute->set_name("value");
  attribute->set_type(onnx::AttributeProto::TENSOR);
  auto* tensor = attribute->mutable_t();
  tensor->set_data_type(kOnnxFloat);
  std::int64_t count = 1;
  for (const std::int64_t d : dims) {
    tensor->add_dims(d);
    count *= d;
  }
  for (std::int64_t i = 0; i < count; ++i) tensor->add_float_data(1.0f);
}

}  // namespace memplan::testing
