// TensorFlow Lite's output-shape rules, restated in docs/tflite-shapes.md. Every rule
// checks what it relies on and says why it cannot give a shape rather than guessing one.
#include "src/formats/tflite/shape_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <span>

#include "memplan/error.h"

namespace memplan::formats {

namespace {

[[noreturn]] void Refuse(const std::string& why) {
  throw InputError(why);
}

std::string Text(const Shape& s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

const RuleInput& In(const std::vector<RuleInput>& inputs, std::size_t k, const char* what) {
  if (k >= inputs.size() || !inputs[k].present)
    Refuse(fmt::format("input {} ({}) is missing", k, what));
  return inputs[k];
}

const std::vector<std::int64_t>& Values(const std::vector<RuleInput>& inputs, std::size_t k,
                                        const char* what) {
  const RuleInput& in = In(inputs, k, what);
  if (!in.values)
    Refuse(
        fmt::format("input {} ({}) is not a constant memplan can read, so the output shape "
                    "is known only at run time",
                    k, what));
  return *in.values;
}

void NeedRank(const Shape& s, std::size_t rank, const char* what) {
  if (s.size() != rank)
    Refuse(fmt::format("{} has shape {}, expected rank {}", what, Text(s), rank));
}

// An axis in [-rank, rank) made non-negative.
std::size_t Axis(std::int64_t axis, std::size_t rank, const char* what) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    Refuse(fmt::format("{} {} is outside [-{}, {})", what, axis, rank, rank));
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

std::int64_t Elements(const Shape& s) {
  std::int64_t n = 1;
  for (const std::int64_t d : s) {
    if (d < 0) Refuse(fmt::format("shape {} is not known", Text(s)));
    if (d != 0 && n > (std::int64_t{1} << 56) / d)
      Refuse(fmt::format("shape {} is absurd", Text(s)));
    n *= d;
  }
  return n;
}

// Dimensions above this are a corrupt model, not a shape (and keep sums from overflowing).
constexpr std::int64_t kMaxDimension = std::int64_t{1} << 56;

std::int64_t Sum(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out) || out > kMaxDimension || out < -kMaxDimension)
    Refuse(fmt::format("{} + {} is absurd as a size or index", a, b));
  return out;
}

std::vector<RuleOutput> One(Shape s, std::optional<std::vector<std::int64_t>> values = {}) {
  return {RuleOutput{std::move(s), std::move(values)}};
}

// CONV_2D: input [N,H,W,C], filter [O,KH,KW,I] -> [N, out_h, out_w, O].
// DEPTHWISE_CONV_2D: filter [1,KH,KW,O] -> [N, out_h, out_w, O].
std::vector<RuleOutput> Convolution(const TfliteOpOptions& o, const std::vector<RuleInput>& in,
                                    bool depthwise) {
  const Shape& x = In(in, 0, "input").shape;
  const Shape& w = In(in, 1, "filter").shape;
  NeedRank(x, 4, "the input");
  NeedRank(w, 4, "the filter");
  const std::int64_t h = WindowOutputSize(o.padding, x[1], w[1], o.stride_h, o.dilation_h);
  const std::int64_t wd = WindowOutputSize(o.padding, x[2], w[2], o.stride_w, o.dilation_w);
  return One({x[0], h, wd, depthwise ? w[3] : w[0]});
}

// AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D: [N,H,W,C] -> [N, out_h, out_w, C].
std::vector<RuleOutput> Pool(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  NeedRank(x, 4, "the input");
  return One({x[0], WindowOutputSize(o.padding, x[1], o.filter_h, o.stride_h, 1),
              WindowOutputSize(o.padding, x[2], o.filter_w, o.stride_w, 1), x[3]});
}

// FULLY_CONNECTED: weights [units, depth]; the input is read as rows of `depth` values.
std::vector<RuleOutput> FullyConnected(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  const Shape& w = In(in, 1, "weights").shape;
  NeedRank(w, 2, "the weights");
  const std::int64_t depth = w[1];
  const std::int64_t elements = Elements(x);
  if (depth <= 0 || elements % depth != 0)
    Refuse(fmt::format("input {} holds {} values, not a whole number of rows of {}", Text(x),
                       elements, depth));
  if (o.keep_num_dims) {
    if (x.empty() || x.back() != depth)
      Refuse(
          fmt::format("keep_num_dims needs the input's last dimension {} to be the weights' "
                      "depth {}",
                      x.empty() ? 0 : x.back(), depth));
    Shape out = x;
    out.back() = w[0];
    return One(std::move(out));
  }
  return One({elements / depth, w[0]});
}

// RESHAPE: the shape input when it is a 1-D int32 tensor, else the new_shape option; one
// -1 takes what the others leave.
std::vector<RuleOutput> Reshape(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  std::vector<std::int64_t> target;
  if (in.size() > 1 && in[1].present && in[1].shape.size() == 1) {
    target = Values(in, 1, "shape");
  } else if (o.has_new_shape) {
    target.assign(o.dims.begin(), o.dims.end());
    // A one-element new_shape of 0 is how old converters wrote a scalar.
    if (target.size() == 1 && target[0] == 0) target.clear();
  } else {
    Refuse("neither a 1-D shape input nor a new_shape option gives the output shape");
  }
  const std::int64_t elements = Elements(x);
  std::int64_t known = 1;
  std::optional<std::size_t> stretch;
  for (std::size_t k = 0; k < target.size(); ++k) {
    if (target[k] == -1) {
      if (stretch) Refuse(fmt::format("shape {} has more than one -1", Text(target)));
      stretch = k;
    } else if (target[k] < 0) {
      Refuse(fmt::format("shape {} has a negative dimension", Text(target)));
    } else {
      known *= target[k];
      if (known > (std::int64_t{1} << 56)) Refuse(fmt::format("shape {} is absurd", Text(target)));
    }
  }
  if (stretch) {
    if (known == 0 || elements % known != 0)
      Refuse(fmt::format("input {} ({} values) cannot be reshaped to {}", Text(x), elements,
                         Text(target)));
    target[*stretch] = elements / known;
  } else if (known != elements) {
    Refuse(fmt::format("input {} ({} values) cannot be reshaped to {} ({} values)", Text(x),
                       elements, Text(target), known));
  }
  return One(std::move(target), in[0].values);
}

std::vector<RuleOutput> Broadcast(const std::vector<RuleInput>& in, std::size_t count) {
  Shape out = In(in, 0, "input").shape;
  for (std::size_t k = 1; k < count; ++k) out = BroadcastShapes(out, In(in, k, "input").shape);
  return One(std::move(out));
}

// CONCATENATION: equal shapes but along `axis`, where they add up.
std::vector<RuleOutput> Concatenation(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  Shape out = In(in, 0, "input").shape;
  const std::size_t axis = Axis(o.axis, out.size(), "axis");
  std::optional<std::vector<std::int64_t>> values = std::vector<std::int64_t>{};
  for (std::size_t k = 0; k < in.size(); ++k) {
    const Shape& s = In(in, k, "input").shape;
    if (s.size() != out.size())
      Refuse(fmt::format("input {} has shape {}, input 0 {}", k, Text(s), Text(in[0].shape)));
    for (std::size_t d = 0; d < s.size(); ++d)
      if (d != axis && s[d] != in[0].shape[d])
        Refuse(fmt::format("input {} has shape {}, input 0 {}: they differ off axis {}", k, Text(s),
                           Text(in[0].shape), axis));
    if (k > 0) out[axis] = Sum(out[axis], s[axis]);
    if (values && in[k].values && s.size() == 1)
      values->insert(values->end(), in[k].values->begin(), in[k].values->end());
    else
      values.reset();
  }
  return One(std::move(out), std::move(values));
}

// MEAN, SUM, REDUCE_*: the axes input (values) removed, or kept as 1 with keep_dims.
std::vector<RuleOutput> Reduce(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  std::vector<bool> reduced(x.size(), false);
  for (const std::int64_t a : Values(in, 1, "axes")) reduced[Axis(a, x.size(), "axis")] = true;
  Shape out;
  for (std::size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d])
      out.push_back(x[d]);
    else if (o.keep_dims)
      out.push_back(1);
  }
  return One(std::move(out));
}

