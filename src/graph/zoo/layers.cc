#include "src/graph/zoo/layers.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace memplan::graph::zoo {

namespace {

std::int64_t Elements(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

// A dimension index that may count from the end (-1 = last).
std::size_t Axis(const Shape& shape, std::int64_t axis, std::string_view where) {
  const auto rank = static_cast<std::int64_t>(shape.size());
  const std::int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) ZooBug(fmt::format("{}: axis {} out of range", where, axis));
  return static_cast<std::size_t>(a);
}

Shape Nhwc(const GraphBuilder& g, TensorId x, std::string_view where) {
  const Shape s = g.ShapeOf(x);
  if (s.size() != 4) ZooBug(fmt::format("{}: expects an NHWC input", where));
  return s;
}

// Output length of a window sweep, as TensorFlow computes it.
std::int64_t WindowOut(std::int64_t in, std::int64_t k, std::int64_t stride, Padding padding,
                       std::string_view where) {
  if (padding == Padding::kSame) return (in + stride - 1) / stride;
  if (in < k) ZooBug(fmt::format("{}: window {} larger than input {}", where, k, in));
  return (in - k) / stride + 1;
}

TensorId Int32Constant(GraphBuilder& g, std::string name, std::int64_t count) {
  return g.Constant(std::move(name), {count}, DataType::kInt32);
}

}  // namespace

TensorId Conv2D(GraphBuilder& g, TensorId x, std::string name, std::int64_t filters,
                std::int64_t kh, std::int64_t kw, std::int64_t stride, Padding padding) {
  const Shape s = Nhwc(g, x, name);
  const Shape out = {s[0], WindowOut(s[1], kh, stride, padding, name),
                     WindowOut(s[2], kw, stride, padding, name), filters};
  const TensorId w = g.Constant(name + "/weights", {filters, kh, kw, s[3]});
  const TensorId b = g.Constant(name + "/bias", {filters});
  return g.Op("CONV_2D", {x, w, b}, std::move(name), out);
}

TensorId DepthwiseConv2D(GraphBuilder& g, TensorId x, std::string name, std::int64_t k,
                         std::int64_t stride, Padding padding) {
  const Shape s = Nhwc(g, x, name);
  const Shape out = {s[0], WindowOut(s[1], k, stride, padding, name),
                     WindowOut(s[2], k, stride, padding, name), s[3]};
  const TensorId w = g.Constant(name + "/weights", {1, k, k, s[3]});
  const TensorId b = g.Constant(name + "/bias", {s[3]});
  return g.Op("DEPTHWISE_CONV_2D", {x, w, b}, std::move(name), out);
}

TensorId TemporalDepthwiseConv(GraphBuilder& g, TensorId x, std::string name, std::int64_t k) {
  const Shape s = Nhwc(g, x, name);
  if (s[2] != 1) ZooBug(fmt::format("{}: a convolution over time expects [1, T, 1, C]", name));
  const Shape out = {s[0], WindowOut(s[1], k, 1, Padding::kSame, name), 1, s[3]};
  const TensorId w = g.Constant(name + "/weights", {1, k, 1, s[3]});
  const TensorId b = g.Constant(name + "/bias", {s[3]});
  return g.Op("DEPTHWISE_CONV_2D", {x, w, b}, std::move(name), out);
}

TensorId Pool2D(GraphBuilder& g, std::string type, TensorId x, std::string name, std::int64_t k,
                std::int64_t stride, Padding padding) {
  const Shape s = Nhwc(g, x, name);
  const Shape out = {s[0], WindowOut(s[1], k, stride, padding, name),
                     WindowOut(s[2], k, stride, padding, name), s[3]};
  return g.Op(std::move(type), {x}, std::move(name), out);
}

TensorId ConcatChannels(GraphBuilder& g, const std::vector<TensorId>& parts, std::string name) {
  if (parts.empty()) ZooBug(fmt::format("{}: nothing to concatenate", name));
  Shape out = Nhwc(g, parts[0], name);
  out[3] = 0;
  for (TensorId p : parts) {
    const Shape s = Nhwc(g, p, name);
    if (s[0] != out[0] || s[1] != out[1] || s[2] != out[2])
      ZooBug(fmt::format("{}: parts {} and {} differ outside the channels", name,
                         g.ShapeOf(parts[0]), s));
    out[3] += s[3];
  }
  return g.Op("CONCATENATION", parts, std::move(name), out);
}

