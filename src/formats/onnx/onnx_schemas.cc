// SchemaRegistry: ONNX 1.12's schemas with memplan's added (onnx_schemas.h).
#include "src/formats/onnx/onnx_schemas.h"

#include <onnx/defs/shape_inference.h>

#include <cstdio>

namespace memplan::formats {

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

// Whether every input the node has carries a type (an omitted optional input has none).
template <typename Context>
bool InputsTyped(const Context& ctx) {
  for (std::size_t i = 0; i < ctx.getNumInputs(); ++i)
    if (!ctx.getInputType(i)) return false;
  return true;
}

// ONNX 1.12 schemas whose rules read their input's type without checking it is there:
// each crashes the process when its input is the untyped output of an operator no rule
// covers (found by trying every 1.12 schema on such an input). memplan registers copies whose
// rules first check the inputs are typed; without types there is nothing to infer.
void AddGuardedSchemas(SchemaRegistry& r) {
  const std::pair<const char*, const char*> fragile[] = {{"Shape", ""},
                                                         {"DictVectorizer", "ai.onnx.ml"},
                                                         {"CategoryMapper", "ai.onnx.ml"},
                                                         {"LabelEncoder", "ai.onnx.ml"}};
  for (const auto& [op, domain] : fragile)
    for (const onnx::OpSchema& theirs : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
      if (theirs.Name() != op || theirs.domain() != domain) continue;
      onnx::OpSchema guarded = theirs;
      if (theirs.has_type_and_shape_inference_function())
        guarded.TypeAndShapeInferenceFunction(
            [infer = theirs.GetTypeAndShapeInferenceFunction()](onnx::InferenceContext& ctx) {
              if (InputsTyped(ctx)) infer(ctx);
            });
      if (theirs.has_data_propagation_function())
        guarded.PartialDataPropagationFunction(
            [propagate = theirs.GetDataPropagationFunction()](onnx::DataPropagationContext& ctx) {
              if (InputsTyped(ctx)) propagate(ctx);
            });
      r.Add(std::move(guarded), /*finalized=*/true);
    }
}

char* g_note = nullptr;  // NoteLookupsIn's buffer, set in an inference child only
std::size_t g_note_size = 0;

}  // namespace

void NoteLookupsIn(char* buffer, std::size_t size) {
  g_note = buffer;
  g_note_size = size;
}

const onnx::OpSchema* SchemaRegistry::GetSchema(const std::string& op, int version,
                                                const std::string& domain) const {
  if (g_note)
    std::snprintf(g_note, g_note_size, "'%s' (%s opset %d)", op.c_str(),
                  domain.empty() ? "ai.onnx" : domain.c_str(), version);
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

void SchemaRegistry::Add(onnx::OpSchema schema, bool finalized) {
  if (!finalized) schema.Finalize();
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
    AddGuardedSchemas(r);
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
  // ONNX 1.12's rules reached this way take the main input's type for granted (Resize-13's
  // crashes on a Resize-18 reading an untyped output, such as a custom domain's
  // DecodeImage): without it there is nothing to infer.
  if (!inputs.empty() && inputs[0] < ctx.getNumInputs() && !ctx.getInputType(inputs[0])) return;
  RemappedContext remapped(ctx, inputs);
  schema->GetTypeAndShapeInferenceFunction()(remapped);
}

}  // namespace memplan::formats