// PAD, PADV2, MIRROR_PAD: paddings [rank, 2] of (before, after).
std::vector<RuleOutput> Pad(const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  const std::vector<std::int64_t>& p = Values(in, 1, "paddings");
  if (p.size() != 2 * x.size())
    Refuse(
        fmt::format("paddings hold {} values, input {} needs {}", p.size(), Text(x), 2 * x.size()));
  Shape out = x;
  for (std::size_t d = 0; d < x.size(); ++d) {
    if (p[2 * d] < 0 || p[2 * d + 1] < 0)
      Refuse(fmt::format("padding of dimension {} is negative", d));
    out[d] = Sum(out[d], Sum(p[2 * d], p[2 * d + 1]));
  }
  return One(std::move(out));
}

// TRANSPOSE: output dimension k is input dimension perm[k].
std::vector<RuleOutput> Transpose(const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  const std::vector<std::int64_t>& perm = Values(in, 1, "perm");
  if (perm.size() != x.size())
    Refuse(fmt::format("perm {} does not match input {}", Text(perm), Text(x)));
  Shape out;
  std::vector<bool> used(x.size(), false);
  for (const std::int64_t p : perm) {
    const std::size_t d = Axis(p, x.size(), "perm entry");
    if (used[d]) Refuse(fmt::format("perm {} repeats {}", Text(perm), p));
    used[d] = true;
    out.push_back(x[d]);
  }
  return One(std::move(out));
}