TensorId Binary(GraphBuilder& g, std::string type, TensorId a, TensorId b, std::string name) {
  const Shape sa = g.ShapeOf(a);
  const Shape sb = g.ShapeOf(b);
  Shape out(std::max(sa.size(), sb.size()), 1);
  // Numpy broadcasting: align from the last dimension; 1 stretches.
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t da = i < sa.size() ? sa[sa.size() - 1 - i] : 1;
    const std::int64_t db = i < sb.size() ? sb[sb.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      ZooBug(fmt::format("{}: shapes {} and {} do not broadcast", name, sa, sb));
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return g.Op(std::move(type), {a, b}, std::move(name), out, g.TypeOf(a));
}

TensorId Unary(GraphBuilder& g, std::string type, TensorId x, std::string name) {
  const Shape shape = g.ShapeOf(x);
  return g.Op(std::move(type), {x}, std::move(name), shape, g.TypeOf(x));
}

TensorId LayerNorm(GraphBuilder& g, TensorId x, const std::string& n) {
  const std::int64_t width = g.ShapeOf(x).back();
  const TensorId mean = Mean(g, x, n + "/mean", {-1}, true);
  const TensorId centered = Binary(g, "SUB", x, mean, n + "/centered");
  const TensorId squared = Binary(g, "MUL", centered, centered, n + "/squared");
  const TensorId variance = Mean(g, squared, n + "/variance", {-1}, true);
  const TensorId eps = g.Constant(n + "/epsilon", {});
  const TensorId shifted = Binary(g, "ADD", variance, eps, n + "/variance_eps");
  const TensorId inv_std = Unary(g, "RSQRT", shifted, n + "/rsqrt");
  const TensorId normed = Binary(g, "MUL", centered, inv_std, n + "/normalized");
  const TensorId scaled =
      Binary(g, "MUL", normed, g.Constant(n + "/gamma", {width}), n + "/scaled");
  return Binary(g, "ADD", scaled, g.Constant(n + "/beta", {width}), n + "/out");
}

TensorId SplitHeads(GraphBuilder& g, TensorId x, const std::string& name, std::int64_t heads,
                    bool keys) {
  const Shape s = g.ShapeOf(x);
  if (s.size() != 3 || s[2] % heads != 0)
    ZooBug(fmt::format("{}: {} heads of a {}-wide sequence", name, heads, s.back()));
  const TensorId split = Reshape(g, x, name + "/heads", {s[0], s[1], heads, s[2] / heads});
  return Transpose(
      g, split, name + "/transposed",
      keys ? std::vector<std::int64_t>{0, 2, 3, 1} : std::vector<std::int64_t>{0, 2, 1, 3});
}

TensorId SelfAttention(GraphBuilder& g, TensorId x, const std::string& n, std::int64_t heads,
                       TensorId mask, const AttentionNames& names) {
  const Shape s = g.ShapeOf(x);  // [1, T, D]
  const TensorId qkv = FullyConnected(g, x, n + names.qkv, 3 * s.back());
  const std::vector<TensorId> parts = Split(g, qkv, n + names.split, -1, 3);
  const TensorId q = SplitHeads(g, parts[0], n + "/q", heads, false);
  const TensorId k = SplitHeads(g, parts[1], n + "/k", heads, true);
  const TensorId v = SplitHeads(g, parts[2], n + "/v", heads, false);
  TensorId scores = BatchMatMul(g, q, k, n + "/scores");  // [1, heads, T, T]
  scores = Binary(g, "MUL", scores, g.Constant(n + "/scale", {}), n + "/scaled");
  if (mask >= 0) scores = Binary(g, "ADD", scores, mask, n + "/masked");
  const TensorId probs = Unary(g, "SOFTMAX", scores, n + "/probs");
  TensorId context = BatchMatMul(g, probs, v, n + "/context");  // [1, heads, T, head_dim]
  context = Transpose(g, context, n + "/merge", {0, 2, 1, 3});
  context = Reshape(g, context, n + "/merged", s);
  return FullyConnected(g, context, n + names.out, s.back());
}

TensorId FullyConnected(GraphBuilder& g, TensorId x, std::string name, std::int64_t units) {
  Shape out = g.ShapeOf(x);
  if (out.empty()) ZooBug(fmt::format("{}: scalar input", name));
  const TensorId w = g.Constant(name + "/weights", {units, out.back()});
  const TensorId b = g.Constant(name + "/bias", {units});
  out.back() = units;
  return g.Op("FULLY_CONNECTED", {x, w, b}, std::move(name), out);
}

TensorId Mean(GraphBuilder& g, TensorId x, std::string name, const std::vector<std::int64_t>& axes,
              bool keep_dims) {
  const Shape s = g.ShapeOf(x);
  std::vector<bool> reduced(s.size(), false);
  for (std::int64_t a : axes) reduced[Axis(s, a, name)] = true;
  Shape out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!reduced[i])
      out.push_back(s[i]);
    else if (keep_dims)
      out.push_back(1);
  }
  const TensorId axes_t = Int32Constant(g, name + "/axes", static_cast<std::int64_t>(axes.size()));
  return g.Op("MEAN", {x, axes_t}, std::move(name), out, g.TypeOf(x));
}

