#include "src/formats/tflite/verify.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <string>

#include "memplan/error.h"

namespace memplan::formats {

namespace {

// Limits for the verifier: nesting (tables in vectors in tables) and table count. Real
// models nest 4 deep and have a few tables per tensor and op.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 20'000'000;

std::string Printable(std::string_view bytes) {
  std::string out;
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    out += std::isprint(u) ? std::string(1, c) : fmt::format("\\x{:02x}", u);
  }
  return out;
}

flatbuffers::Verifier MakeVerifier(std::string_view bytes) {
  return flatbuffers::Verifier(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(),
                               kMaxDepth, kMaxTables);
}

// Generated tables derive privately from flatbuffers::Table, which they only wrap.
template <typename T>
const flatbuffers::Table* AsTable(const T* table) {
  return reinterpret_cast<const flatbuffers::Table*>(table);
}

template <typename T>
bool TableStartSound(flatbuffers::Verifier& v, const T* table) {
  return AsTable(table)->VerifyTableStart(v);
}

// True when `table`'s field `field` (an offset to a vector of tables) is a readable
// vector; then each element's own Verify says whether it is sound. `get` reads the
// field, so it runs only once the field itself is known to lie inside the file.
template <typename Parent, typename Get>
bool VectorSound(flatbuffers::Verifier& v, const Parent* table, flatbuffers::voffset_t field,
                 Get get) {
  return AsTable(table)->VerifyOffset(v, field) && v.VerifyVector(get());
}

// Finds the first part of the model the verifier rejects, for the message. Each step
// verifies what the next one reads, so this never reads outside the file either.
std::string LocateCorruption(std::string_view bytes) {
  auto v = MakeVerifier(bytes);
  const auto* buf = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const auto root = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(buf);
  if (!v.VerifyOffset(0))
    return fmt::format("the root table offset {} points outside the {}-byte file", root,
                       bytes.size());
  const fb::Model* model = fb::GetModel(buf);
  if (!TableStartSound(v, model)) return "the Model table (at the root) is cut off or malformed";
  using M = fb::Model;
  if (!VectorSound(v, model, M::VT_OPERATOR_CODES, [&] { return model->operator_codes(); }))
    return "the list of operator codes";
  if (const auto* codes = model->operator_codes())
    for (flatbuffers::uoffset_t i = 0; i < codes->size(); ++i)
      if (!codes->Get(i)->Verify(v)) return fmt::format("operator code {}", i);
  if (!VectorSound(v, model, M::VT_SUBGRAPHS, [&] { return model->subgraphs(); }))
    return "the list of subgraphs";
  if (const auto* subgraphs = model->subgraphs()) {
    for (flatbuffers::uoffset_t s = 0; s < subgraphs->size(); ++s) {
      const fb::SubGraph* sg = subgraphs->Get(s);
      using S = fb::SubGraph;
      if (!TableStartSound(v, sg)) return fmt::format("subgraph {} (its table)", s);
      if (!VectorSound(v, sg, S::VT_TENSORS, [&] { return sg->tensors(); }))
        return fmt::format("subgraph {}: the list of tensors", s);
      if (const auto* tensors = sg->tensors())
        for (flatbuffers::uoffset_t t = 0; t < tensors->size(); ++t)
          if (!tensors->Get(t)->Verify(v)) return fmt::format("subgraph {}, tensor {}", s, t);
      if (!VectorSound(v, sg, S::VT_OPERATORS, [&] { return sg->operators(); }))
        return fmt::format("subgraph {}: the list of ops", s);
      if (const auto* ops = sg->operators())
        for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i)
          if (!ops->Get(i)->Verify(v)) return fmt::format("subgraph {}, op {}", s, i);
      if (!sg->Verify(v)) return fmt::format("subgraph {} (inputs, outputs or name)", s);
    }
  }
  if (!VectorSound(v, model, M::VT_BUFFERS, [&] { return model->buffers(); }))
    return "the list of buffers";
  if (const auto* buffers = model->buffers())
    for (flatbuffers::uoffset_t i = 0; i < buffers->size(); ++i)
      if (!buffers->Get(i)->Verify(v)) return fmt::format("buffer {}", i);
  if (!VectorSound(v, model, M::VT_METADATA, [&] { return model->metadata(); }))
    return "the list of metadata";
  if (const auto* metadata = model->metadata())
    for (flatbuffers::uoffset_t i = 0; i < metadata->size(); ++i)
      if (!metadata->Get(i)->Verify(v)) return fmt::format("metadata entry {}", i);
  return "the Model table (description, metadata_buffer, or too many tables)";
}

}  // namespace

const fb::Model* VerifiedModel(std::string_view bytes, std::string_view source) {
  constexpr std::size_t kHeader = 8;  // root offset + file identifier
  if (bytes.size() < kHeader)
    throw InputError(fmt::format("{}: too short to be a TensorFlow Lite model ({} bytes)", source,
                                 bytes.size()));
  const std::string_view identifier = bytes.substr(4, 4);
  if (identifier != fb::ModelIdentifier())
    throw InputError(fmt::format(
        "{}: not a TensorFlow Lite model: the file identifier (bytes 4-7) is '{}', expected '{}'",
        source, Printable(identifier), fb::ModelIdentifier()));
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE)
    throw InputError(fmt::format(
        "{}: {} bytes; models of 2 GiB or more (data outside the flatbuffer) are not supported",
        source, bytes.size()));
  auto v = MakeVerifier(bytes);
  if (!fb::VerifyModelBuffer(v))
    throw InputError(fmt::format(
        "{}: corrupt or truncated TensorFlow Lite model: {} fails flatbuffer verification (offsets "
        "outside the file, bad lengths or misaligned data)",
        source, LocateCorruption(bytes)));
  return fb::GetModel(bytes.data());
}

}  // namespace memplan::formats