// SQUEEZE: the listed dimensions (each 1) removed, or every 1 when none is listed.
std::vector<RuleOutput> Squeeze(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  std::vector<bool> drop(x.size(), false);
  if (o.dims.empty())
    for (std::size_t d = 0; d < x.size(); ++d) drop[d] = x[d] == 1;
  for (const std::int32_t a : o.dims) {
    const std::size_t d = Axis(a, x.size(), "squeeze dimension");
    if (x[d] != 1) Refuse(fmt::format("dimension {} of {} is not 1", d, Text(x)));
    drop[d] = true;
  }
  Shape out;
  for (std::size_t d = 0; d < x.size(); ++d)
    if (!drop[d]) out.push_back(x[d]);
  return One(std::move(out));
}

// EXPAND_DIMS: a 1 inserted at the axis input's value (in [-rank-1, rank]).
std::vector<RuleOutput> ExpandDims(const std::vector<RuleInput>& in) {
  Shape out = In(in, 0, "input").shape;
  const std::vector<std::int64_t>& a = Values(in, 1, "axis");
  if (a.size() != 1) Refuse("the axis input does not hold one value");
  const std::size_t axis = Axis(a[0], out.size() + 1, "axis");
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(axis), 1);
  return One(std::move(out), in[0].values);
}

// ARG_MAX, ARG_MIN: the input without the dimension its one-value axis input names.
std::vector<RuleOutput> ArgMinMax(const std::vector<RuleInput>& in) {
  Shape out = In(in, 0, "input").shape;
  const std::vector<std::int64_t>& a = Values(in, 1, "axis");
  if (a.size() != 1) Refuse("the axis input does not hold one value");
  const std::size_t axis = Axis(a[0], out.size(), "axis");
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(axis));
  return One(std::move(out));
}

// PACK: `count` inputs of one shape stacked along a new axis.
std::vector<RuleOutput> Pack(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  if (o.count != static_cast<std::int32_t>(in.size()))
    Refuse(fmt::format("values_count {} but {} inputs", o.count, in.size()));
  std::optional<std::vector<std::int64_t>> values = std::vector<std::int64_t>{};
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (In(in, k, "input").shape != x)
      Refuse(fmt::format("input {} has shape {}, input 0 {}", k, Text(in[k].shape), Text(x)));
    if (values && x.empty() && in[k].values && in[k].values->size() == 1)
      values->push_back(in[k].values->front());
    else
      values.reset();
  }
  Shape out = x;
  const std::size_t axis = Axis(o.axis, x.size() + 1, "axis");
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(axis), static_cast<std::int64_t>(in.size()));
  return One(std::move(out), std::move(values));
}