TensorId Reshape(GraphBuilder& g, TensorId x, std::string name, Shape shape) {
  if (Elements(shape) != Elements(g.ShapeOf(x)))
    ZooBug(fmt::format("{}: cannot reshape {} to {}", name, g.ShapeOf(x), shape));
  const TensorId shape_t =
      Int32Constant(g, name + "/shape", static_cast<std::int64_t>(shape.size()));
  return g.Op("RESHAPE", {x, shape_t}, std::move(name), std::move(shape), g.TypeOf(x));
}

TensorId Transpose(GraphBuilder& g, TensorId x, std::string name,
                   const std::vector<std::int64_t>& perm) {
  const Shape s = g.ShapeOf(x);
  if (perm.size() != s.size()) ZooBug(fmt::format("{}: permutation of the wrong rank", name));
  Shape out;
  for (std::int64_t p : perm) out.push_back(s[Axis(s, p, name)]);
  const TensorId perm_t = Int32Constant(g, name + "/perm", static_cast<std::int64_t>(perm.size()));
  return g.Op("TRANSPOSE", {x, perm_t}, std::move(name), out, g.TypeOf(x));
}

TensorId BatchMatMul(GraphBuilder& g, TensorId a, TensorId b, std::string name) {
  const Shape sa = g.ShapeOf(a);
  const Shape sb = g.ShapeOf(b);
  if (sa.size() < 2 || sa.size() != sb.size() ||
      !std::equal(sa.begin(), sa.end() - 2, sb.begin()) || sa[sa.size() - 1] != sb[sb.size() - 2])
    ZooBug(fmt::format("{}: cannot multiply {} by {}", name, sa, sb));
  Shape out = sa;
  out.back() = sb.back();
  return g.Op("BATCH_MATMUL", {a, b}, std::move(name), out, g.TypeOf(a));
}

TensorId Gather(GraphBuilder& g, TensorId params, TensorId indices, std::string name) {
  const Shape sp = g.ShapeOf(params);
  if (sp.size() != 2) ZooBug(fmt::format("{}: expects [rows, width] params", name));
  Shape out = g.ShapeOf(indices);
  out.push_back(sp[1]);
  return g.Op("GATHER", {params, indices}, std::move(name), out, g.TypeOf(params));
}

std::vector<TensorId> Split(GraphBuilder& g, TensorId x, std::string name, std::int64_t axis,
                            std::int64_t parts) {
  Shape part = g.ShapeOf(x);
  const std::size_t a = Axis(part, axis, name);
  if (parts <= 0 || part[a] % parts != 0)
    ZooBug(fmt::format("{}: {} does not split into {} parts", name, part[a], parts));
  part[a] /= parts;
  std::vector<std::string> names;
  for (std::int64_t i = 0; i < parts; ++i) names.push_back(fmt::format("{}_{}", name, i));
  const TensorId axis_t = g.Constant(name + "/axis", {}, DataType::kInt32);
  return g.MultiOp("SPLIT", {axis_t, x}, names,
                   std::vector<Shape>(static_cast<std::size_t>(parts), part), g.TypeOf(x));
}

TensorId KerasClassifier(GraphBuilder& g, TensorId x) {
  x = Mean(g, x, "avg_pool", {1, 2}, false);
  x = FullyConnected(g, x, "predictions", 1000);
  return Unary(g, "SOFTMAX", x, "predictions/Softmax");
}

TensorId SlimClassifier(GraphBuilder& g, TensorId x, const std::string& scope,
                        const std::string& pool_name, std::int64_t pool_stride,
                        const std::string& squeeze_name) {
  x = Pool2D(g, "AVERAGE_POOL_2D", x, scope + "/Logits/" + pool_name, 7, pool_stride,
             Padding::kValid);
  x = Conv2D(g, x, scope + "/Logits/Conv2d_1c_1x1", 1001, 1, 1, 1);
  x = Reshape(g, x, scope + "/Logits/" + squeeze_name, {1, 1001});
  return Unary(g, "SOFTMAX", x, scope + "/Predictions/Softmax");
}

}  // namespace memplan::graph::zoo
