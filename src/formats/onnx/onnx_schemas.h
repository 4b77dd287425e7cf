#pragma once
// The operator schemas the reader checks nodes against and infers shapes with: ONNX
// 1.12's own registry, plus memplan's rules for the com.microsoft operators ONNX
// Runtime's optimizers and quantizers write (onnx_contrib_schemas.cc,
// onnx_contrib_quant_schemas.cc) and for default-domain operators and attributes newer
// than ONNX 1.12 (onnx_newer_schemas.cc). docs/import.md lists them.
#include <onnx/defs/schema.h>

#include <functional>
#include <map>
#include <string>
#include <utility>

namespace memplan::formats {

// While a child process runs ONNX's inference (onnx_isolate.cc), each schema lookup is
// written to `buffer` ("'Shape' (ai.onnx opset 15)"), memory the parent reads after a crash
// to say which operator ONNX was looking at; null (the default) turns this off.
void NoteLookupsIn(char* buffer, std::size_t size);

class SchemaRegistry final : public onnx::ISchemaRegistry {
 public:
  // Schemas of `domain` at or below `version`, preferring memplan's where it defines one
  // at least as new as ONNX's; "ai.onnx" is the default domain, as in ONNX itself.
  const onnx::OpSchema* GetSchema(const std::string& op, int version,
                                  const std::string& domain) const override;
  // Finalizes and keeps `schema` (one per name, domain and since-version); a copy of a
  // schema ONNX already finalized is kept as it is (`finalized`).
  void Add(onnx::OpSchema schema, bool finalized = false);
  // Whether memplan (not ONNX 1.12) defines `op` in `domain` at some version.
  bool Defines(const std::string& op, const std::string& domain) const;

 private:
  std::map<std::pair<std::string, std::string>, std::map<int, onnx::OpSchema>> schemas_;
};

// The registry the reader uses (built once, then read-only).
const SchemaRegistry& Schemas();

// Domain of ONNX Runtime's contributed operators.
inline constexpr const char* kMicrosoftDomain = "com.microsoft";

void AddContribSchemas(SchemaRegistry& registry);
void AddContribQuantSchemas(SchemaRegistry& registry);
void AddNewerOpsetSchemas(SchemaRegistry& registry);

// Shared by the schema files: a schema with `required` then `optional` inputs and outputs
// of any tensor type, attributes unchecked (only those the rule reads matter), and the
// rule `infer`.
onnx::OpSchema RuleSchema(const char* name, const char* domain, int since, int required_inputs,
                          int optional_inputs, int required_outputs, int optional_outputs,
                          onnx::InferenceFunction infer);

// The standard operator `op`'s inference (at opset `version`) run on this node's inputs
// `inputs` (in that order) and outputs, e.g. Conv's rule for FusedConv.
void InferAs(onnx::InferenceContext& ctx, const char* op, int version,
             const std::vector<std::size_t>& inputs);

}  // namespace memplan::formats
