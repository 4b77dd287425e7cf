#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "memplan/graph.h"

namespace memplan {

std::string DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat16:
      return "float16";
    case DataType::kInt32:
      return "int32";
    case DataType::kUInt8:
      return "uint8";
    case DataType::kInt64:
      return "int64";
    case DataType::kString:
      return "string";
    case DataType::kBool:
      return "bool";
    case DataType::kInt16:
      return "int16";
    case DataType::kComplex64:
      return "complex64";
    case DataType::kInt8:
      return "int8";
    case DataType::kFloat64:
      return "float64";
    case DataType::kComplex128:
      return "complex128";
    case DataType::kUInt64:
      return "uint64";
    case DataType::kResource:
      return "resource";
    case DataType::kVariant:
      return "variant";
    case DataType::kUInt32:
      return "uint32";
    case DataType::kUInt16:
      return "uint16";
    case DataType::kInt4:
      return "int4";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kFloat8E4M3FN:
      return "float8e4m3fn";
    case DataType::kFloat8E4M3FNUZ:
      return "float8e4m3fnuz";
    case DataType::kFloat8E5M2:
      return "float8e5m2";
    case DataType::kFloat8E5M2FNUZ:
      return "float8e5m2fnuz";
    case DataType::kUInt4:
      return "uint4";
    case DataType::kFloat4E2M1:
      return "float4e2m1";
  }
  return fmt::format("type({})", static_cast<int>(type));
}

std::optional<unsigned> DataTypeBits(DataType type) {
  switch (type) {
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kFloat4E2M1:
      return 4;
    case DataType::kBool:
    case DataType::kUInt8:
    case DataType::kInt8:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return 8;
    case DataType::kFloat16:
    case DataType::kBFloat16:
    case DataType::kInt16:
    case DataType::kUInt16:
      return 16;
    case DataType::kFloat32:
    case DataType::kInt32:
    case DataType::kUInt32:
      return 32;
    case DataType::kInt64:
    case DataType::kUInt64:
    case DataType::kFloat64:
    case DataType::kComplex64:
      return 64;
    case DataType::kComplex128:
      return 128;
    case DataType::kString:
    case DataType::kResource:
    case DataType::kVariant:
      return std::nullopt;
  }
  return std::nullopt;
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
