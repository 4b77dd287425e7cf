// Operators that move values without computing new ones: Identity, Reshape, Flatten,
// Unsqueeze, Squeeze, Concat, Gather, Slice, Transpose, Expand, Tile, ConstantOfShape.
// Each follows the ONNX operator specification; inputs it rejects do not fold.
#include <algorithm>
#include <numeric>

#include "src/formats/onnx/onnx_eval.h"

namespace memplan::formats::onnx_eval {

namespace {

std::vector<std::int64_t> Iota(std::int64_t n) {
  std::vector<std::int64_t> index(static_cast<std::size_t>(n));
  std::iota(index.begin(), index.end(), 0);
  return index;
}

// The same values under new dims (the element count must match).
std::optional<ConstTensor> WithDims(const ConstTensor& in, const Dims& dims) {
  const auto n = CappedElements(dims);
  if (!n || *n != in.Elements()) return std::nullopt;
  ConstTensor out = in;
  out.dims = dims;
  return out;
}

std::optional<ConstTensor> Reshape(const onnx::NodeProto& node, const Inputs& in) {
  const auto shape = IntList(in.size() > 1 ? in[1] : nullptr);
  if (!in[0] || !shape) return std::nullopt;
  const bool allow_zero = IntAttr(node, "allowzero", 0) != 0;
  Dims dims = *shape;
  int infer = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && !allow_zero) {
      if (i >= in[0]->dims.size()) return std::nullopt;
      dims[i] = in[0]->dims[i];
    }
    if (dims[i] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(i);
      continue;
    }
    if (dims[i] < 0) return std::nullopt;
    if (dims[i] > kMaxFoldElements) return std::nullopt;
    known *= dims[i];
    if (known > kMaxFoldElements) return std::nullopt;
  }
  if (infer >= 0) {
    if (known == 0 || in[0]->Elements() % known != 0) return std::nullopt;
    dims[static_cast<std::size_t>(infer)] = in[0]->Elements() / known;
  }
  return WithDims(*in[0], dims);
}

std::optional<ConstTensor> Flatten(const onnx::NodeProto& node, const Inputs& in) {
  const auto rank = static_cast<std::int64_t>(in[0]->dims.size());
  std::int64_t axis = IntAttr(node, "axis", 1);
  if (axis < -rank || axis > rank) return std::nullopt;
  if (axis < 0) axis += rank;
  std::int64_t outer = 1;
  for (std::int64_t i = 0; i < axis; ++i) outer *= in[0]->dims[static_cast<std::size_t>(i)];
  const std::int64_t inner = outer == 0 ? 0 : in[0]->Elements() / outer;
  return WithDims(*in[0], {outer, inner});
}

// Unsqueeze and Squeeze take axes as an attribute before opset 13 and an input from 13.
std::optional<Dims> Axes(const onnx::NodeProto& node, std::int64_t opset, const Inputs& in) {
  if (opset < 13) return IntsAttr(node, "axes");
  if (in.size() < 2 || !in[1]) return std::nullopt;
  return IntList(in[1]);
}

std::optional<ConstTensor> Unsqueeze(const onnx::NodeProto& node, std::int64_t opset,
                                     const Inputs& in) {
  const auto axes = Axes(node, opset, in);
  if (!axes) return std::nullopt;
  if (in[0]->dims.size() + axes->size() > kMaxFoldRank) return std::nullopt;
  const auto rank = static_cast<std::int64_t>(in[0]->dims.size() + axes->size());
  std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
  for (const std::int64_t a : *axes) {
    const auto axis = NormalizeAxis(a, rank);
    if (!axis || inserted[static_cast<std::size_t>(*axis)]) return std::nullopt;
    inserted[static_cast<std::size_t>(*axis)] = true;
  }
  Dims dims;
  std::size_t next = 0;
  for (std::int64_t i = 0; i < rank; ++i)
    dims.push_back(inserted[static_cast<std::size_t>(i)] ? 1 : in[0]->dims[next++]);
  return WithDims(*in[0], dims);
}

