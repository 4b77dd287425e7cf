// SchemaRegistry: ONNX 1.12's schemas with memplan's added (onnx_schemas.h).
#include "src/formats/onnx/onnx_schemas.h"

#include <onnx/defs/shape_inference.h>

namespace memplan::onnx_reader {

namespace {

std::string CanonicalDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

// An InferenceContext that shows another node's context through a list of its inputs:
// input i here is input inputs[i] there (for standard rules on contributed operators).
class RemappedContext final : public onnx::InferenceContext {
 public:
  RemappedContext(onnx::InferenceContext& base, const std::vector<std::size_t>& inputs)
      : base_(base), inputs_(inputs) {}
  const onnx::AttributeProto* getAttribute(const std::string& name) const override {
    return base_.getAttribute(name);
  }
  size_t getNumInputs() const override { return inputs_.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override {
    return Has(i) ? base_.getInputType(inputs_[i]) : nullptr;
  }
  const onnx::TensorProto* getInputData(size_t i) const override {
    return Has(i) ? base_.getInputData(inputs_[i]) : nullptr;
  }
  size_t getNumOutputs() const override { return base_.getNumOutputs(); }
  onnx::TypeProto* getOutputType(size_t i) override { return base_.getOutputType(i); }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
    return nullptr;
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t i) const override {
    return Has(i) ? base_.getInputSparseData(inputs_[i]) : nullptr;
  }
  const onnx::TensorShapeProto* getSymbolicInput(size_t i) const override {
    return Has(i) ? base_.getSymbolicInput(inputs_[i]) : nullptr;
  }

 private:
  bool Has(size_t i) const { return i < inputs_.size() && inputs_[i] < base_.getNumInputs(); }
  onnx::InferenceContext& base_;
  const std::vector<std::size_t>& inputs_;
};

}  // namespace

const onnx::OpSchema* SchemaRegistry::GetSchema(const std::string& op, int version,
                                                const std::string& domain) const {
  const std::string canonical = CanonicalDomain(domain);
  const onnx::OpSchema* theirs = onnx::OpSchemaRegistry::Schema(op, version, canonical);
  const auto it = schemas_.find({canonical, op});
  if (it == schemas_.end()) return theirs;
  auto at = it->second.upper_bound(version);
  if (at == it->second.begin()) return theirs;
  const onnx::OpSchema* ours = &std::prev(at)->second;
  if (theirs && theirs->SinceVersion() > ours->SinceVersion()) return theirs;
  return ours;
}

void SchemaRegistry::Add(onnx::OpSchema schema) {
  schema.Finalize();
  const int since = schema.SinceVersion();
  auto& versions = schemas_[{CanonicalDomain(schema.domain()), schema.Name()}];
  versions.erase(since);
  versions.emplace(since, std::move(schema));
}

bool SchemaRegistry::Defines(const std::string& op, const std::string& domain) const {
  return schemas_.contains({CanonicalDomain(domain), op});
}

const SchemaRegistry& Schemas() {
  static const SchemaRegistry registry = [] {
    SchemaRegistry r;
    AddContribSchemas(r);
    AddContribQuantSchemas(r);
    AddNewerOpsetSchemas(r);
    return r;
  }();
  return registry;
}

onnx::OpSchema RuleSchema(const char* name, const char* domain, int since, int required_inputs,
                          int optional_inputs, int required_outputs, int optional_outputs,
                          onnx::InferenceFunction infer) {
  onnx::OpSchema schema;
  schema.SetName(name).SetDomain(domain).SinceVersion(since).AllowUncheckedAttributes();
  int index = 0;
  for (int i = 0; i < required_inputs + optional_inputs; ++i, ++index)
    schema.Input(index, "input" + std::to_string(i), "", "T",
                 i < required_inputs ? onnx::OpSchema::Single : onnx::OpSchema::Optional);
  for (int i = 0; i < required_outputs + optional_outputs; ++i)
    schema.Output(i, "output" + std::to_string(i), "", "T",
                  i < required_outputs ? onnx::OpSchema::Single : onnx::OpSchema::Optional);
  schema.TypeConstraint("T", onnx::OpSchema::all_tensor_types_with_bfloat(), "any tensor");
  schema.TypeAndShapeInferenceFunction(std::move(infer));
  return schema;
}

void InferAs(onnx::InferenceContext& ctx, const char* op, int version,
             const std::vector<std::size_t>& inputs) {
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op, version, "");
  if (!schema || !schema->has_type_and_shape_inference_function()) return;
  RemappedContext remapped(ctx, inputs);
  schema->GetTypeAndShapeInferenceFunction()(remapped);
}

}  // namespace memplan::onnx_reader