// UNPACK: `num` outputs, the input without `axis`.
std::vector<RuleOutput> Unpack(const TfliteOpOptions& o, const std::vector<RuleInput>& in,
                               std::size_t outputs) {
  Shape x = In(in, 0, "input").shape;
  const std::size_t axis = Axis(o.axis, x.size(), "axis");
  if (x[axis] != static_cast<std::int64_t>(outputs))
    Refuse(fmt::format("dimension {} of {} is {}, but the op has {} outputs", axis, Text(x),
                       x[axis], outputs));
  x.erase(x.begin() + static_cast<std::ptrdiff_t>(axis));
  return std::vector<RuleOutput>(outputs, RuleOutput{x, std::nullopt});
}

// SHAPE: the input's shape as a 1-D tensor, with that shape as its values.
std::vector<RuleOutput> ShapeOf(const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  return One({static_cast<std::int64_t>(x.size())}, x);
}

// STRIDED_SLICE with begin, end and strides known; ellipsis and new-axis masks refused.
std::vector<RuleOutput> StridedSlice(const TfliteOpOptions& o, const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  const auto& begin = Values(in, 1, "begin");
  const auto& end = Values(in, 2, "end");
  const auto& strides = Values(in, 3, "strides");
  if (o.ellipsis_mask != 0 || o.new_axis_mask != 0)
    Refuse("ellipsis_mask and new_axis_mask are not modelled");
  const std::size_t n = begin.size();
  if (end.size() != n || strides.size() != n || n > x.size())
    Refuse(fmt::format("begin {}, end {} and strides {} do not fit input {}", Text(begin),
                       Text(end), Text(strides), Text(x)));
  Shape out;
  std::optional<std::vector<std::int64_t>> values;
  if (in[0].values && x.size() == 1) values = std::vector<std::int64_t>{};
  for (std::size_t d = 0; d < x.size(); ++d) {
    const std::int64_t dim = x[d];
    if (d >= n) {
      out.push_back(dim);
      continue;
    }
    const std::int64_t s = strides[d];
    if (s == 0) Refuse(fmt::format("stride {} is 0", d));
    const bool shrink = (o.shrink_axis_mask >> d) & 1;
    auto clamp = [&](std::int64_t v) {
      return s > 0 ? std::clamp<std::int64_t>(v, 0, dim) : std::clamp<std::int64_t>(v, -1, dim - 1);
    };
    std::int64_t b = begin[d];
    if ((o.begin_mask >> d) & 1 && !shrink) b = s > 0 ? 0 : dim - 1;
    if (b < 0) b += dim;
    std::int64_t e = o.slice_offset ? Sum(begin[d], end[d]) : end[d];
    if (shrink) {
      if (b < 0 || b >= dim) Refuse(fmt::format("index {} of dimension {} is out of range", b, d));
      e = b + 1;
    } else {
      if ((o.end_mask >> d) & 1) {
        e = s > 0 ? dim : -1;
      } else {
        if (e < 0) e += dim;
        e = clamp(e);
      }
      b = clamp(b);
    }
    const std::int64_t span = s > 0 ? e - b : b - e;
    if (s < -kMaxDimension) Refuse(fmt::format("stride {} is absurd", s));
    const std::int64_t step = s > 0 ? s : -s;
    const std::int64_t size = span <= 0 ? 0 : (span - 1) / step + 1;
    if (!shrink) out.push_back(size);
    if (values)
      for (std::int64_t k = 0; k < (shrink ? 1 : size); ++k)
        values->push_back((*in[0].values)[static_cast<std::size_t>(b + k * s)]);
  }
  return One(std::move(out), std::move(values));
}

// RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR: [N,H,W,C] -> [N, size[0], size[1], C].
std::vector<RuleOutput> Resize(const std::vector<RuleInput>& in) {
  const Shape& x = In(in, 0, "input").shape;
  NeedRank(x, 4, "the input");
  const auto& size = Values(in, 1, "size");
  if (size.size() != 2 || size[0] < 0 || size[1] < 0)
    Refuse(fmt::format("size {} is not two sizes", Text(size)));
  return One({x[0], size[0], size[1], x[3]});
}

// BATCH_MATMUL: batch dimensions broadcast, [.., r, k] x [.., k, c] -> [.., r, c] (after
// the adjoint flags).
std::vector<RuleOutput> BatchMatMul(const std::vector<RuleInput>& in, bool adj_x, bool adj_y) {
  Shape a = In(in, 0, "lhs").shape;
  Shape b = In(in, 1, "rhs").shape;
  if (a.size() < 2 || b.size() < 2) Refuse("an operand has rank below 2");
  if (adj_x) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (adj_y) std::swap(b[b.size() - 1], b[b.size() - 2]);
  if (a.back() != b[b.size() - 2])
    Refuse(fmt::format("inner dimensions differ: {} x {}", Text(a), Text(b)));
  Shape out = BroadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
  out.push_back(a[a.size() - 2]);
  out.push_back(b.back());
  return One(std::move(out));
}

bool In(std::string_view op, std::span<const std::string_view> names) {
  return std::find(names.begin(), names.end(), op) != names.end();
}
bool In(std::string_view op, std::initializer_list<std::string_view> names) {
  return In(op, std::span<const std::string_view>(names.begin(), names.size()));
}

constexpr std::string_view kSameShape[] = {"RELU",
                                           "RELU6",
                                           "RELU_N1_TO_1",
                                           "RELU_0_TO_1",
                                           "LOGISTIC",
                                           "TANH",
                                           "QUANTIZE",
                                           "DEQUANTIZE",
                                           "HARD_SWISH",
                                           "LEAKY_RELU",
                                           "ABS",
                                           "EXP",
                                           "LOG",
                                           "SQRT",
                                           "RSQRT",
                                           "NEG",
                                           "SQUARE",
                                           "FLOOR",
                                           "CEIL",
                                           "ROUND",
                                           "SIN",
                                           "COS",
                                           "ELU",
                                           "GELU",
                                           "SOFTMAX",
                                           "LOG_SOFTMAX",
                                           "L2_NORMALIZATION",
                                           "LOCAL_RESPONSE_NORMALIZATION",
                                           "CAST",
                                           "ZEROS_LIKE",
                                           "ONES_LIKE",
                                           "LOGICAL_NOT",
                                           "SIGN",
                                           "FAKE_QUANT",
                                           "ADD_N"};
constexpr std::string_view kBroadcast[] = {
    "ADD",   "SUB",       "MUL",           "DIV",         "MAXIMUM",    "MINIMUM",
    "POW",   "FLOOR_DIV", "FLOOR_MOD",     "LESS",        "LESS_EQUAL", "GREATER",
    "EQUAL", "NOT_EQUAL", "GREATER_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "SQUARED_DIFFERENCE",
    "PRELU", "SELECT_V2"};
constexpr std::string_view kOthers[] = {"ARG_MAX",
                                        "ARG_MIN",
                                        "CONV_2D",
                                        "DEPTHWISE_CONV_2D",
                                        "AVERAGE_POOL_2D",
                                        "MAX_POOL_2D",
                                        "L2_POOL_2D",
                                        "FULLY_CONNECTED",
                                        "RESHAPE",
                                        "CONCATENATION",
                                        "MEAN",
                                        "SUM",
                                        "REDUCE_MAX",
                                        "REDUCE_MIN",
                                        "REDUCE_PROD",
                                        "REDUCE_ANY",
                                        "PAD",
                                        "PADV2",
                                        "MIRROR_PAD",
                                        "TRANSPOSE",
                                        "SQUEEZE",
                                        "EXPAND_DIMS",
                                        "PACK",
                                        "UNPACK",
                                        "SHAPE",
                                        "STRIDED_SLICE",
                                        "RESIZE_BILINEAR",
                                        "RESIZE_NEAREST_NEIGHBOR",
                                        "BATCH_MATMUL"};

}  // namespace