std::optional<ConstTensor> Squeeze(const onnx::NodeProto& node, std::int64_t opset,
                                   const Inputs& in) {
  const auto rank = static_cast<std::int64_t>(in[0]->dims.size());
  const bool has_axes = opset < 13 ? IntsAttr(node, "axes").has_value() : in.size() > 1 && in[1];
  std::vector<bool> removed(static_cast<std::size_t>(rank), false);
  if (has_axes) {
    const auto axes = Axes(node, opset, in);
    if (!axes) return std::nullopt;
    for (const std::int64_t a : *axes) {
      const auto axis = NormalizeAxis(a, rank);
      if (!axis || in[0]->dims[static_cast<std::size_t>(*axis)] != 1) return std::nullopt;
      removed[static_cast<std::size_t>(*axis)] = true;
    }
  } else {
    for (std::int64_t i = 0; i < rank; ++i)
      removed[static_cast<std::size_t>(i)] = in[0]->dims[static_cast<std::size_t>(i)] == 1;
  }
  Dims dims;
  for (std::int64_t i = 0; i < rank; ++i)
    if (!removed[static_cast<std::size_t>(i)])
      dims.push_back(in[0]->dims[static_cast<std::size_t>(i)]);
  return WithDims(*in[0], dims);
}

std::optional<ConstTensor> Concat(const onnx::NodeProto& node, const Inputs& in) {
  const ConstTensor& first = *in[0];
  const auto rank = static_cast<std::int64_t>(first.dims.size());
  const auto axis = NormalizeAxis(IntAttr(node, "axis", 0), rank);
  if (!axis) return std::nullopt;
  const auto a = static_cast<std::size_t>(*axis);
  Dims dims = first.dims;
  dims[a] = 0;
  for (const ConstTensor* t : in) {
    if (!t || t->type != first.type || t->dims.size() != first.dims.size()) return std::nullopt;
    for (std::size_t i = 0; i < dims.size(); ++i)
      if (i != a && t->dims[i] != first.dims[i]) return std::nullopt;
    dims[a] += t->dims[a];
  }
  const auto count = CappedElements(dims);
  if (!count) return std::nullopt;
  if (*count == 0) return Take(first, dims, {});  // empty: no rows to walk
  // Rows before the axis, each a run of (dims[a..] of input k) elements per input.
  std::int64_t outer = 1;
  for (std::size_t i = 0; i < a; ++i) outer *= dims[i];
  ConstTensor out;
  out.type = first.type;
  out.dims = dims;
  for (std::int64_t row = 0; row < outer; ++row)
    for (const ConstTensor* t : in) {
      const std::int64_t run = outer == 0 ? 0 : t->Elements() / outer;
      const auto begin = static_cast<std::size_t>(row * run);
      const auto end = static_cast<std::size_t>((row + 1) * run);
      if (t->IsReal())
        out.reals.insert(out.reals.end(), t->reals.begin() + begin, t->reals.begin() + end);
      else
        out.ints.insert(out.ints.end(), t->ints.begin() + begin, t->ints.begin() + end);
    }
  return out;
}

std::optional<ConstTensor> Gather(const onnx::NodeProto& node, const Inputs& in) {
  if (in.size() < 2 || !in[1] || in[1]->IsReal()) return std::nullopt;
  const ConstTensor& data = *in[0];
  const ConstTensor& indices = *in[1];
  const auto rank = static_cast<std::int64_t>(data.dims.size());
  const auto axis = NormalizeAxis(IntAttr(node, "axis", 0), rank);
  if (!axis) return std::nullopt;
  const auto a = static_cast<std::size_t>(*axis);
  Dims dims(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(a));
  dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
  dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.dims.end());
  const auto count = CappedElements(dims);
  if (!count) return std::nullopt;
  if (*count == 0) return Take(data, dims, {});  // empty: nothing to gather
  std::int64_t outer = 1;
  for (std::size_t i = 0; i < a; ++i) outer *= data.dims[i];
  std::int64_t inner = 1;
  for (std::size_t i = a + 1; i < data.dims.size(); ++i) inner *= data.dims[i];
  const std::int64_t extent = data.dims[a];
  std::vector<std::int64_t> index;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t k : indices.ints) {
      if (k < -extent || k >= extent) return std::nullopt;
      if (k < 0) k += extent;
      for (std::int64_t i = 0; i < inner; ++i) index.push_back((o * extent + k) * inner + i);
    }
  return Take(data, dims, index);
}

