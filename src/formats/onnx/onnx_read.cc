// ReadOnnx: the reader's steps in order (see onnx_internal.h).
#include "memplan/error.h"
#include "memplan/onnx.h"

#include "memplan/records_io.h"
#include "memplan/text.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan {

OnnxModel ReadOnnx(std::string_view bytes, std::string_view source, const LoadOptions& options,
                   OnnxUnsized unsized) {
  onnx::ModelProto model = onnx_reader::ParseModel(bytes, source);
  // ONNX Runtime runs a graph whose nodes the file lists out of order: it sorts them first.
  std::vector<std::string> file_notes;
  if (onnx_reader::SortNodesTopologically(*model.mutable_graph()) > 0)
    file_notes.push_back(
        "note: the file lists nodes out of topological order; memplan sorted them as ONNX "
        "Runtime does");
  onnx_reader::CheckStructure(model.graph(), source);
  // As written: folding may replace an If by the branch it takes.
  const auto file_nodes = static_cast<std::size_t>(model.graph().node_size());
  std::vector<std::string> warnings =
      onnx_reader::ApplyBindings(*model.mutable_graph(), options, source);
  std::size_t passes = 0;
  std::vector<std::string> inference_warnings;  // stored shapes the computed ones replaced
  OnnxModel result;
  try {
    passes = onnx_reader::CheckAndInferIsolated(model, source, inference_warnings);
    result = onnx_reader::BuildGraph(model, source, unsized);
  } catch (const InputError& e) {
    if (warnings.empty()) throw;
    // A mistyped --dim is the likely cause of what cannot be sized: say so with it.
    std::string message = e.what();
    for (const std::string& w : warnings) message += " (" + w + ")";
    throw InputError(message);
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
