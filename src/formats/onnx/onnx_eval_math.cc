// Operators that compute values: Cast, CastLike, elementwise arithmetic, comparisons and
// logic (numpy broadcasting), Where, Max/Min/Sum, Range and the Reduce family. Integer
// arithmetic is checked: an overflow or a division by zero does not fold.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "src/formats/onnx/onnx_eval.h"

namespace memplan::formats::onnx_eval {

namespace {

bool IsRealType(std::int32_t type) {
  return type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE;
}

// `v` rounded to the element type; beyond float's range a FLOAT is infinite (converting
// such a double to float is undefined in C++).
double StoreReal(std::int32_t type, double v) {
  if (type != onnx::TensorProto::FLOAT || std::isnan(v)) return v;
  constexpr double kMost = std::numeric_limits<float>::max();
  if (v > kMost) return std::numeric_limits<double>::infinity();
  if (v < -kMost) return -std::numeric_limits<double>::infinity();
  return static_cast<double>(static_cast<float>(v));
}

// Element i of `t` as a double or an integer, whichever `t` holds.
double RealAt(const ConstTensor& t, std::size_t i) {
  return t.IsReal() ? t.reals[i] : static_cast<double>(t.ints[i]);
}

std::optional<ConstTensor> CastTo(const ConstTensor& in, std::int32_t to) {
  if (!IsFoldableType(to)) return std::nullopt;
  ConstTensor out;
  out.type = to;
  out.dims = in.dims;
  const auto n = static_cast<std::size_t>(in.Elements());
  for (std::size_t i = 0; i < n; ++i) {
    if (IsRealType(to)) {
      out.reals.push_back(StoreReal(to, RealAt(in, i)));
    } else if (in.IsReal()) {
      const double v = in.reals[i];
      if (to == onnx::TensorProto::BOOL) {
        out.ints.push_back(v != 0.0);
        continue;
      }
      // Out of int64's range (or NaN) has no defined result: do not fold.
      if (!(v > -9.2e18 && v < 9.2e18)) return std::nullopt;
      out.ints.push_back(WrapInteger(to, static_cast<std::int64_t>(std::trunc(v))));
    } else {
      out.ints.push_back(WrapInteger(to, in.ints[i]));
    }
  }
  return out;
}

using IntOp = std::function<std::optional<std::int64_t>(std::int64_t, std::int64_t)>;
using RealOp = std::function<double(double, double)>;

// The integer and real forms of a binary arithmetic operator; nullopt for other names.
std::optional<std::pair<IntOp, RealOp>> Arithmetic(const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  using R = std::optional<std::int64_t>;
  if (op == "Add")
    return std::pair{IntOp([](std::int64_t a, std::int64_t b) -> R {
                       std::int64_t r;
                       return __builtin_add_overflow(a, b, &r) ? R{} : R{r};
                     }),
                     RealOp(std::plus<double>())};
  if (op == "Sub")
    return std::pair{IntOp([](std::int64_t a, std::int64_t b) -> R {
                       std::int64_t r;
                       return __builtin_sub_overflow(a, b, &r) ? R{} : R{r};
                     }),
                     RealOp(std::minus<double>())};
  if (op == "Mul")
    return std::pair{IntOp([](std::int64_t a, std::int64_t b) -> R {
                       std::int64_t r;
                       return __builtin_mul_overflow(a, b, &r) ? R{} : R{r};
                     }),
                     RealOp(std::multiplies<double>())};
  if (op == "Div")
    return std::pair{IntOp([](std::int64_t a, std::int64_t b) -> R {
                       if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min()))
                         return R{};
                       return a / b;  // truncating, as C++ and ONNX Runtime divide integers
                     }),
                     RealOp(std::divides<double>())};
  if (op == "Mod") {
    const bool fmod = IntAttr(node, "fmod", 0) != 0;
    return std::pair{IntOp([fmod](std::int64_t a, std::int64_t b) -> R {
                       if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min()))
                         return R{};
                       std::int64_t r = a % b;
                       // fmod=0: the result takes the divisor's sign (Python's %).
                       if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
                       return r;
                     }),
                     RealOp([fmod](double a, double b) {
                       double r = std::fmod(a, b);
                       if (!fmod && r != 0.0 && ((r < 0) != (b < 0))) r += b;
                       return r;
                     })};
  }
  if (op == "Max" || op == "Min") {
    const bool max = op == "Max";
    return std::pair{
        IntOp([max](std::int64_t a, std::int64_t b) -> R {
          return max ? std::max(a, b) : std::min(a, b);
        }),
        RealOp([max](double a, double b) { return max ? std::max(a, b) : std::min(a, b); })};
  }
  if (op == "Sum")
    return Arithmetic([] {
      onnx::NodeProto add;
      add.set_op_type("Add");
      return add;
    }());
  return std::nullopt;
}

