// What ONNX 1.12's shape-inference functions assume without checking. They run on every
// node, and some divide by attribute values or index by output counts that a corrupt or
// hostile file can set to anything (a Conv with stride 0 stops the process with SIGFPE).
// So each node must satisfy its operator schema (input and output counts, attribute
// types, required attributes: ONNX's own node check, which ONNX Runtime also applies)
// and the positivity the operator specifications demand, before inference sees it.
#include <fmt/format.h>
#include <onnx/defs/schema.h>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"
#include "src/formats/onnx/onnx_schemas.h"

namespace memplan::formats {

namespace {

// Attributes every ONNX operator defines as positive (sizes, steps, counts); inference
// divides by several of them.
bool MustBePositive(const std::string& attribute) {
  return attribute == "strides" || attribute == "dilations" || attribute == "kernel_shape" ||
         attribute == "blocksize" || attribute == "group";
}

void CheckPositive(const onnx::NodeProto& node, int index, const std::string& where,
                   std::string_view source) {
  for (const auto& attribute : node.attribute()) {
    if (!MustBePositive(attribute.name())) continue;
    bool bad = attribute.type() == onnx::AttributeProto::INT && attribute.i() < 1;
    for (const std::int64_t v : attribute.ints()) bad = bad || v < 1;
    if (bad)
      throw InputError(fmt::format("{}: {}{}: attribute '{}' must be positive", source, where,
                                   DescribeNode(node, index), attribute.name()));
  }
}

}  // namespace

void CheckNodesAgainstSchemas(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                              const Opsets& opsets, const std::string& where,
                              std::string_view source) {
  const onnx::ISchemaRegistry* registry = &Schemas();
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes[i];
    // memplan's com.microsoft rules run ONNX's Conv and pooling rules too.
    if (IsDefaultDomain(node) || node.domain() == kMicrosoftDomain)
      CheckPositive(node, i, where, source);
    const auto opset = opsets.find(node.domain());
    if (opset == opsets.end()) continue;  // inference skips it too
    const onnx::OpSchema* schema =
        registry->GetSchema(node.op_type(), opset->second, node.domain());
    if (!schema) continue;  // no schema: inference cannot run on it
    try {
      schema->Verify(node);
    } catch (const std::exception& e) {
      // A model newer than the schema found may use what a later version added.
      const std::string newer =
          schema->SinceVersion() < opset->second
              ? fmt::format(
                    " (the model imports opset {} of domain '{}'; the newest {} memplan "
                    "knows there is version {})",
                    opset->second, Printable(node.domain().empty() ? "ai.onnx" : node.domain()),
                    Printable(node.op_type()), schema->SinceVersion())
              : std::string();
      throw InputError(fmt::format("{}: {}{} does not match its ONNX operator schema: {}{}", source,
                                   where, DescribeNode(node, i), Printable(e.what()), newer));
    }
  }
  // Inference runs on the subgraphs of If, Loop and Scan too.
  for (int i = 0; i < nodes.size(); ++i)
    for (const auto& attribute : nodes[i].attribute())
      if (IsControlFlowSubgraph(nodes[i], attribute))
        CheckNodesAgainstSchemas(attribute.g().node(), opsets,
                                 where + DescribeSubgraph(nodes[i], i, attribute.name()) + ": ",
                                 source);
}

void CheckNodesForInference(const onnx::ModelProto& model, std::string_view source) {
  CheckNodesAgainstSchemas(model.graph().node(), OpsetsOf(model.opset_import()), "", source);
  CheckFunctions(model, source);
}

}  // namespace memplan::formats
