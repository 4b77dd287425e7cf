// ConstTensor <-> TensorProto: the values folding computes with, read from and written to
// the model.
#include <bit>
#include <cstring>

#include "src/formats/onnx/onnx_fold.h"

namespace memplan::formats {

namespace {

// Bytes per element in raw_data; 0 for types the evaluator does not compute with.
std::size_t RawWidth(std::int32_t type) {
  switch (type) {
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::BOOL:
      return 1;
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::INT16:
      return 2;
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32:
      return 4;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::DOUBLE:
      return 8;
    default:
      return 0;
  }
}

template <typename T>
T Load(const char* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

// One little-endian element of raw_data (ONNX stores raw data little-endian; memplan
// builds for little-endian hosts only, as std::endian checks below).
void AppendRaw(ConstTensor& out, const char* at) {
  static_assert(std::endian::native == std::endian::little);
  switch (out.type) {
    case onnx::TensorProto::UINT8:
      out.ints.push_back(Load<std::uint8_t>(at));
      break;
    case onnx::TensorProto::INT8:
      out.ints.push_back(Load<std::int8_t>(at));
      break;
    case onnx::TensorProto::BOOL:
      out.ints.push_back(Load<std::uint8_t>(at) != 0);
      break;
    case onnx::TensorProto::UINT16:
      out.ints.push_back(Load<std::uint16_t>(at));
      break;
    case onnx::TensorProto::INT16:
      out.ints.push_back(Load<std::int16_t>(at));
      break;
    case onnx::TensorProto::INT32:
      out.ints.push_back(Load<std::int32_t>(at));
      break;
    case onnx::TensorProto::UINT32:
      out.ints.push_back(Load<std::uint32_t>(at));
      break;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
      out.ints.push_back(Load<std::int64_t>(at));
      break;
    case onnx::TensorProto::FLOAT:
      out.reals.push_back(Load<float>(at));
      break;
    case onnx::TensorProto::DOUBLE:
      out.reals.push_back(Load<double>(at));
      break;
    default:
      break;
  }
}

// The typed repeated field ONNX uses for `type`, copied into `out`; false when its length
// is not `count`.
bool ReadTypedFields(const onnx::TensorProto& tensor, std::int64_t count, ConstTensor& out) {
  const auto matches = [&](int size) { return static_cast<std::int64_t>(size) == count; };
  switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (!matches(tensor.float_data_size())) return false;
      out.reals.assign(tensor.float_data().begin(), tensor.float_data().end());
      return true;
    case onnx::TensorProto::DOUBLE:
      if (!matches(tensor.double_data_size())) return false;
      out.reals.assign(tensor.double_data().begin(), tensor.double_data().end());
      return true;
    case onnx::TensorProto::INT64:
      if (!matches(tensor.int64_data_size())) return false;
      out.ints.assign(tensor.int64_data().begin(), tensor.int64_data().end());
      return true;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      if (!matches(tensor.uint64_data_size())) return false;
      for (const std::uint64_t v : tensor.uint64_data())
        out.ints.push_back(WrapInteger(out.type, static_cast<std::int64_t>(v)));
      return true;
    default:  // the 8-, 16- and 32-bit integers and bool live in int32_data
      if (!matches(tensor.int32_data_size())) return false;
      for (const std::int32_t v : tensor.int32_data()) out.ints.push_back(WrapInteger(out.type, v));
      return true;
  }
}

}  // namespace

bool ConstTensor::IsReal() const {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE;
}

std::int64_t ConstTensor::Elements() const {
  std::int64_t n = 1;
  for (const std::int64_t d : dims) n *= d;
  return n;
}

bool IsFoldableType(std::int32_t type) {
  return RawWidth(type) != 0;
}

std::int64_t WrapInteger(std::int32_t type, std::int64_t value) {
  switch (type) {
    case onnx::TensorProto::UINT8:
      return static_cast<std::uint8_t>(value);
    case onnx::TensorProto::INT8:
      return static_cast<std::int8_t>(value);
    case onnx::TensorProto::BOOL:
      return value != 0;
    case onnx::TensorProto::UINT16:
      return static_cast<std::uint16_t>(value);
    case onnx::TensorProto::INT16:
      return static_cast<std::int16_t>(value);
    case onnx::TensorProto::INT32:
      return static_cast<std::int32_t>(value);
    case onnx::TensorProto::UINT32:
      return static_cast<std::uint32_t>(value);
    default:
      return value;
  }
}

std::optional<ConstTensor> FromTensorProto(const onnx::TensorProto& tensor) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  if (!IsFoldableType(tensor.data_type()) ||
      static_cast<std::size_t>(tensor.dims_size()) > kMaxFoldRank)
    return std::nullopt;
  ConstTensor out;
  out.type = tensor.data_type();
  std::int64_t count = 1;
  for (const std::int64_t d : tensor.dims()) {
    if (d < 0 || (d > 0 && count > kMaxFoldElements / d)) return std::nullopt;
    count *= d;
    out.dims.push_back(d);
  }
  if (count > kMaxFoldElements) return std::nullopt;
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    const std::size_t width = RawWidth(out.type);
    if (raw.size() != static_cast<std::size_t>(count) * width) return std::nullopt;
    for (std::size_t at = 0; at < raw.size(); at += width) AppendRaw(out, raw.data() + at);
    return out;
  }
  if (!ReadTypedFields(tensor, count, out)) return std::nullopt;
  return out;
}

onnx::TensorProto ToTensorProto(const ConstTensor& value, const std::string& name) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(value.type);
  for (const std::int64_t d : value.dims) tensor.add_dims(d);
  switch (value.type) {
    case onnx::TensorProto::FLOAT:
      for (const double v : value.reals) tensor.add_float_data(static_cast<float>(v));
      break;
    case onnx::TensorProto::DOUBLE:
      for (const double v : value.reals) tensor.add_double_data(v);
      break;
    case onnx::TensorProto::INT64:
      for (const std::int64_t v : value.ints) tensor.add_int64_data(v);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      for (const std::int64_t v : value.ints) tensor.add_uint64_data(static_cast<std::uint64_t>(v));
      break;
    default:
      for (const std::int64_t v : value.ints) tensor.add_int32_data(static_cast<std::int32_t>(v));
      break;
  }
  return tensor;
}

}  // namespace memplan::formats
