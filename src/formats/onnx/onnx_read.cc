// ReadOnnx: the reader's steps in order (see onnx_internal.h).
#include "memplan/onnx.h"

#include "memplan/records_io.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan {

OnnxModel ReadOnnx(std::string_view bytes, std::string_view source, const LoadOptions& options) {
  onnx::ModelProto model = onnx_reader::ParseModel(bytes, source);
  onnx_reader::CheckStructure(model.graph(), source);
  onnx_reader::CheckNodesForInference(model, source);
  onnx_reader::ApplyBindings(*model.mutable_graph(), options, source);
  const std::size_t passes = onnx_reader::InferShapesToFixpoint(model, source);
  OnnxModel result = onnx_reader::BuildGraph(model, source);
  result.inference_passes = passes;
  return result;
}

OnnxModel LoadOnnx(const std::filesystem::path& path, const LoadOptions& options) {
  return ReadOnnx(ReadFileBytes(path), path.string(), options);
}

}  // namespace memplan