// Slice-10+ reads starts, ends, axes and steps from inputs; Slice-1 from attributes.
std::optional<ConstTensor> Slice(const onnx::NodeProto& node, std::int64_t opset,
                                 const Inputs& in) {
  const ConstTensor& data = *in[0];
  const auto rank = static_cast<std::int64_t>(data.dims.size());
  std::optional<Dims> starts, ends, axes, steps;
  if (opset < 10) {
    starts = IntsAttr(node, "starts");
    ends = IntsAttr(node, "ends");
    axes = IntsAttr(node, "axes");
  } else {
    auto input = [&](std::size_t i) { return i < in.size() ? in[i] : nullptr; };
    starts = IntList(input(1));
    ends = IntList(input(2));
    if (input(3)) axes = IntList(input(3));
    if (input(4)) {
      steps = IntList(input(4));
      if (!steps) return std::nullopt;
    }
    if (input(3) && !axes) return std::nullopt;
  }
  if (!starts || !ends || starts->size() != ends->size()) return std::nullopt;
  if (!axes) axes = Iota(static_cast<std::int64_t>(starts->size()));
  if (!steps) steps = Dims(starts->size(), 1);
  if (axes->size() != starts->size() || steps->size() != starts->size()) return std::nullopt;
  Dims first(static_cast<std::size_t>(rank), 0);
  Dims step(static_cast<std::size_t>(rank), 1);
  Dims dims = data.dims;
  std::vector<bool> seen(static_cast<std::size_t>(rank), false);
  for (std::size_t k = 0; k < starts->size(); ++k) {
    const auto axis = NormalizeAxis((*axes)[k], rank);
    if (!axis || seen[static_cast<std::size_t>(*axis)] || (*steps)[k] == 0) return std::nullopt;
    const auto a = static_cast<std::size_t>(*axis);
    seen[a] = true;
    const std::int64_t extent = data.dims[a];
    const std::int64_t s = (*steps)[k];
    // Clamp to what the specification allows; values like INT64_MAX mean "to the end".
    auto resolve = [extent](std::int64_t v) { return v < 0 ? v + extent : v; };
    std::int64_t b = resolve((*starts)[k]);
    std::int64_t e = resolve((*ends)[k]);
    if (s > 0) {
      b = std::clamp<std::int64_t>(b, 0, extent);
      e = std::clamp<std::int64_t>(e, 0, extent);
    } else {
      b = std::clamp<std::int64_t>(b, 0, extent - 1);
      e = std::clamp<std::int64_t>(e, -1, extent - 1);
    }
    const std::int64_t span = s > 0 ? e - b : b - e;
    constexpr std::int64_t kMost = std::numeric_limits<std::int64_t>::max();
    const std::int64_t magnitude = s > 0 ? s : s < -kMost ? kMost : -s;  // |s|, capped
    dims[a] = span <= 0 ? 0 : (span - 1) / magnitude + 1;
    first[a] = b;
    step[a] = s;
  }
  const auto count = CappedElements(dims);
  if (!count) return std::nullopt;
  Dims stride(static_cast<std::size_t>(rank), 1);
  for (std::int64_t i = rank - 1; i > 0; --i)
    stride[static_cast<std::size_t>(i - 1)] =
        stride[static_cast<std::size_t>(i)] * data.dims[static_cast<std::size_t>(i)];
  std::vector<std::int64_t> index;
  index.reserve(static_cast<std::size_t>(*count));
  Dims position(static_cast<std::size_t>(rank), 0);
  for (std::int64_t n = 0; n < *count; ++n) {
    std::int64_t flat = 0;
    for (std::size_t i = 0; i < position.size(); ++i)
      flat += (first[i] + position[i] * step[i]) * stride[i];
    index.push_back(flat);
    for (std::size_t i = position.size(); i-- > 0;) {
      if (++position[i] < dims[i]) break;
      position[i] = 0;
    }
  }
  return Take(data, dims, index);
}

