// memplan::Graph -> .tflite with memplan's schema (official field ids), for tests and
// for tools that export or annotate models.
#include <map>

#include "memplan/tflite.h"
#include "memplan_tflite_generated.h"

namespace memplan {

namespace {

namespace fb = memplan::tflite::fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

constexpr std::int32_t kCustomCode = 32;
constexpr std::int32_t kPlaceholderForGreaterCodes = 127;
constexpr std::size_t kBufferAlignment = 16;  // Buffer.data is force_align: 16

class TfliteWriter {
 public:
  TfliteWriter(const Graph& graph, const TfliteWriteOptions& options)
      : graph_(graph), options_(options) {
    // Every scalar is written, defaults too, so tests can mutate any field in place.
    fbb_.ForceDefaults(true);
    buffers_.push_back(fb::CreateBuffer(fbb_));  // the empty sentinel every model starts with
  }

  std::string Write() && {
    std::vector<Offset<fb::SubGraph>> subgraphs;
    for (std::size_t s = 0; s < graph_.subgraphs.size(); ++s)
      subgraphs.push_back(WriteSubgraph(s, graph_.subgraphs[s]));
    std::vector<Offset<fb::Metadata>> metadata;
    if (options_.offline_offsets) {
      const auto words = EncodeOfflinePlan(options_.offline_version,
                                           static_cast<std::uint32_t>(graph_.subgraphs.size()),
                                           *options_.offline_offsets);
      const auto index = AddBuffer(words);
      metadata.push_back(
          fb::CreateMetadata(fbb_, fbb_.CreateString(std::string(kOfflinePlanMetadata)), index));
    }
    const auto model = fb::CreateModel(
        fbb_, /*version=*/3, fbb_.CreateVector(codes_), fbb_.CreateVector(subgraphs),
        fbb_.CreateString(options_.description), fbb_.CreateVector(buffers_), 0,
        metadata.empty() ? 0 : fbb_.CreateVector(metadata));
    fb::FinishModelBuffer(fbb_, model);
    return std::string(reinterpret_cast<const char*>(fbb_.GetBufferPointer()), fbb_.GetSize());
  }

 private:
  std::uint32_t AddBuffer(const std::vector<std::uint8_t>& data) {
    fbb_.ForceVectorAlignment(data.size(), sizeof(std::uint8_t), kBufferAlignment);
    buffers_.push_back(fb::CreateBuffer(fbb_, fbb_.CreateVector(data)));
    return static_cast<std::uint32_t>(buffers_.size() - 1);
  }

  std::uint32_t OpCodeIndex(const std::string& type) {
    if (const auto it = code_index_.find(type); it != code_index_.end()) return it->second;
    const auto builtin = BuiltinOperatorCode(type);
    const std::int32_t code = builtin ? *builtin : kCustomCode;
    const auto deprecated = static_cast<std::int8_t>(std::min(code, kPlaceholderForGreaterCodes));
    const auto custom = builtin ? 0 : fbb_.CreateString(type);
    codes_.push_back(fb::CreateOperatorCode(fbb_, deprecated, custom, 1, code));
    const auto index = static_cast<std::uint32_t>(codes_.size() - 1);
    code_index_.emplace(type, index);
    return index;
  }

  Offset<fb::Tensor> WriteTensor(const Tensor& t) {
    std::vector<std::int32_t> shape(t.shape.begin(), t.shape.end());
    std::uint32_t buffer = 0;
    if (t.is_constant)
      buffer = AddBuffer(std::vector<std::uint8_t>(std::max<Bytes>(t.bytes.value_or(1), 1), 0));
    Offset<flatbuffers::Vector<std::int32_t>> signature = 0;
    if (options_.dynamic_batch_signature && !t.is_constant && !shape.empty()) {
      std::vector<std::int32_t> sig = shape;
      sig[0] = -1;
      signature = fbb_.CreateVector(sig);
    }
    const auto shape_offset = fbb_.CreateVector(shape);
    const auto name = fbb_.CreateString(t.name);
    fb::TensorBuilder b(fbb_);
    b.add_shape(shape_offset);
    b.add_type(static_cast<fb::TensorType>(static_cast<int>(t.type)));
    b.add_buffer(buffer);
    b.add_name(name);
    b.add_is_variable(t.is_variable);
    if (!signature.IsNull()) b.add_shape_signature(signature);
    // A sized tensor's rank is known (a scalar when the shape is []); an unsized one
    // stored as [] has an unknown rank, as converters write custom-op outputs.
    b.add_has_rank(t.bytes.has_value() || !t.shape.empty());
    return b.Finish();
  }

