// ONNX element types (TensorProto.DataType) and memplan's DataType.
#include <fmt/format.h>

#include <array>

#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

struct TypeRow {
  std::int32_t onnx;                // TensorProto.DataType number
  const char* name;                 // its name in onnx.proto
  std::optional<DataType> memplan;  // memplan's type; nullopt where it has none
};

// Every type onnx.proto defines (1.12 stops at BFLOAT16; later versions add the 8- and
// 4-bit types, which the file format can carry even though 1.12's schemas predate them).
constexpr std::array kTypes{
    TypeRow{0, "UNDEFINED", std::nullopt},
    TypeRow{1, "FLOAT", DataType::kFloat32},
    TypeRow{2, "UINT8", DataType::kUInt8},
    TypeRow{3, "INT8", DataType::kInt8},
    TypeRow{4, "UINT16", DataType::kUInt16},
    TypeRow{5, "INT16", DataType::kInt16},
    TypeRow{6, "INT32", DataType::kInt32},
    TypeRow{7, "INT64", DataType::kInt64},
    TypeRow{8, "STRING", DataType::kString},
    TypeRow{9, "BOOL", DataType::kBool},
    TypeRow{10, "FLOAT16", DataType::kFloat16},
    TypeRow{11, "DOUBLE", DataType::kFloat64},
    TypeRow{12, "UINT32", DataType::kUInt32},
    TypeRow{13, "UINT64", DataType::kUInt64},
    TypeRow{14, "COMPLEX64", DataType::kComplex64},
    TypeRow{15, "COMPLEX128", DataType::kComplex128},
    TypeRow{16, "BFLOAT16", DataType::kBFloat16},
    TypeRow{17, "FLOAT8E4M3FN", DataType::kFloat8E4M3FN},
    TypeRow{18, "FLOAT8E4M3FNUZ", DataType::kFloat8E4M3FNUZ},
    TypeRow{19, "FLOAT8E5M2", DataType::kFloat8E5M2},
    TypeRow{20, "FLOAT8E5M2FNUZ", DataType::kFloat8E5M2FNUZ},
    TypeRow{21, "UINT4", DataType::kUInt4},
    TypeRow{22, "INT4", DataType::kInt4},
    TypeRow{23, "FLOAT4E2M1", DataType::kFloat4E2M1},
};

const TypeRow* FindType(std::int32_t elem_type) {
  for (const TypeRow& row : kTypes)
    if (row.onnx == elem_type) return &row;
  return nullptr;
}

}  // namespace

std::optional<DataType> DataTypeFromOnnx(std::int32_t elem_type) {
  const TypeRow* row = FindType(elem_type);
  return row ? row->memplan : std::nullopt;
}

std::string OnnxTypeName(std::int32_t elem_type) {
  const TypeRow* row = FindType(elem_type);
  return row ? std::string(row->name) : fmt::format("element type {}", elem_type);
}

}  // namespace memplan::formats
