// Bytes -> ModelProto, with the limits that keep hostile files from doing harm.
#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <limits>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

onnx::ModelProto ParseModel(std::string_view bytes, std::string_view source) {
  if (bytes.size() > kMaxModelBytes)
    throw InputError(fmt::format(
        "{}: {} bytes is more than one protobuf message can hold (2 GiB); models this large "
        "keep weights in external data, which memplan does not read",
        source, bytes.size()));
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  onnx::ModelProto model;
  if (!model.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    throw InputError(fmt::format(
        "{}: not an ONNX model: the bytes do not parse as an ONNX ModelProto (corrupt or "
        "truncated file?)",
        source));
  if (!model.has_graph())
    throw InputError(fmt::format("{}: not an ONNX model: it has no graph", source));
  return model;
}

std::int64_t DefaultOpset(const onnx::ModelProto& model) {
  std::int64_t version = 0;
  for (const auto& opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx") version = opset.version();
  return version;
}

}  // namespace memplan::formats
