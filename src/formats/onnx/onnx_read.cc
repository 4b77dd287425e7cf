// ReadOnnx: the reader's steps in order (see onnx_internal.h).
#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/onnx.h"

#include "memplan/records_io.h"
#include "memplan/remedy.h"
#include "memplan/text.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan {

namespace {

// Domains the nodes of `graph` (and of its subgraphs) use, in order of first use.
void NodeDomains(const onnx::GraphProto& graph, std::vector<const onnx::NodeProto*>& first_users) {
  for (const auto& node : graph.node()) {
    const bool seen =
        std::any_of(first_users.begin(), first_users.end(),
                    [&](const onnx::NodeProto* n) { return n->domain() == node.domain(); });
    if (!seen) first_users.push_back(&node);
    for (const auto& attribute : node.attribute())
      if (attribute.has_g()) NodeDomains(attribute.g(), first_users);
  }
}

// A node of a domain the file does not import stops ONNX's whole inference ("No opset
// import for domain"). Such a node is a custom operator either way, which memplan reads
// as one with no rule (its outputs sized by --shape): the domain is imported at version 1,
// with a warning per domain.
std::vector<std::string> ImportMissingDomains(onnx::ModelProto& model, std::string_view source) {
  std::vector<const onnx::NodeProto*> first_users;
  NodeDomains(model.graph(), first_users);
  std::vector<std::string> warnings;
  for (const onnx::NodeProto* node : first_users) {
    const std::string& domain = node->domain();
    if (domain.empty() || domain == "ai.onnx") continue;
    const bool imported =
        std::any_of(model.opset_import().begin(), model.opset_import().end(),
                    [&](const onnx::OperatorSetIdProto& o) { return o.domain() == domain; });
    if (imported) continue;
    auto* import = model.add_opset_import();
    import->set_domain(domain);
    import->set_version(1);
    warnings.push_back(fmt::format(
        "warning: {}: operator '{}' is in domain '{}', which the file does not import; read as "
        "version 1 of that domain",
        source, formats::Printable(node->op_type()), formats::Printable(domain)));
  }
  return warnings;
}

}  // namespace

OnnxModel ReadOnnx(std::string_view bytes, std::string_view source, const LoadOptions& options,
                   OnnxUnsized unsized) {
  onnx::ModelProto model = formats::ParseModel(bytes, source);
  // ONNX Runtime runs a graph whose nodes the file lists out of order: it sorts them first.
  std::vector<std::string> file_notes;
  if (formats::SortNodesTopologically(*model.mutable_graph()) > 0)
    file_notes.push_back(
        "note: the file lists nodes out of topological order; memplan sorted them as ONNX "
        "Runtime does");
  formats::CheckStructure(model.graph(), source);
  for (std::string& w : ImportMissingDomains(model, source)) file_notes.push_back(std::move(w));
  // As written: folding may replace an If by the branch it takes.
  const auto file_nodes = static_cast<std::size_t>(model.graph().node_size());
  std::vector<std::string> warnings =
      formats::ApplyBindings(*model.mutable_graph(), options, source);
  std::size_t passes = 0;
  std::vector<std::string> inference_warnings;  // stored shapes the computed ones replaced
  OnnxModel result;
  try {
    passes = formats::CheckAndInferIsolated(model, source, inference_warnings);
    result = formats::BuildGraph(model, source, unsized);
  } catch (const InputError& e) {
    if (warnings.empty()) throw;
    // A mistyped dimension binding is the likely cause of what cannot be sized: say so.
    std::string message = e.what();
    for (const std::string& w : warnings) message += " (" + w + ")";
    throw InputErrorWithRemedies(message, RemediesOf(e));
  }
  result.inference_passes = passes;
  result.graph_nodes = result.file_nodes;  // BuildGraph counted the graph it was given
  result.file_nodes = file_nodes;
  // What the file says about itself, for inspect (printable: names come from the file).
  for (const auto& opset : model.opset_import())
    result.opset_imports.emplace_back(
        opset.domain().empty() ? "ai.onnx" : PrintableText(opset.domain()), opset.version());
  for (const auto& node : model.graph().node())
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      result.op_domains[PrintableText(node.op_type())] = PrintableText(node.domain());
  result.ir_version = model.ir_version();
  result.producer = PrintableText(model.producer_name() + (model.producer_version().empty()
                                                               ? std::string()
                                                               : " " + model.producer_version()));
  // --dim warnings, then replaced stored shapes, then what building the graph noted.
  inference_warnings.insert(inference_warnings.end(), result.warnings.begin(),
                            result.warnings.end());
  result.warnings = std::move(file_notes);
  result.warnings.insert(result.warnings.end(), warnings.begin(), warnings.end());
  result.warnings.insert(result.warnings.end(), inference_warnings.begin(),
                         inference_warnings.end());
  return result;
}

OnnxModel LoadOnnx(const std::filesystem::path& path, const LoadOptions& options,
                   OnnxUnsized unsized) {
  return ReadOnnx(ReadFileBytes(path), path.string(), options, unsized);
}

}  // namespace memplan