// Comparisons and logic: a bool result from two values.
std::optional<std::function<bool(double, double)>> Predicate(const std::string& op) {
  if (op == "Equal") return [](double a, double b) { return a == b; };
  if (op == "Less") return [](double a, double b) { return a < b; };
  if (op == "Greater") return [](double a, double b) { return a > b; };
  if (op == "LessOrEqual") return [](double a, double b) { return a <= b; };
  if (op == "GreaterOrEqual") return [](double a, double b) { return a >= b; };
  if (op == "And") return [](double a, double b) { return a != 0 && b != 0; };
  if (op == "Or") return [](double a, double b) { return a != 0 || b != 0; };
  if (op == "Xor") return [](double a, double b) { return (a != 0) != (b != 0); };
  return std::nullopt;
}

// Integers compare exactly (doubles lose precision past 2^53).
bool CompareInts(const std::string& op, std::int64_t a, std::int64_t b) {
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  if (op == "And") return a != 0 && b != 0;
  if (op == "Or") return a != 0 || b != 0;
  return (a != 0) != (b != 0);  // Xor
}

std::optional<ConstTensor> Binary(const onnx::NodeProto& node, const ConstTensor& a,
                                  const ConstTensor& b) {
  if (a.type != b.type) return std::nullopt;
  const auto dims = Broadcast(a.dims, b.dims);
  if (!dims || !CappedElements(*dims)) return std::nullopt;
  const auto ia = BroadcastIndices(a.dims, *dims);
  const auto ib = BroadcastIndices(b.dims, *dims);
  ConstTensor out;
  out.dims = *dims;
  const std::string& op = node.op_type();
  if (const auto predicate = Predicate(op)) {
    out.type = onnx::TensorProto::BOOL;
    for (std::size_t i = 0; i < ia.size(); ++i) {
      const auto x = static_cast<std::size_t>(ia[i]);
      const auto y = static_cast<std::size_t>(ib[i]);
      out.ints.push_back(a.IsReal() ? (*predicate)(a.reals[x], b.reals[y])
                                    : CompareInts(op, a.ints[x], b.ints[y]));
    }
    return out;
  }
  const auto arithmetic = Arithmetic(node);
  if (!arithmetic || a.type == onnx::TensorProto::BOOL) return std::nullopt;
  out.type = a.type;
  for (std::size_t i = 0; i < ia.size(); ++i) {
    const auto x = static_cast<std::size_t>(ia[i]);
    const auto y = static_cast<std::size_t>(ib[i]);
    if (a.IsReal()) {
      out.reals.push_back(StoreReal(a.type, arithmetic->second(a.reals[x], b.reals[y])));
    } else {
      const auto r = arithmetic->first(a.ints[x], b.ints[y]);
      if (!r || WrapInteger(a.type, *r) != *r) return std::nullopt;  // overflow in its type
      out.ints.push_back(*r);
    }
  }
  return out;
}

