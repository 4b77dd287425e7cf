// What TFLM's Prepare refuses, checked from the model alone (input counts, ranks, types),
// so a model TFLM will not run is said before it is flashed: docs/tflm-facts.md, "What
// TFLM refuses".
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "memplan/tflite.h"
#include "src/target/kernel_view.h"

namespace memplan::target {

namespace {

constexpr std::size_t kMaxConcatenationInputs = 10;  // concatenation.cc's kMaxInputNum
constexpr std::size_t kMaxSmallSize = 6;             // RuntimeShape::kMaxSmallSize
constexpr std::size_t kMaxStridedSliceDims = 5;      // StridedSliceParams' index lists
constexpr std::size_t kMaxBroadcastDims = 5;         // broadcast_to.cc's kMaxDims

bool OneOf(DataType t, std::initializer_list<DataType> types) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

std::string Concatenation(const OpView& v) {
  if (v.Inputs() > kMaxConcatenationInputs)
    return fmt::format("CONCATENATION of {} inputs (TFLM's kernel takes at most {})", v.Inputs(),
                       kMaxConcatenationInputs);
  const DataType type = v.TypeOf(v.In(0));
  if (!OneOf(type, {DataType::kFloat32, DataType::kInt8, DataType::kInt16, DataType::kInt32,
                    DataType::kInt64, DataType::kBool}))
    return fmt::format("CONCATENATION of {} tensors", DataTypeName(type));
  if (v.TypeOf(v.Out(0)) != type)
    return fmt::format("CONCATENATION of {} inputs into a {} output", DataTypeName(type),
                       DataTypeName(v.TypeOf(v.Out(0))));
  for (std::size_t k = 0; k < v.Inputs(); ++k) {
    if (v.TypeOf(v.In(k)) != type)
      return fmt::format("CONCATENATION of {} and {} inputs", DataTypeName(type),
                         DataTypeName(v.TypeOf(v.In(k))));
    if (v.Rank(v.In(k)) > kMaxSmallSize)
      return fmt::format("CONCATENATION of a rank-{} input (at most {})", v.Rank(v.In(k)),
                         kMaxSmallSize);
  }
  return "";
}

std::string AddN(const OpView& v) {
  if (v.Inputs() < 2) return fmt::format("ADD_N of {} input (at least 2)", v.Inputs());
  const Tensor* first = v.TensorAt(v.In(0));
  for (std::size_t k = 1; k < v.Inputs(); ++k) {
    const Tensor* t = v.TensorAt(v.In(k));
    if (first && t && (t->shape != first->shape || t->type != first->type))
      return fmt::format("ADD_N of inputs with different shapes or types (input {})", k);
  }
  return "";
}

// Conv and depthwise conv (reference and CMSIS-NN): 4-D tensors.
std::string Convolution(const OpView& v) {
  for (const auto& [t, role] :
       {std::pair{v.In(0), "input"}, std::pair{v.In(1), "filter"}, std::pair{v.Out(0), "output"}})
    if (v.Rank(t) != 4)
      return fmt::format("{} with a rank-{} {} (TFLM takes 4-D NHWC)", v.op().type, v.Rank(t),
                         role);
  return "";
}

std::string StridedSlice(const OpView& v) {
  if (v.Rank(v.In(0)) > kMaxStridedSliceDims)
    return fmt::format("STRIDED_SLICE of a rank-{} input (at most {})", v.Rank(v.In(0)),
                       kMaxStridedSliceDims);
  return "";
}

std::string BroadcastTo(const OpView& v) {
  if (v.Rank(v.Out(0)) > kMaxBroadcastDims || v.Rank(v.In(0)) > kMaxBroadcastDims)
    return fmt::format("BROADCAST_TO with more than {} dimensions", kMaxBroadcastDims);
  return "";
}

std::string Softmax(const OpView& v) {
  const DataType type = v.TypeOf(v.In(0));
  if (!OneOf(type, {DataType::kFloat32, DataType::kInt8, DataType::kInt16}))
    return fmt::format("SOFTMAX of a {} input", DataTypeName(type));
  if (v.Rank(v.In(0)) < 1) return "SOFTMAX of a scalar";
  return "";
}

using CheckFn = std::string (*)(const OpView& v);
struct CheckEntry {
  std::string_view type;
  CheckFn check;
};
constexpr std::array kChecks = {
    CheckEntry{"ADD_N", &AddN},
    CheckEntry{"BROADCAST_TO", &BroadcastTo},
    CheckEntry{"CONCATENATION", &Concatenation},
    CheckEntry{"CONV_2D", &Convolution},
    CheckEntry{"DEPTHWISE_CONV_2D", &Convolution},
    CheckEntry{"SOFTMAX", &Softmax},
    CheckEntry{"STRIDED_SLICE", &StridedSlice},
};

}  // namespace

std::string TflmRefusal(const OpView& v) {
  for (const CheckEntry& e : kChecks)
    if (e.type == v.op().type) return e.check(v);
  return "";
}

}  // namespace memplan::target