std::optional<ConstTensor> Transpose(const onnx::NodeProto& node, const Inputs& in) {
  const ConstTensor& data = *in[0];
  const auto rank = static_cast<std::int64_t>(data.dims.size());
  Dims perm(static_cast<std::size_t>(rank));
  for (std::int64_t i = 0; i < rank; ++i) perm[static_cast<std::size_t>(i)] = rank - 1 - i;
  if (const auto given = IntsAttr(node, "perm")) perm = *given;
  if (static_cast<std::int64_t>(perm.size()) != rank) return std::nullopt;
  std::vector<bool> used(static_cast<std::size_t>(rank), false);
  for (const std::int64_t p : perm) {
    if (p < 0 || p >= rank || used[static_cast<std::size_t>(p)]) return std::nullopt;
    used[static_cast<std::size_t>(p)] = true;
  }
  Dims stride(static_cast<std::size_t>(rank), 1);
  for (std::int64_t i = rank - 1; i > 0; --i)
    stride[static_cast<std::size_t>(i - 1)] =
        stride[static_cast<std::size_t>(i)] * data.dims[static_cast<std::size_t>(i)];
  Dims dims;
  Dims out_stride;  // stride in `data` of each output axis
  for (const std::int64_t p : perm) {
    dims.push_back(data.dims[static_cast<std::size_t>(p)]);
    out_stride.push_back(stride[static_cast<std::size_t>(p)]);
  }
  std::vector<std::int64_t> index;
  Dims position(dims.size(), 0);
  for (std::int64_t n = 0; n < data.Elements(); ++n) {
    std::int64_t flat = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) flat += position[i] * out_stride[i];
    index.push_back(flat);
    for (std::size_t i = dims.size(); i-- > 0;) {
      if (++position[i] < dims[i]) break;
      position[i] = 0;
    }
  }
  return Take(data, dims, index);
}

std::optional<ConstTensor> Expand(const Inputs& in) {
  const auto shape = IntList(in.size() > 1 ? in[1] : nullptr);
  if (!shape) return std::nullopt;
  const auto dims = Broadcast(in[0]->dims, *shape);
  if (!dims || !CappedElements(*dims)) return std::nullopt;
  return Take(*in[0], *dims, BroadcastIndices(in[0]->dims, *dims));
}

std::optional<ConstTensor> Tile(const Inputs& in) {
  const auto repeats = IntList(in.size() > 1 ? in[1] : nullptr);
  const ConstTensor& data = *in[0];
  if (!repeats || repeats->size() != data.dims.size()) return std::nullopt;
  Dims dims = data.dims;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if ((*repeats)[i] < 0 || (*repeats)[i] > kMaxFoldElements) return std::nullopt;
    dims[i] *= (*repeats)[i];
  }
  const auto count = CappedElements(dims);
  if (!count) return std::nullopt;
  Dims stride(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) stride[i - 1] = stride[i] * data.dims[i];
  std::vector<std::int64_t> index;
  Dims position(dims.size(), 0);
  for (std::int64_t n = 0; n < *count; ++n) {
    std::int64_t flat = 0;
    for (std::size_t i = 0; i < dims.size(); ++i) flat += (position[i] % data.dims[i]) * stride[i];
    index.push_back(flat);
    for (std::size_t i = dims.size(); i-- > 0;) {
      if (++position[i] < dims[i]) break;
      position[i] = 0;
    }
  }
  return Take(data, dims, index);
}

std::optional<ConstTensor> ConstantOfShape(const onnx::NodeProto& node, const Inputs& in) {
  const auto shape = IntList(in[0]);
  if (!shape) return std::nullopt;
  const auto count = CappedElements(*shape);
  if (!count) return std::nullopt;
  ConstTensor fill;
  fill.type = onnx::TensorProto::FLOAT;
  fill.reals = {0.0};
  if (const onnx::TensorProto* value = TensorAttr(node, "value")) {
    const auto parsed = FromTensorProto(*value);
    if (!parsed || parsed->Elements() != 1) return std::nullopt;
    fill = *parsed;
  }
  return Take(fill, *shape, std::vector<std::int64_t>(static_cast<std::size_t>(*count), 0));
}

}  // namespace

std::optional<ConstTensor> EvaluateShapeOp(const onnx::NodeProto& node, std::int64_t opset,
                                           const Inputs& in) {
  const std::string& op = node.op_type();
  if (in.empty() || !in[0]) return std::nullopt;
  if (op == "Identity") return *in[0];
  if (op == "Reshape") return Reshape(node, in);
  if (op == "Flatten") return Flatten(node, in);
  if (op == "Unsqueeze") return Unsqueeze(node, opset, in);
  if (op == "Squeeze") return Squeeze(node, opset, in);
  if (op == "Concat") return Concat(node, in);
  if (op == "Gather") return Gather(node, in);
  if (op == "Slice") return Slice(node, opset, in);
  if (op == "Transpose") return Transpose(node, in);
  if (op == "Expand") return Expand(in);
  if (op == "Tile") return Tile(in);
  if (op == "ConstantOfShape") return ConstantOfShape(node, in);
  return std::nullopt;
}

}  // namespace memplan::formats::onnx_eval