std::optional<ConstTensor> Unary(const std::string& op, const ConstTensor& in) {
  ConstTensor out = in;
  if (op == "Not") {
    if (in.type != onnx::TensorProto::BOOL) return std::nullopt;
    for (auto& v : out.ints) v = v == 0;
    return out;
  }
  if (in.IsReal()) {
    std::function<double(double)> f;
    if (op == "Neg") f = [](double v) { return -v; };
    if (op == "Abs") f = [](double v) { return std::fabs(v); };
    if (op == "Floor") f = [](double v) { return std::floor(v); };
    if (op == "Ceil") f = [](double v) { return std::ceil(v); };
    if (op == "Round") f = [](double v) { return std::nearbyint(v); };  // half to even
    if (op == "Sqrt") f = [](double v) { return std::sqrt(v); };
    if (op == "Reciprocal") f = [](double v) { return 1.0 / v; };
    if (op == "Relu") f = [](double v) { return std::max(v, 0.0); };
    if (op == "Sign") f = [](double v) { return static_cast<double>((v > 0) - (v < 0)); };
    if (!f) return std::nullopt;
    for (auto& v : out.reals) v = StoreReal(in.type, f(v));
    return out;
  }
  for (auto& v : out.ints) {
    if (op == "Neg" || op == "Abs") {
      if (op == "Abs" && v >= 0) continue;
      if (v == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
      if (WrapInteger(in.type, -v) != -v) return std::nullopt;  // unsigned or overflow
      v = -v;
    } else if (op == "Sign") {
      v = (v > 0) - (v < 0);
    } else if (op == "Relu") {
      v = std::max<std::int64_t>(v, 0);
    } else if (op != "Floor" && op != "Ceil" && op != "Round") {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<ConstTensor> Where(const Inputs& in) {
  if (in.size() != 3 || !in[1] || !in[2] || in[0]->type != onnx::TensorProto::BOOL ||
      in[1]->type != in[2]->type)
    return std::nullopt;
  auto dims = Broadcast(in[0]->dims, in[1]->dims);
  if (dims) dims = Broadcast(*dims, in[2]->dims);
  if (!dims || !CappedElements(*dims)) return std::nullopt;
  const auto ic = BroadcastIndices(in[0]->dims, *dims);
  const auto ix = BroadcastIndices(in[1]->dims, *dims);
  const auto iy = BroadcastIndices(in[2]->dims, *dims);
  ConstTensor both;  // x's elements then y's: pick from one flat list
  both.type = in[1]->type;
  both.ints = in[1]->ints;
  both.ints.insert(both.ints.end(), in[2]->ints.begin(), in[2]->ints.end());
  both.reals = in[1]->reals;
  both.reals.insert(both.reals.end(), in[2]->reals.begin(), in[2]->reals.end());
  std::vector<std::int64_t> index;
  for (std::size_t i = 0; i < ic.size(); ++i)
    index.push_back(in[0]->ints[static_cast<std::size_t>(ic[i])] != 0 ? ix[i]
                                                                      : in[1]->Elements() + iy[i]);
  return Take(both, *dims, index);
}

std::optional<ConstTensor> Range(const Inputs& in) {
  if (in.size() != 3 || !in[1] || !in[2]) return std::nullopt;
  const ConstTensor& start = *in[0];
  if (in[1]->type != start.type || in[2]->type != start.type || start.Elements() != 1 ||
      in[1]->Elements() != 1 || in[2]->Elements() != 1)
    return std::nullopt;
  ConstTensor out;
  out.type = start.type;
  if (start.IsReal()) {
    const double s = start.reals[0], limit = in[1]->reals[0], delta = in[2]->reals[0];
    const double n = std::ceil((limit - s) / delta);
    if (delta == 0.0 || !(n < static_cast<double>(kMaxFoldElements + 1))) return std::nullopt;
    const auto count = n > 0 ? static_cast<std::int64_t>(n) : 0;
    for (std::int64_t i = 0; i < count; ++i)
      out.reals.push_back(StoreReal(out.type, s + static_cast<double>(i) * delta));
    out.dims = {count};
    return out;
  }
  const std::int64_t s = start.ints[0], limit = in[1]->ints[0], delta = in[2]->ints[0];
  if (delta == 0) return std::nullopt;
  // Count in double first so extreme values cannot overflow.
  const double n =
      std::ceil((static_cast<double>(limit) - static_cast<double>(s)) / static_cast<double>(delta));
  if (!(n < static_cast<double>(kMaxFoldElements + 1))) return std::nullopt;
  const auto count = n > 0 ? static_cast<std::int64_t>(n) : 0;
  for (std::int64_t i = 0, v = s; i < count; ++i) {
    out.ints.push_back(WrapInteger(out.type, v));
    if (i + 1 < count && __builtin_add_overflow(v, delta, &v)) return std::nullopt;
  }
  out.dims = {count};
  return out;
}

// ReduceSum takes axes as an input from opset 13, the others from opset 18.
std::optional<ConstTensor> Reduce(const onnx::NodeProto& node, std::int64_t opset,
                                  const Inputs& in) {
  const std::string& op = node.op_type();
  const ConstTensor& data = *in[0];
  const auto rank = static_cast<std::int64_t>(data.dims.size());
  const bool axes_input = op == "ReduceSum" ? opset >= 13 : opset >= 18;
  std::optional<Dims> axes;
  if (axes_input) {
    if (in.size() > 1 && in[1]) {
      axes = IntList(in[1]);
      if (!axes) return std::nullopt;
    }
  } else {
    axes = IntsAttr(node, "axes");
  }
  if (axes && axes->empty()) axes.reset();
  if (!axes && IntAttr(node, "noop_with_empty_axes", 0) != 0) return data;
  std::vector<bool> reduced(static_cast<std::size_t>(rank), !axes.has_value());
  if (axes)
    for (const std::int64_t a : *axes) {
      const auto axis = NormalizeAxis(a, rank);
      if (!axis) return std::nullopt;
      reduced[static_cast<std::size_t>(*axis)] = true;
    }
  const bool keep = IntAttr(node, "keepdims", 1) != 0;
  Dims dims, kept;  // output dims; the input dims with reduced axes set to 1
  for (std::int64_t i = 0; i < rank; ++i) {
    const bool r = reduced[static_cast<std::size_t>(i)];
    kept.push_back(r ? 1 : data.dims[static_cast<std::size_t>(i)]);
    if (!r || keep) dims.push_back(kept.back());
  }
  if (data.Elements() == 0) return std::nullopt;  // min/max of nothing is undefined
  // Each input element's slot in the kept-dims layout.
  std::int64_t slots = 1;
  for (const std::int64_t d : kept) slots *= d;
  Dims stride(kept.size(), 1);
  for (std::size_t i = kept.size(); i-- > 1;) stride[i - 1] = stride[i] * kept[i];
  std::vector<std::optional<double>> real(static_cast<std::size_t>(slots));
  std::vector<std::optional<std::int64_t>> integer(static_cast<std::size_t>(slots));
  Dims position(kept.size(), 0);
  for (std::int64_t n = 0; n < data.Elements(); ++n) {
    std::size_t slot = 0;
    for (std::size_t i = 0; i < kept.size(); ++i)
      if (!reduced[i]) slot += static_cast<std::size_t>(position[i] * stride[i]);
    const auto k = static_cast<std::size_t>(n);
    if (data.IsReal()) {
      const double v = data.reals[k];
      auto& acc = real[slot];
      if (!acc)
        acc = v;
      else if (op == "ReduceSum")
        *acc += v;
      else if (op == "ReduceProd")
        *acc *= v;
      else if (op == "ReduceMin")
        *acc = std::min(*acc, v);
      else
        *acc = std::max(*acc, v);
    } else {
      const std::int64_t v = data.ints[k];
      auto& acc = integer[slot];
      if (!acc)
        acc = v;
      else if (op == "ReduceSum" && __builtin_add_overflow(*acc, v, &*acc))
        return std::nullopt;
      else if (op == "ReduceProd" && __builtin_mul_overflow(*acc, v, &*acc))
        return std::nullopt;
      else if (op == "ReduceMin")
        *acc = std::min(*acc, v);
      else if (op == "ReduceMax")
        *acc = std::max(*acc, v);
    }
    for (std::size_t i = data.dims.size(); i-- > 0;) {
      if (++position[i] < data.dims[i]) break;
      position[i] = 0;
    }
  }
  ConstTensor out;
  out.type = data.type;
  out.dims = dims;
  for (std::size_t s = 0; s < real.size(); ++s) {
    if (data.IsReal()) {
      out.reals.push_back(StoreReal(data.type, *real[s]));
    } else {
      if (WrapInteger(data.type, *integer[s]) != *integer[s]) return std::nullopt;
      out.ints.push_back(*integer[s]);
    }
  }
  return out;
}

}  // namespace

std::optional<ConstTensor> EvaluateMath(const onnx::NodeProto& node, std::int64_t opset,
                                        const Inputs& in) {
  const std::string& op = node.op_type();
  if (in.empty() || !in[0]) return std::nullopt;
  for (const ConstTensor* t : in)
    if (!t) return std::nullopt;  // no operator here has optional inputs in the middle
  if (op == "Cast") return CastTo(*in[0], static_cast<std::int32_t>(IntAttr(node, "to", 0)));
  if (op == "CastLike") return in.size() == 2 ? CastTo(*in[0], in[1]->type) : std::nullopt;
  if (op == "Where") return Where(in);
  if (op == "Range") return Range(in);
  if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMin" || op == "ReduceMax")
    return Reduce(node, opset, in);
  if (in.size() == 1) {
    if (op == "Max" || op == "Min" || op == "Sum") return *in[0];
    return Unary(op, *in[0]);
  }
  if (in.size() == 2) return Binary(node, *in[0], *in[1]);
  if (op != "Max" && op != "Min" && op != "Sum") return std::nullopt;
  auto acc = Binary(node, *in[0], *in[1]);
  for (std::size_t i = 2; acc && i < in.size(); ++i) acc = Binary(node, *acc, *in[i]);
  return acc;
}

}  // namespace memplan::formats::onnx_eval
