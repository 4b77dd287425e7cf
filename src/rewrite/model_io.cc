#include "src/rewrite/model_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "memplan/error.h"
#include "memplan/tflite.h"

namespace memplan::rewrite {

namespace {

constexpr std::uint64_t kMaxFile = 0x7fffffff;  // flatbuffers' limit (2 GiB - 1)
constexpr int kCustomCode = 32;
constexpr int kPlaceholderForGreaterCodes = 127;

}  // namespace

std::unique_ptr<fb::ModelT> LoadModel(std::string_view bytes, std::string_view source,
                                      std::string* unknown_options) {
  if (bytes.size() < 8 || bytes.size() > kMaxFile)
    throw InputError(
        fmt::format("{}: not a TensorFlow Lite model ({} bytes)", source, bytes.size()));
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  if (!fb::ModelBufferHasIdentifier(data))
    throw InputError(fmt::format("{}: not a TensorFlow Lite model (no TFL3 identifier)", source));
  flatbuffers::Verifier verifier(data, bytes.size());
  if (!fb::VerifyModelBuffer(verifier))
    throw InputError(fmt::format("{}: the model fails flatbuffers verification", source));
  // The verifier checks a vector's length word for 4-byte alignment only; a vector of
  // 64-bit values (quantization zero points) can then sit off its alignment, and unpacking
  // it would read misaligned words.
  const fb::Model* root = fb::GetModel(data);
  if (root->subgraphs())
    for (flatbuffers::uoffset_t s = 0; s < root->subgraphs()->size(); ++s) {
      const auto* tensors = root->subgraphs()->Get(s)->tensors();
      for (flatbuffers::uoffset_t t = 0; tensors && t < tensors->size(); ++t) {
        const auto* q = tensors->Get(t)->quantization();
        if (q && q->zero_point() &&
            reinterpret_cast<std::uintptr_t>(q->zero_point()->data()) % alignof(std::int64_t) != 0)
          throw InputError(fmt::format(
              "{}: subgraph {}, tensor {}: its quantization zero points are not 8-byte aligned "
              "in the file (the file is corrupt)",
              source, s, t));
      }
    }
  auto model = fb::UnPackModel(data);
  for (std::size_t b = 0; b < model->buffers.size(); ++b)
    if (model->buffers[b] && model->buffers[b]->offset > 1)
      throw InputError(
          fmt::format("{}: buffer {} is stored outside the flatbuffer; the rewrite cannot carry it",
                      source, b));
  for (std::size_t s = 0; s < model->subgraphs.size(); ++s) {
    const auto& sg = *model->subgraphs[s];
    for (std::size_t i = 0; i < sg.operators.size(); ++i) {
      const auto& op = *sg.operators[i];
      if (op.builtin_options.type != fb::BuiltinOptions::NONE &&
          op.builtin_options.value == nullptr) {
        std::string message = fmt::format(
            "subgraph {} op {} ({}) has builtin options of type {} that the rewrite does "
            "not know; rewriting would lose them",
            s, i, BuiltinOperatorName(BuiltinCodeOf(*model, op)),
            static_cast<int>(op.builtin_options.type));
        if (!unknown_options) throw InputError(fmt::format("{}: {}", source, message));
        if (unknown_options->empty()) *unknown_options = std::move(message);
      }
    }
  }
  return model;
}

std::string SaveModel(const fb::ModelT& model) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fb::Model::Pack(fbb, &model), fb::ModelIdentifier());
  return std::string(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
}

int BuiltinCodeOf(const fb::ModelT& model, const fb::OperatorT& op) {
  if (op.opcode_index >= model.operator_codes.size()) return -1;
  const auto& code = *model.operator_codes[op.opcode_index];
  const int value = std::max<int>(code.builtin_code, code.deprecated_builtin_code);
  if (value == kCustomCode) return -1;
  (void)kPlaceholderForGreaterCodes;
  return value;
}

}  // namespace memplan::rewrite
