#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "memplan/graph.h"

namespace memplan {

namespace {

// Each type's name and bits per element (0: no static size).
struct TypeFacts {
  DataType type;
  const char* name;
  unsigned bits;
};

constexpr TypeFacts kTypes[] = {
    {DataType::kFloat32, "float32", 32},
    {DataType::kFloat16, "float16", 16},
    {DataType::kInt32, "int32", 32},
    {DataType::kUInt8, "uint8", 8},
    {DataType::kInt64, "int64", 64},
    {DataType::kString, "string", 0},
    {DataType::kBool, "bool", 8},
    {DataType::kInt16, "int16", 16},
    {DataType::kComplex64, "complex64", 64},
    {DataType::kInt8, "int8", 8},
    {DataType::kFloat64, "float64", 64},
    {DataType::kComplex128, "complex128", 128},
    {DataType::kUInt64, "uint64", 64},
    {DataType::kResource, "resource", 0},
    {DataType::kVariant, "variant", 0},
    {DataType::kUInt32, "uint32", 32},
    {DataType::kUInt16, "uint16", 16},
    {DataType::kInt4, "int4", 4},
    {DataType::kBFloat16, "bfloat16", 16},
    {DataType::kFloat8E4M3FN, "float8e4m3fn", 8},
    {DataType::kFloat8E4M3FNUZ, "float8e4m3fnuz", 8},
    {DataType::kFloat8E5M2, "float8e5m2", 8},
    {DataType::kFloat8E5M2FNUZ, "float8e5m2fnuz", 8},
    {DataType::kUInt4, "uint4", 4},
    {DataType::kFloat4E2M1, "float4e2m1", 4},
};

const TypeFacts* FactsOf(DataType type) {
  for (const TypeFacts& facts : kTypes)
    if (facts.type == type) return &facts;
  return nullptr;
}

}  // namespace

std::string DataTypeName(DataType type) {
  if (const TypeFacts* facts = FactsOf(type)) return facts->name;
  return fmt::format("type({})", static_cast<int>(type));
}

std::optional<unsigned> DataTypeBits(DataType type) {
  const TypeFacts* facts = FactsOf(type);
  if (!facts || facts->bits == 0) return std::nullopt;
  return facts->bits;
}

std::optional<Bytes> TensorBytes(DataType type, std::uint64_t elements) {
  const auto bits = DataTypeBits(type);
  if (!bits) return std::nullopt;
  if (elements > std::numeric_limits<std::uint64_t>::max() / *bits) return std::nullopt;
  return (elements * *bits + 7) / 8;
}

std::optional<std::uint64_t> ShapeElements(const std::vector<std::int64_t>& shape) {
  std::uint64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0) return std::nullopt;
    const auto dim = static_cast<std::uint64_t>(d);
    if (dim != 0 && n > std::numeric_limits<std::uint64_t>::max() / dim) return std::nullopt;
    n *= dim;
  }
  return n;
}

std::string ShapeText(const std::vector<std::int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ","));
}

std::size_t Graph::TensorCount() const {
  std::size_t n = 0;
  for (const Subgraph& s : subgraphs) n += s.tensors.size();
  return n;
}

std::size_t Graph::OpCount() const {
  std::size_t n = 0;
  for (const Subgraph& s : subgraphs) n += s.ops.size();
  return n;
}

}  // namespace memplan