std::int64_t WindowOutputSize(std::int32_t padding, std::int64_t in, std::int64_t filter,
                              std::int64_t stride, std::int64_t dilation) {
  if (stride < 1 || dilation < 1 || filter < 1)
    Refuse(fmt::format("stride {}, dilation {} and filter {} must each be at least 1", stride,
                       dilation, filter));
  if (in < 0) Refuse(fmt::format("input size {} is not known", in));
  if (in > kMaxDimension || stride > kMaxDimension || filter > kMaxDimension ||
      dilation > kMaxDimension || (filter - 1) > kMaxDimension / dilation)
    Refuse(fmt::format("input {}, filter {}, stride {} or dilation {} is absurd", in, filter,
                       stride, dilation));
  const std::int64_t effective = (filter - 1) * dilation + 1;
  std::int64_t out = 0;
  if (padding == 0)
    out = (in + stride - 1) / stride;
  else if (padding == 1)
    out = (in + stride - effective) / stride;
  else
    Refuse(fmt::format("padding {} is neither SAME (0) nor VALID (1)", padding));
  if (out < 0 || (padding == 1 && in < effective))
    Refuse(
        fmt::format("a window of {} (filter {}, dilation {}) does not fit in {} with VALID "
                    "padding",
                    effective, filter, dilation, in));
  return out;
}

Shape BroadcastShapes(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (std::size_t k = 0; k < rank; ++k) {
    const std::int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const std::int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      Refuse(fmt::format("shapes {} and {} do not broadcast", Text(a), Text(b)));
    out[k] = da == 1 ? db : da;
  }
  return out;
}

bool HasShapeRule(std::string_view op) {
  return In(op, kSameShape) || In(op, kBroadcast) || In(op, kOthers);
}

std::vector<RuleOutput> OutputShapes(std::string_view op, const TfliteOpOptions& o,
                                     const std::vector<RuleInput>& in, std::size_t outputs) {
  std::vector<RuleOutput> out;
  if (In(op, kSameShape))
    out = One(In(in, 0, "input").shape, op == "CAST" ? in[0].values : std::nullopt);
  else if (In(op, kBroadcast))
    out = Broadcast(in, op == "SELECT_V2" ? 3 : 2);
  else if (op == "CONV_2D" || op == "DEPTHWISE_CONV_2D")
    out = Convolution(o, in, op == "DEPTHWISE_CONV_2D");
  else if (In(op, {"AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"}))
    out = Pool(o, in);
  else if (op == "FULLY_CONNECTED")
    out = FullyConnected(o, in);
  else if (op == "RESHAPE")
    out = Reshape(o, in);
  else if (op == "CONCATENATION")
    out = Concatenation(o, in);
  else if (In(op, {"MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY"}))
    out = Reduce(o, in);
  else if (In(op, {"PAD", "PADV2", "MIRROR_PAD"}))
    out = Pad(in);
  else if (op == "TRANSPOSE")
    out = Transpose(in);
  else if (op == "SQUEEZE")
    out = Squeeze(o, in);
  else if (op == "EXPAND_DIMS")
    out = ExpandDims(in);
  else if (op == "ARG_MAX" || op == "ARG_MIN")
    out = ArgMinMax(in);
  else if (op == "PACK")
    out = Pack(o, in);
  else if (op == "UNPACK")
    out = Unpack(o, in, outputs);
  else if (op == "SHAPE")
    out = ShapeOf(in);
  else if (op == "STRIDED_SLICE")
    out = StridedSlice(o, in);
  else if (op == "RESIZE_BILINEAR" || op == "RESIZE_NEAREST_NEIGHBOR")
    out = Resize(in);
  else if (op == "BATCH_MATMUL")
    out = BatchMatMul(in, o.adj_x, o.adj_y);
  else
    Refuse("memplan has no shape rule for this operator");
  if (out.size() != outputs)
    Refuse(fmt::format("the rule gives {} outputs, the op has {}", out.size(), outputs));
  return out;
}

}  // namespace memplan::formats