  // IF, WHILE and CALL_ONCE name the subgraphs they run in their options.
  std::pair<fb::BuiltinOptions, Offset<void>> ControlFlowOptions(const Operator& op) {
    const auto& c = op.called_subgraphs;
    if (op.type == "IF" && c.size() >= 2)
      return {fb::BuiltinOptions::IfOptions, fb::CreateIfOptions(fbb_, c[0], c[1]).Union()};
    if (op.type == "WHILE" && c.size() >= 2)
      return {fb::BuiltinOptions::WhileOptions, fb::CreateWhileOptions(fbb_, c[0], c[1]).Union()};
    if (op.type == "CALL_ONCE" && !c.empty())
      return {fb::BuiltinOptions::CallOnceOptions, fb::CreateCallOnceOptions(fbb_, c[0]).Union()};
    return {fb::BuiltinOptions::NONE, 0};
  }

  Offset<fb::Operator> WriteOp(std::size_t s, std::size_t i, const Operator& op) {
    const std::uint32_t code = OpCodeIndex(op.type);
    const auto [options_type, options] = ControlFlowOptions(op);
    Offset<flatbuffers::Vector<std::uint8_t>> custom = 0;
    for (const auto& c : options_.custom_options)
      if (static_cast<std::size_t>(c.subgraph) == s && static_cast<std::size_t>(c.op) == i)
        custom = fbb_.CreateVector(c.bytes);
    const auto inputs = fbb_.CreateVector(op.inputs);
    const auto outputs = fbb_.CreateVector(op.outputs);
    const auto intermediates = op.intermediates.empty() ? 0 : fbb_.CreateVector(op.intermediates);
    fb::OperatorBuilder b(fbb_);
    b.add_opcode_index(code);
    b.add_inputs(inputs);
    b.add_outputs(outputs);
    if (options_type != fb::BuiltinOptions::NONE) {
      b.add_builtin_options_type(options_type);
      b.add_builtin_options(options);
    }
    if (!custom.IsNull()) b.add_custom_options(custom);
    if (!intermediates.IsNull()) b.add_intermediates(intermediates);
    return b.Finish();
  }

  Offset<fb::SubGraph> WriteSubgraph(std::size_t s, const Subgraph& sg) {
    std::vector<Offset<fb::Tensor>> tensors;
    for (const Tensor& t : sg.tensors) tensors.push_back(WriteTensor(t));
    std::vector<Offset<fb::Operator>> ops;
    for (std::size_t i = 0; i < sg.ops.size(); ++i) ops.push_back(WriteOp(s, i, sg.ops[i]));
    return fb::CreateSubGraph(fbb_, fbb_.CreateVector(tensors), fbb_.CreateVector(sg.inputs),
                              fbb_.CreateVector(sg.outputs), fbb_.CreateVector(ops),
                              fbb_.CreateString(sg.name));
  }

  const Graph& graph_;
  const TfliteWriteOptions& options_;
  FlatBufferBuilder fbb_;
  std::vector<Offset<fb::Buffer>> buffers_;
  std::vector<Offset<fb::OperatorCode>> codes_;
  std::map<std::string, std::uint32_t> code_index_;
};

}  // namespace

std::string WriteTflite(const Graph& graph, const TfliteWriteOptions& options) {
  return TfliteWriter(graph, options).Write();
}

}  // namespace memplan
