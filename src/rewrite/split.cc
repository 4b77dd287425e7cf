// The patch rewrite (include/memplan/split.h). Geometry first: for a patch of the stage's
// output, walk the stage backwards; each op needs the input rows
// [a*stride - pad, (b-1)*stride - pad + effective_filter) for output rows [a, b). Clipped
// to the tensor, what lies outside is exactly the original padding at the image border,
// which the patch writes as an explicit PAD; inside, the op runs VALID on the clipped,
// padded window and computes the same sums in the same order as the original.
#include "memplan/split.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "memplan/error.h"
#include "memplan/tflite.h"
#include "src/rewrite/model_io.h"

namespace memplan {

namespace {

using rewrite::fb::Padding;
using rewrite::fb::TensorType;
namespace fb = rewrite::fb;

// The most inputs TFLM's CONCATENATION kernel takes (kMaxInputNum in its concatenation.cc).
constexpr std::size_t kMaxConcatenationInputs = 10;

// How one stage op touches space.
struct SpatialOp {
  int index = 0;                   // op index in subgraph 0
  std::string type;                // CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D
  int input = 0;                   // tensor read (input 0)
  int input2 = -1;                 // ADD: the other operand (a stage tensor), else -1
  int output = 0;                  // tensor written
  int in_h = 0, in_w = 0;          // input height and width
  int out_h = 0, out_w = 0;        // output height and width
  int kernel_h = 0, kernel_w = 0;  // effective (dilated) filter extent
  int stride_h = 1, stride_w = 1;  // strides
  int pad_top = 0, pad_left = 0;   // the original padding before the first row / column
  bool pool = false;               // a pool: explicit padding would change it (never allowed)
  bool pad = false;                // a PAD op: only its border part is written (as a patch's PAD)
};

// A half-open range of rows or columns, with the padding a window needs beyond it.
struct Window {
  int lo = 0, hi = 0;          // [lo, hi) inside the tensor
  int pad_lo = 0, pad_hi = 0;  // padding before lo and after hi
};

Window InputWindow(int out_lo, int out_hi, int stride, int pad, int kernel, int size) {
  const int start = out_lo * stride - pad;
  const int end = (out_hi - 1) * stride - pad + kernel;
  Window w;
  w.lo = std::max(0, start);
  w.hi = std::min(size, end);
  w.pad_lo = w.lo - start;
  w.pad_hi = end - w.hi;
  return w;
}

int SamePaddingBefore(int in, int kernel, int stride, int out) {
  return std::max((out - 1) * stride + kernel - in, 0) / 2;
}

int OutputSize(Padding padding, int in, int kernel, int stride) {
  if (padding == Padding::SAME) return (in + stride - 1) / stride;
  return (in - kernel + stride) / stride;
}

// Whether SAME padding, as TFLite computes it for an op on `in` of one dimension (the
// window, without its padding) giving `out`, pads exactly `in`'s pad_lo before and pad_hi
// after: output size ceil(in / stride), total (out-1)*stride + filter - in, before total/2.
// Then the op reads the same elements in the same order as the original (positions
// outside skipped, as there), so SAME on the window is exact.
bool SameCoversDimension(const Window& in, const Window& out, int stride, int kernel) {
  const int size = in.hi - in.lo, produced = out.hi - out.lo;
  if (OutputSize(Padding::SAME, size, kernel, stride) != produced) return false;
  const int total = std::max((produced - 1) * stride + kernel - size, 0);
  return total / 2 == in.pad_lo && total - total / 2 == in.pad_hi;
}

bool SameCovers(const SpatialOp& s, const Window& rows, const Window& out_rows, const Window& cols,
                const Window& out_cols) {
  return SameCoversDimension(rows, out_rows, s.stride_h, s.kernel_h) &&
         SameCoversDimension(cols, out_cols, s.stride_w, s.kernel_w);
}

// The bytes, once memplan's reader took them (InputError otherwise): the rewrite walks the
// model's index lists (tensors, buffers, inputs, outputs) trusting that each is in range,
// which flatbuffers' verifier does not check and the reader's validation does.
std::string_view ReadableModel(std::string_view bytes, std::string_view source) {
  ParseTflite(bytes, source);
  return bytes;
}

class SplitModel {
 public:
  SplitModel(std::string_view bytes, std::string_view source)
      : model_(rewrite::LoadModel(ReadableModel(bytes, source), source, &unknown_options_)),
        source_(source) {
    if (model_->subgraphs.empty() || !model_->subgraphs[0])
      throw InputError(fmt::format("{}: the model has no subgraph", source));
    const auto& sg = *model_->subgraphs[0];
    readers_.assign(sg.tensors.size(), 0);
    for (const auto& op : sg.operators)
      for (const int t : op->inputs)
        if (t >= 0 && static_cast<std::size_t>(t) < readers_.size()) ++readers_[t];
    for (const int t : sg.outputs)
      if (t >= 0 && static_cast<std::size_t>(t) < readers_.size()) ++readers_[t];
  }

  const fb::ModelT& model() const { return *model_; }
  // Non-empty when an op's options would be lost by rewriting (the model is left alone).
  const std::string& unknown_options() const { return unknown_options_; }
  const std::string& source() const { return source_; }

  std::string TypeOf(int op) const {
    return BuiltinOperatorName(
        rewrite::BuiltinCodeOf(*model_, *model_->subgraphs[0]->operators[op]));
  }

  // Holds data in the model (a buffer other than the empty sentinel, not empty).
  bool IsConstant(int tensor) const {
    const auto buffer = model_->subgraphs[0]->tensors[static_cast<std::size_t>(tensor)]->buffer;
    return buffer != 0 && buffer < model_->buffers.size() && model_->buffers[buffer] &&
           !model_->buffers[buffer]->data.empty();
  }

  // The op as a stage member, or why it cannot be one.
  std::optional<SpatialOp> Spatial(int index, std::string& why) const {
    const auto& sg = *model_->subgraphs[0];
    const auto& op = *sg.operators[static_cast<std::size_t>(index)];
    SpatialOp s;
    s.index = index;
    s.type = TypeOf(index);
    const auto fail = [&](std::string text) {
      why = fmt::format("op {} ({}) {}", index, s.type, std::move(text));
      return std::nullopt;
    };
    const bool conv = s.type == "CONV_2D", depthwise = s.type == "DEPTHWISE_CONV_2D";
    s.pool = s.type == "AVERAGE_POOL_2D" || s.type == "MAX_POOL_2D";
    s.pad = s.type == "PAD";
    const bool add = s.type == "ADD";
    if (!conv && !depthwise && !s.pool && !s.pad && !add)
      return fail("is not a spatial op the rewrite splits");
    if (op.inputs.empty() || op.outputs.size() != 1) return fail("has no input or output");
    s.input = op.inputs[0];
    s.output = op.outputs[0];
    const auto valid = [&](int t) {
      return t >= 0 && static_cast<std::size_t>(t) < sg.tensors.size();
    };
    if (!valid(s.input) || !valid(s.output)) return fail("refers to a tensor that does not exist");
    for (std::size_t i = 1; i < op.inputs.size(); ++i)
      if (!add && op.inputs[i] >= 0 && (!valid(op.inputs[i]) || !IsConstant(op.inputs[i])))
        return fail("has weights that are not constants");
    const auto& in = *sg.tensors[s.input];
    const auto& out = *sg.tensors[s.output];
    if (in.shape.size() != 4 || out.shape.size() != 4) return fail("is not on NHWC tensors");
    if (in.shape[0] != 1) return fail("has a batch other than 1");
    if (in.type != out.type || (in.type != TensorType::FLOAT32 && in.type != TensorType::INT8 &&
                                in.type != TensorType::UINT8))
      return fail("is not float32, int8 or uint8");
    if (IsConstant(s.input)) return fail("reads a constant");
    s.in_h = in.shape[1], s.in_w = in.shape[2], s.out_h = out.shape[1], s.out_w = out.shape[2];
    if (s.pad) return PadOp(s, op, fail);
    if (add) {
      // Element by element on equal shapes: each patch adds its own part of both operands.
      if (op.inputs.size() != 2 || !valid(op.inputs[1])) return fail("has no second operand");
      const auto& other = *sg.tensors[op.inputs[1]];
      if (IsConstant(op.inputs[1]) || other.shape != in.shape || in.shape != out.shape ||
          other.type != in.type)
        return fail("does not add two stage tensors of the output's shape");
      s.input2 = op.inputs[1];
      s.kernel_h = s.kernel_w = 1;
      return s;
    }
    Padding padding = Padding::VALID;
    int dilation_h = 1, dilation_w = 1;
    if (s.pool) {
      const auto* o = op.builtin_options.AsPool2DOptions();
      if (!o) return fail("has no pool options");
      padding = o->padding, s.stride_h = o->stride_h, s.stride_w = o->stride_w;
      s.kernel_h = o->filter_height, s.kernel_w = o->filter_width;
    } else {
      if (op.inputs.size() < 2 || !valid(op.inputs[1])) return fail("has no filter");
      const auto& filter = *sg.tensors[op.inputs[1]];
      if (filter.shape.size() != 4) return fail("has a filter that is not 4-D");
      s.kernel_h = filter.shape[1], s.kernel_w = filter.shape[2];
      if (conv) {
        const auto* o = op.builtin_options.AsConv2DOptions();
        if (!o) return fail("has no options");
        padding = o->padding, s.stride_h = o->stride_h, s.stride_w = o->stride_w;
        dilation_h = o->dilation_h_factor, dilation_w = o->dilation_w_factor;
      } else {
        const auto* o = op.builtin_options.AsDepthwiseConv2DOptions();
        if (!o) return fail("has no options");
        padding = o->padding, s.stride_h = o->stride_h, s.stride_w = o->stride_w;
        dilation_h = o->dilation_h_factor, dilation_w = o->dilation_w_factor;
      }
    }
    if (s.stride_h < 1 || s.stride_w < 1 || dilation_h < 1 || dilation_w < 1 || s.kernel_h < 1 ||
        s.kernel_w < 1)
      return fail("has a stride, dilation or filter below 1");
    s.kernel_h = (s.kernel_h - 1) * dilation_h + 1;
    s.kernel_w = (s.kernel_w - 1) * dilation_w + 1;
    if (OutputSize(padding, s.in_h, s.kernel_h, s.stride_h) != s.out_h ||
        OutputSize(padding, s.in_w, s.kernel_w, s.stride_w) != s.out_w)
      return fail("has an output shape that does not follow from its padding");
    if (padding == Padding::SAME) {
      s.pad_top = SamePaddingBefore(s.in_h, s.kernel_h, s.stride_h, s.out_h);
      s.pad_left = SamePaddingBefore(s.in_w, s.kernel_w, s.stride_w, s.out_w);
      const bool padded = (s.out_h - 1) * s.stride_h + s.kernel_h > s.in_h ||
                          (s.out_w - 1) * s.stride_w + s.kernel_w > s.in_w;
      // A pool leaves the padding out of its window (average: divides by the elements
      // inside), which explicit padding cannot reproduce.
      if (s.pool && padded) return fail("pools over a padded border (not exact when split)");
    }
    return s;
  }

  // A PAD op of height and width only, with the zero (point) as its value: a stage member
  // with a 1x1 window whose padding is the PAD's own.
  template <typename Fail>
  std::optional<SpatialOp> PadOp(SpatialOp s, const fb::OperatorT& op, Fail fail) const {
    const auto& sg = *model_->subgraphs[0];
    if (op.inputs.size() != 2) return fail("has a pad value input");
    const auto& paddings = *sg.tensors[op.inputs[1]];
    const auto& data = model_->buffers[paddings.buffer]->data;
    if (paddings.type != TensorType::INT32 || data.size() != 32)
      return fail("has paddings that are not a 4x2 int32 constant");
    std::int32_t p[8];
    std::memcpy(p, data.data(), sizeof(p));
    if (p[0] || p[1] || p[6] || p[7]) return fail("pads the batch or channels");
    if (p[2] < 0 || p[3] < 0 || p[4] < 0 || p[5] < 0) return fail("has negative paddings");
    if (s.in_h + p[2] + p[3] != s.out_h || s.in_w + p[4] + p[5] != s.out_w)
      return fail("has an output shape that does not follow from its paddings");
    s.kernel_h = s.kernel_w = 1;
    s.pad_top = p[2];
    s.pad_left = p[4];
    return s;
  }

  // Maximal chains of ops that may form a stage.
  std::vector<SplitChain> Chains() const {
    std::vector<SplitChain> chains;
    const auto& sg = *model_->subgraphs[0];
    const int n = static_cast<int>(sg.operators.size());
    std::string why;
    for (int i = 0; i < n;) {
      if (!Spatial(i, why)) {
        ++i;
        continue;
      }
      SplitChain chain{{i, i}, {}};
      while (true) {
        const int next = chain.ops.last_op + 1;
        if (next >= n) {
          chain.ends_why = "the subgraph ends";
          break;
        }
        const int produced = sg.operators[chain.ops.last_op]->outputs[0];
        const auto s = Spatial(next, why);
        if (!s) {
          chain.ends_why = why;
          break;
        }
        (void)produced;
        if (!ReadsOnlyStage(*s, chain.ops.first_op, next)) {
          chain.ends_why =
              fmt::format("op {} ({}) reads a tensor from outside the chain", next, s->type);
          break;
        }
        chain.ops.last_op = next;
      }
      chains.push_back(chain);
      i = chain.ops.last_op + 1;
    }
    return chains;
  }

  // Whether every tensor `s` reads is written by ops first..before-1 or is op first's input.
  bool ReadsOnlyStage(const SpatialOp& s, int first, int before) const {
    const auto& sg = *model_->subgraphs[0];
    const int external = sg.operators[first]->inputs[0];
    for (const int t : {s.input, s.input2}) {
      if (t < 0 || t == external) continue;
      bool produced = false;
      for (int i = first; i < before && !produced; ++i)
        produced = sg.operators[i]->outputs.size() == 1 && sg.operators[i]->outputs[0] == t;
      if (!produced) return false;
    }
    return true;
  }

  // The stage's ops checked, or InputError.
  std::vector<SpatialOp> Stage(SplitStage stage) const {
    const auto& sg = *model_->subgraphs[0];
    const int n = static_cast<int>(sg.operators.size());
    if (stage.first_op < 0 || stage.last_op >= n || stage.first_op > stage.last_op)
      throw InputError(fmt::format("{}: stage {}..{} is not a range of the {} ops", source_,
                                   stage.first_op, stage.last_op, n));
    std::vector<SpatialOp> ops;
    std::string why;
    for (int i = stage.first_op; i <= stage.last_op; ++i) {
      const auto s = Spatial(i, why);
      if (!s) throw InputError(fmt::format("{}: cannot split: {}", source_, why));
      if (!ReadsOnlyStage(*s, stage.first_op, i))
        throw InputError(
            fmt::format("{}: cannot split: op {} ({}) reads a tensor from outside the stage",
                        source_, i, s->type));
      ops.push_back(*s);
    }
    // Every tensor the stage writes but the last is read by stage ops only.
    std::map<int, int> stage_readers;
    for (const auto& op : ops)
      for (const int t : {op.input, op.input2})
        if (t >= 0) ++stage_readers[t];
    for (std::size_t k = 0; k + 1 < ops.size(); ++k)
      if (stage_readers[ops[k].output] != readers_[ops[k].output])
        throw InputError(
            fmt::format("{}: cannot split: op {} ({})'s output is read after the stage", source_,
                        ops[k].index, ops[k].type));
    return ops;
  }

  // The model with `stage` run as `grid` patches, or InputError when not exact.
  fb::ModelT Rewrite(const std::vector<SpatialOp>& stage, PatchGrid grid) const;

 private:
  class Rewriter;

  std::string unknown_options_;  // why the model cannot be rewritten faithfully, if so
  std::unique_ptr<fb::ModelT> model_;
  std::string source_;
  std::vector<int> readers_;  // per tensor of subgraph 0: ops reading it (+1 if an output)
};

// Builds the rewritten subgraph 0 in place.
class SplitModel::Rewriter {
 public:
  Rewriter(fb::ModelT& model, const std::vector<SpatialOp>& stage, PatchGrid grid,
           const std::string& source)
      : model_(model), sg_(*model.subgraphs[0]), stage_(stage), grid_(grid), source_(source) {}

  void Run() {
    const SpatialOp& last = stage_.back();
    if (grid_.rows < 1 || grid_.cols < 1 || grid_.rows > last.out_h || grid_.cols > last.out_w)
      throw InputError(
          fmt::format("{}: cannot split into {}x{} patches: the stage's output is "
                      "{}x{}",
                      source_, grid_.rows, grid_.cols, last.out_h, last.out_w));
    std::vector<std::unique_ptr<fb::OperatorT>> old_ops = std::move(sg_.operators);
    sg_.operators.clear();
    for (int i = 0; i < stage_.front().index; ++i) sg_.operators.push_back(std::move(old_ops[i]));
    std::vector<int> bands;
    for (int r = 0; r < grid_.rows; ++r) {
      std::vector<int> row;
      const int y0 = r * last.out_h / grid_.rows, y1 = (r + 1) * last.out_h / grid_.rows;
      for (int c = 0; c < grid_.cols; ++c) {
        const int x0 = c * last.out_w / grid_.cols, x1 = (c + 1) * last.out_w / grid_.cols;
        row.push_back(Patch(r, c, y0, y1, x0, x1, old_ops));
      }
      if (grid_.rows == 1) {
        Concatenate(row, 2, last.output);
      } else if (row.size() == 1) {
        bands.push_back(row[0]);
      } else {
        const int band =
            AddTensor(PatchName(r, -1, last.output, ""), last.output, {1, y1 - y0, last.out_w});
        Concatenate(row, 2, band);
        bands.push_back(band);
      }
    }
    if (grid_.rows > 1) Concatenate(bands, 1, last.output);
    for (std::size_t i = static_cast<std::size_t>(last.index) + 1; i < old_ops.size(); ++i)
      sg_.operators.push_back(std::move(old_ops[i]));
    DropStageIntermediates();
  }

 private:
  // "split:r0c1:NAME" (c = -1: a row band "split:r0:NAME"), plus a suffix.
  std::string PatchName(int r, int c, int tensor, std::string_view suffix) const {
    const std::string& name = sg_.tensors[tensor]->name;
    return c < 0 ? fmt::format("split:r{}:{}{}", r, name, suffix)
                 : fmt::format("split:r{}c{}:{}{}", r, c, name, suffix);
  }

  // A new tensor like `like` (type, quantization, channels) of height and width `hw`.
  int AddTensor(std::string name, int like, std::vector<int> nhw) {
    const auto& model_tensor = *sg_.tensors[like];
    auto t = std::make_unique<fb::TensorT>();
    t->name = std::move(name);
    t->type = model_tensor.type;
    t->shape = std::move(nhw);
    t->shape.push_back(model_tensor.shape[3]);
    if (model_tensor.quantization)
      t->quantization = std::make_unique<fb::QuantizationParametersT>(*model_tensor.quantization);
    sg_.tensors.push_back(std::move(t));
    return static_cast<int>(sg_.tensors.size() - 1);
  }

  // A constant int32 (or int8) tensor. Equal constants (the same type, shape, bytes and
  // quantization source) are one tensor: every tensor costs the device an evaluation
  // struct in the arena's tail and a planning record while it is allocated.
  int AddConstant(std::string name, TensorType type, std::vector<int> shape,
                  std::vector<std::uint8_t> data, int quantization_of) {
    ConstantKey key{static_cast<int>(type), shape, data, quantization_of};
    if (const auto it = constants_.find(key); it != constants_.end()) return it->second;
    auto buffer = std::make_unique<fb::BufferT>();
    buffer->data = std::move(data);
    model_.buffers.push_back(std::move(buffer));
    auto t = std::make_unique<fb::TensorT>();
    t->name = std::move(name);
    t->type = type;
    t->shape = std::move(shape);
    t->buffer = static_cast<std::uint32_t>(model_.buffers.size() - 1);
    if (quantization_of >= 0 && sg_.tensors[quantization_of]->quantization)
      t->quantization = std::make_unique<fb::QuantizationParametersT>(
          *sg_.tensors[quantization_of]->quantization);
    sg_.tensors.push_back(std::move(t));
    const int index = static_cast<int>(sg_.tensors.size() - 1);
    constants_.emplace(std::move(key), index);
    return index;
  }

  // An int32 constant, named by what it is and its values ("split:begin:0,4,0,0"): shared
  // by every patch that needs the same values.
  int AddInts(std::string_view what, const std::vector<std::int32_t>& values,
              std::vector<int> shape) {
    std::vector<std::uint8_t> data(values.size() * 4);
    for (std::size_t i = 0; i < values.size(); ++i)
      for (int b = 0; b < 4; ++b)
        data[i * 4 + b] =
            static_cast<std::uint8_t>(static_cast<std::uint32_t>(values[i]) >> (8 * b));
    return AddConstant(fmt::format("split:{}:{}", what, fmt::join(values, ",")), TensorType::INT32,
                       std::move(shape), std::move(data), -1);
  }

  std::uint32_t Code(std::string_view type, int version) {
    const int code = *BuiltinOperatorCode(type);
    for (std::size_t i = 0; i < model_.operator_codes.size(); ++i) {
      const auto& c = *model_.operator_codes[i];
      if (std::max<int>(c.builtin_code, c.deprecated_builtin_code) == code) {
        if (c.version < version) model_.operator_codes[i]->version = version;
        return static_cast<std::uint32_t>(i);
      }
    }
    auto c = std::make_unique<fb::OperatorCodeT>();
    c->builtin_code = code;
    c->deprecated_builtin_code = static_cast<std::int8_t>(std::min(code, 127));
    c->version = version;
    model_.operator_codes.push_back(std::move(c));
    return static_cast<std::uint32_t>(model_.operator_codes.size() - 1);
  }

  // Op versions that declare int8 (2); float32 and uint8 are version 1.
  int Version(int tensor) const { return sg_.tensors[tensor]->type == TensorType::INT8 ? 2 : 1; }

  void AddOp(std::uint32_t code, std::vector<int> inputs, int output,
             fb::BuiltinOptionsUnion options) {
    auto op = std::make_unique<fb::OperatorT>();
    op->opcode_index = code;
    op->inputs = std::move(inputs);
    op->outputs = {output};
    op->builtin_options = std::move(options);
    sg_.operators.push_back(std::move(op));
  }

  // Joins `parts` along `axis` into `output`. TFLM's CONCATENATION takes at most
  // kMaxConcatenationInputs inputs: more parts are joined as a tree, groups of at most that
  // many (as even as integer division makes them) first.
  void Concatenate(const std::vector<int>& parts, int axis, int output) {
    if (parts.size() <= kMaxConcatenationInputs) {
      fb::ConcatenationOptionsT o;
      o.axis = axis;
      fb::BuiltinOptionsUnion u;
      u.Set(std::move(o));
      AddOp(Code("CONCATENATION", Version(output)), parts, output, std::move(u));
      return;
    }
    const std::size_t groups =
        (parts.size() + kMaxConcatenationInputs - 1) / kMaxConcatenationInputs;
    std::vector<int> joined;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::vector<int> group(parts.begin() + g * parts.size() / groups,
                                   parts.begin() + (g + 1) * parts.size() / groups);
      std::vector<int> shape = sg_.tensors[output]->shape;
      shape.pop_back();  // AddTensor appends the channels
      shape[axis] = 0;
      for (const int t : group) shape[axis] += sg_.tensors[t]->shape[axis];
      const int part = AddTensor(fmt::format("{}:join{}", sg_.tensors[group[0]]->name, g), output,
                                 std::move(shape));
      Concatenate(group, axis, part);
      joined.push_back(part);
    }
    Concatenate(joined, axis, output);
  }

  // A tensor's part in one patch: the tensor holding it and the rows and columns it covers.
  struct Part {
    int tensor = -1;    // the patch tensor (or -1 while unknown)
    Window rows, cols;  // what it covers, in the full tensor's coordinates
  };

  // Emits one patch's ops (output rows [y0, y1), columns [x0, x1) of the stage's last op)
  // and returns the tensor holding its output.
  int Patch(int r, int c, int y0, int y1, int x0, int x1,
            std::vector<std::unique_ptr<fb::OperatorT>>& old_ops) {
    // Backwards: each tensor's rows and columns this patch needs (the bounding box over its
    // readers), and per op the input window with the padding beyond the border.
    const std::size_t n = stage_.size();
    std::map<int, Part> need;
    need[stage_.back().output] = {-1, {y0, y1, 0, 0}, {x0, x1, 0, 0}};
    std::vector<Window> rows_in(n), cols_in(n);
    const auto widen = [&](int tensor, const Window& wr, const Window& wc) {
      auto [it, fresh] =
          need.try_emplace(tensor, Part{-1, {wr.lo, wr.hi, 0, 0}, {wc.lo, wc.hi, 0, 0}});
      if (fresh) return;
      it->second.rows.lo = std::min(it->second.rows.lo, wr.lo);
      it->second.rows.hi = std::max(it->second.rows.hi, wr.hi);
      it->second.cols.lo = std::min(it->second.cols.lo, wc.lo);
      it->second.cols.hi = std::max(it->second.cols.hi, wc.hi);
    };
    for (std::size_t k = n; k-- > 0;) {
      const SpatialOp& s = stage_[k];
      const Part& out = need.at(s.output);
      rows_in[k] = InputWindow(out.rows.lo, out.rows.hi, s.stride_h, s.pad_top, s.kernel_h, s.in_h);
      cols_in[k] =
          InputWindow(out.cols.lo, out.cols.hi, s.stride_w, s.pad_left, s.kernel_w, s.in_w);
      if (rows_in[k].lo >= rows_in[k].hi || cols_in[k].lo >= cols_in[k].hi)
        throw InputError(fmt::format("{}: cannot split: patch r{}c{} of op {} reads nothing",
                                     source_, r, c, s.index));
      if (s.pool &&
          (rows_in[k].pad_lo || rows_in[k].pad_hi || cols_in[k].pad_lo || cols_in[k].pad_hi))
        throw InputError(fmt::format("{}: cannot split: op {} ({}) would pool over padding",
                                     source_, s.index, s.type));
      widen(s.input, rows_in[k], cols_in[k]);
      if (s.input2 >= 0) widen(s.input2, rows_in[k], cols_in[k]);
    }
    // The stage input's window, cut once.
    const int external = stage_.front().input;
    {
      Part& part = need.at(external);
      part.tensor =
          Slice(PatchName(r, c, external, ":slice"), external, part.rows, part.cols, {0, 0, 0, 0});
    }
    int result = -1;
    for (std::size_t k = 0; k < n; ++k) {
      const SpatialOp& s = stage_[k];
      const Window& wr = rows_in[k];
      const Window& wc = cols_in[k];
      Part& out = need.at(s.output);
      // Where SAME padding on the window pads exactly the border the original padded, the
      // op keeps SAME and needs no PAD op (one op and one tensor less on the device).
      const bool padded = wr.pad_lo || wr.pad_hi || wc.pad_lo || wc.pad_hi;
      const bool same = padded && !s.pad && !s.pool && SameCovers(s, wr, out.rows, wc, out.cols);
      const bool explicit_pad = padded && !same;
      // Each operand cut to this op's window where its part covers more (another reader
      // needed a wider one), then padded where the window reaches past the border.
      const auto operand = [&](int tensor, std::string_view tag) {
        const Part& part = need.at(tensor);
        int t = part.tensor;
        if (part.rows.lo != wr.lo || part.rows.hi != wr.hi || part.cols.lo != wc.lo ||
            part.cols.hi != wc.hi)
          t = Slice(PatchName(r, c, tensor, fmt::format(":crop{}{}", s.index, tag)), t, wr, wc,
                    {part.rows.lo, part.cols.lo, 0, 0});
        if (explicit_pad) t = Pad(r, c, s, t, wr, wc);
        return t;
      };
      const int current = operand(s.input, "");
      if (s.pad) {
        out.tensor = current;  // the patch's part of a PAD op is its border, written just now
        result = current;
        continue;
      }
      // The op itself, VALID (or SAME, above), on the same weights.
      auto op = std::move(old_ops[static_cast<std::size_t>(s.index)]);
      op->inputs[0] = current;
      if (s.input2 >= 0) op->inputs[1] = operand(s.input2, "b");
      out.tensor = AddTensor(PatchName(r, c, s.output, ""), s.output,
                             {1, out.rows.hi - out.rows.lo, out.cols.hi - out.cols.lo});
      op->outputs[0] = out.tensor;
      const Padding padding = same ? Padding::SAME : Padding::VALID;
      if (auto* o = op->builtin_options.AsConv2DOptions()) o->padding = padding;
      if (auto* o = op->builtin_options.AsDepthwiseConv2DOptions()) o->padding = padding;
      if (auto* o = op->builtin_options.AsPool2DOptions()) o->padding = padding;
      // The next patch runs the same op again: keep a copy where the original was.
      auto copy = std::make_unique<fb::OperatorT>(*op);
      old_ops[static_cast<std::size_t>(s.index)] = std::move(copy);
      sg_.operators.push_back(std::move(op));
      result = out.tensor;
    }
    return result;
  }

  // SLICE of rows and columns (full-tensor coordinates) of `from`, whose first row and
  // column sit at origin[0] and origin[1] of the full tensor. SLICE, not STRIDED_SLICE:
  // TFLM keeps neither options nor op data for it (STRIDED_SLICE: both, per op).
  int Slice(std::string name, int from, const Window& rows, const Window& cols,
            std::array<int, 4> origin) {
    const int channels = sg_.tensors[from]->shape[3];
    const int out = AddTensor(std::move(name), from, {1, rows.hi - rows.lo, cols.hi - cols.lo});
    const int begin = AddInts("begin", {0, rows.lo - origin[0], cols.lo - origin[1], 0}, {4});
    const int size = AddInts("size", {1, rows.hi - rows.lo, cols.hi - cols.lo, channels}, {4});
    AddOp(Code("SLICE", Version(from)), {from, begin, size}, out, fb::BuiltinOptionsUnion{});
    return out;
  }

  // Explicit padding of a patch's window where it reaches beyond the image.
  int Pad(int r, int c, const SpatialOp& s, int window, const Window& wr, const Window& wc) {
    const int padded = AddTensor(
        PatchName(r, c, s.input, ":pad"), s.input,
        {1, wr.hi - wr.lo + wr.pad_lo + wr.pad_hi, wc.hi - wc.lo + wc.pad_lo + wc.pad_hi});
    const int paddings =
        AddInts("paddings", {0, 0, wr.pad_lo, wr.pad_hi, wc.pad_lo, wc.pad_hi, 0, 0}, {4, 2});
    const auto& in = *sg_.tensors[s.input];
    if (in.type != TensorType::FLOAT32) {
      // The padding of a quantized conv is real 0, which is the zero point.
      const std::int64_t zero_point = in.quantization && !in.quantization->zero_point.empty()
                                          ? in.quantization->zero_point[0]
                                          : 0;
      const int value = AddConstant(fmt::format("split:pad_value:{}", in.name), in.type, {1},
                                    {static_cast<std::uint8_t>(zero_point)}, s.input);
      fb::BuiltinOptionsUnion u;
      u.Set(fb::PadV2OptionsT{});
      AddOp(Code("PADV2", Version(s.input)), {window, paddings, value}, padded, std::move(u));
    } else {
      fb::BuiltinOptionsUnion u;
      u.Set(fb::PadOptionsT{});
      AddOp(Code("PAD", 1), {window, paddings}, padded, std::move(u));
    }
    return padded;
  }

  // The stage's original intermediate tensors are read and written by no op now: remove
  // them and renumber the others.
  void DropStageIntermediates() {
    std::vector<bool> drop(sg_.tensors.size(), false);
    for (std::size_t k = 0; k + 1 < stage_.size(); ++k) drop[stage_[k].output] = true;
    std::vector<int> renumber(sg_.tensors.size(), -1);
    std::vector<std::unique_ptr<fb::TensorT>> kept;
    for (std::size_t t = 0; t < sg_.tensors.size(); ++t) {
      if (drop[t]) continue;
      renumber[t] = static_cast<int>(kept.size());
      kept.push_back(std::move(sg_.tensors[t]));
    }
    sg_.tensors = std::move(kept);
    const auto map = [&](std::vector<int>& list) {
      for (int& t : list)
        if (t >= 0) t = renumber[static_cast<std::size_t>(t)];
    };
    for (auto& op : sg_.operators) {
      map(op->inputs);
      map(op->outputs);
      map(op->intermediates);
    }
    map(sg_.inputs);
    map(sg_.outputs);
  }

  // A constant by content: type, shape, bytes, the tensor whose quantization it carries.
  using ConstantKey = std::tuple<int, std::vector<int>, std::vector<std::uint8_t>, int>;

  fb::ModelT& model_;
  fb::SubGraphT& sg_;
  std::map<ConstantKey, int> constants_;  // constants added, by content
  const std::vector<SpatialOp>& stage_;
  PatchGrid grid_;
  const std::string& source_;
};

fb::ModelT SplitModel::Rewrite(const std::vector<SpatialOp>& stage, PatchGrid grid) const {
  fb::ModelT model(*model_);
  Rewriter(model, stage, grid, source_).Run();
  // An offline plan of the original numbers its tensors: it means nothing now.
  std::erase_if(model.metadata, [](const std::unique_ptr<fb::MetadataT>& m) {
    return m && m->name == kOfflinePlanMetadata;
  });
  return model;
}

// Multiply-accumulates of the convolutions and fully connected layers of subgraph 0.
// Products of dimensions, saturating: a model that reads has no tensor above 2^56 bytes,
// but a corrupted filter's dimensions may multiply past 64 bits.
std::uint64_t SaturatingProduct(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t product = 1;
  for (const std::uint64_t f : factors) {
    if (f != 0 && product > std::numeric_limits<std::uint64_t>::max() / f)
      return std::numeric_limits<std::uint64_t>::max();
    product *= f;
  }
  return product;
}

std::uint64_t Macs(const fb::ModelT& model) {
  std::uint64_t total = 0;
  const auto& sg = *model.subgraphs[0];
  const auto dim = [](int d) { return static_cast<std::uint64_t>(std::max(d, 0)); };
  const auto elements = [&](int t) {
    std::uint64_t n = 1;
    for (const int d : sg.tensors[t]->shape) n = SaturatingProduct({n, dim(d)});
    return n;
  };
  const auto valid = [&](int t) {
    return t >= 0 && static_cast<std::size_t>(t) < sg.tensors.size();
  };
  const auto add = [&](std::uint64_t macs) {
    total = macs > std::numeric_limits<std::uint64_t>::max() - total
                ? std::numeric_limits<std::uint64_t>::max()
                : total + macs;
  };
  for (const auto& op : sg.operators) {
    if (op->inputs.size() < 2 || op->outputs.empty() || !valid(op->inputs[1]) ||
        !valid(op->outputs[0]))
      continue;
    const std::string type = BuiltinOperatorName(rewrite::BuiltinCodeOf(model, *op));
    const auto& filter = sg.tensors[op->inputs[1]]->shape;
    const std::uint64_t out = elements(op->outputs[0]);
    if (type == "CONV_2D" && filter.size() == 4)
      add(SaturatingProduct({out, dim(filter[1]), dim(filter[2]), dim(filter[3])}));
    else if (type == "DEPTHWISE_CONV_2D" && filter.size() == 4)
      add(SaturatingProduct({out, dim(filter[1]), dim(filter[2])}));
    else if (type == "FULLY_CONNECTED" && filter.size() == 2)
      add(SaturatingProduct({out, dim(filter[1])}));
  }
  return total;
}

}  // namespace

std::vector<SplitChain> SplittableChains(std::string_view bytes, std::string_view source) {
  return SplitModel(bytes, source).Chains();
}

namespace {

// A rewrite the search judged.
struct Candidate {
  SplitStage stage;
  PatchGrid grid;
  std::uint64_t macs = 0;
  std::size_t ops = 0;  // ops of subgraph 0
  SplitArena arena;
  std::string bytes;
};

// Grids the search tries: near-square ones of up to 8 x 8 patches. Every patch op costs
// the device persistent memory (a node, options, op data, per-channel arrays), so finer
// grids rarely pay; the whole arena decides.
std::vector<PatchGrid> SearchGrids() {
  std::vector<PatchGrid> grids;
  for (const int rows : {1, 2, 3, 4, 6, 8})
    for (const int cols : {1, 2, 3, 4, 6, 8})
      if (rows * cols > 1 && std::abs(rows - cols) <= std::max(rows, cols) / 2 + 1)
        grids.push_back({rows, cols});
  return grids;
}

std::string Describe(const SplitArena& a) {
  return fmt::format("{} B (head {} B, tail {} B)", a.whole, a.head, a.tail);
}

std::string Describe(const Candidate& c) {
  return fmt::format("{}x{} patches, ops {}..{}", c.grid.rows, c.grid.cols, c.stage.first_op,
                     c.stage.last_op);
}

// The stages and grids to try: the given ones, or every stage that starts a chain and ends
// in it with every search grid.
std::vector<std::pair<SplitStage, PatchGrid>> Trials(const std::vector<SplitChain>& chains,
                                                     const SplitRequest& request) {
  std::vector<SplitStage> stages;
  if (request.stage) {
    stages.push_back(*request.stage);
  } else {
    for (const auto& chain : chains)
      for (int last = chain.ops.first_op; last <= chain.ops.last_op; ++last)
        stages.push_back({chain.ops.first_op, last});
  }
  const std::vector<PatchGrid> grids =
      request.patches ? std::vector<PatchGrid>{*request.patches} : SearchGrids();
  std::vector<std::pair<SplitStage, PatchGrid>> trials;
  for (const SplitStage& stage : stages)
    for (const PatchGrid& grid : grids) trials.emplace_back(stage, grid);
  return trials;
}

// The search's findings: the smallest whole arena and the smallest head.
struct Judged {
  std::vector<Candidate> ranked;           // the smallest few by whole arena, smallest first
  std::optional<Candidate> smallest_head;  // by head (ties: whole arena)
  std::size_t count = 0;
  std::string last_refusal;  // why the last refused trial was not exact
  // Rewrites that were exact but have an op the target refuses (arena_of's InputError).
  std::size_t target_refusals = 0;
  std::string last_target_refusal;
  const Candidate* smallest() const { return ranked.empty() ? nullptr : &ranked.front(); }
};

// Candidates kept for re-measuring as they will be written (final_arena_of): the order
// search lowers some by a few percent, enough to reorder the best few.
constexpr std::size_t kRanked = 8;

// Smaller whole arena; ties: fewer MACs.
bool Better(const Candidate& a, const Candidate& b) {
  return a.arena.whole != b.arena.whole ? a.arena.whole < b.arena.whole : a.macs < b.macs;
}

void Keep(Judged& judged, Candidate c) {
  ++judged.count;
  const auto smaller_head = [](const Candidate& a, const Candidate& b) {
    return a.arena.head != b.arena.head ? a.arena.head < b.arena.head
                                        : a.arena.whole < b.arena.whole;
  };
  if (!judged.smallest_head || smaller_head(c, *judged.smallest_head)) judged.smallest_head = c;
  const auto at = std::upper_bound(judged.ranked.begin(), judged.ranked.end(), c, Better);
  if (at - judged.ranked.begin() >= static_cast<std::ptrdiff_t>(kRanked)) return;
  judged.ranked.insert(at, std::move(c));
  if (judged.ranked.size() > kRanked) judged.ranked.pop_back();
}

// The few smallest measured again as they will be written (in the best operator order,
// say), each keeping the smaller figure; the order may change.
void Rerank(Judged& judged, const SplitRequest& request) {
  if (!request.final_arena_of) return;
  for (Candidate& c : judged.ranked) {
    const SplitArena final_arena = request.final_arena_of(c.bytes);
    if (final_arena.whole < c.arena.whole) c.arena = final_arena;
  }
  std::stable_sort(judged.ranked.begin(), judged.ranked.end(), Better);
}

// A trial by its stage and grid, so that the refinement tries none twice.
using TrialKey = std::tuple<int, int, int, int>;

// Rewrites and judges one trial. With both stage and grid given, a refusal is the caller's
// error; in a search it only rules the trial out (as does the MAC limit).
void Judge(const SplitModel& model, const SplitRequest& request, std::uint64_t macs_limit,
           SplitStage stage, PatchGrid grid, Judged& judged) {
  const bool given = request.patches && request.stage;
  std::optional<fb::ModelT> rewritten;
  try {
    rewritten.emplace(model.Rewrite(model.Stage(stage), grid));
  } catch (const InputError& e) {
    if (given) throw;
    judged.last_refusal = e.what();
    return;
  }
  Candidate c{stage, grid, Macs(*rewritten), rewritten->subgraphs[0]->operators.size(), {}, {}};
  if (!given && c.macs > macs_limit) return;
  c.bytes = rewrite::SaveModel(*rewritten);
  try {
    c.arena = request.arena_of(c.bytes);  // the target may refuse an op of the rewrite
  } catch (const InputError& e) {
    if (given) throw;
    ++judged.target_refusals;
    judged.last_target_refusal = e.what();
    return;
  }
  Keep(judged, std::move(c));
}

// Around the best so far: stages of its chain starting up to 3 ops later and ending up to
// 2 ops either side, with grids one row or column either side (5 and 7 included), as far
// as the request leaves them open. The first pass starts stages at chain starts only and
// tries a coarse set of grids.
std::vector<std::pair<SplitStage, PatchGrid>> Neighbours(const std::vector<SplitChain>& chains,
                                                         const Candidate& best,
                                                         const SplitRequest& request) {
  std::vector<SplitStage> stages;
  if (request.stage) stages.push_back(*request.stage);
  for (const SplitChain& chain : chains) {
    if (request.stage || best.stage.first_op < chain.ops.first_op ||
        best.stage.first_op > chain.ops.last_op)
      continue;
    for (int first = best.stage.first_op;
         first <= std::min(best.stage.first_op + 3, chain.ops.last_op); ++first)
      for (int last = std::max(first, best.stage.last_op - 2);
           last <= std::min(best.stage.last_op + 2, chain.ops.last_op); ++last)
        stages.push_back({first, last});
  }
  std::vector<PatchGrid> grids;
  if (request.patches) grids.push_back(*request.patches);
  for (int rows = best.grid.rows - 1; !request.patches && rows <= best.grid.rows + 1; ++rows)
    for (int cols = best.grid.cols - 1; cols <= best.grid.cols + 1; ++cols)
      if (rows >= 1 && cols >= 1 && rows * cols > 1) grids.push_back({rows, cols});
  std::vector<std::pair<SplitStage, PatchGrid>> trials;
  for (const SplitStage& stage : stages)
    for (const PatchGrid& grid : grids) trials.emplace_back(stage, grid);
  return trials;
}

// Judges every trial of the request; a search then refines around its best (two rounds at
// most, each only when the last one found a smaller arena).
Judged JudgeTrials(const SplitModel& model, const SplitRequest& request, std::uint64_t macs_limit) {
  const std::vector<SplitChain> chains = model.Chains();
  std::set<TrialKey> tried;
  Judged judged;
  const auto judge = [&](const std::vector<std::pair<SplitStage, PatchGrid>>& trials) {
    for (const auto& [stage, grid] : trials)
      if (tried.emplace(stage.first_op, stage.last_op, grid.rows, grid.cols).second)
        Judge(model, request, macs_limit, stage, grid, judged);
  };
  judge(Trials(chains, request));
  for (int round = 0; round < 2 && judged.smallest() && !(request.patches && request.stage);
       ++round) {
    const Bytes before = judged.smallest()->arena.whole;
    judge(Neighbours(chains, *judged.smallest(), request));
    if (judged.smallest()->arena.whole == before) break;
  }
  Rerank(judged, request);
  return judged;
}

void Adopt(SplitResult& result, const Candidate& c) {
  result.split = true;
  result.bytes = c.bytes;
  result.patches = c.grid;
  result.stage = c.stage;
  result.macs_after = c.macs;
  result.ops_after = c.ops;
  result.arena_after = c.arena;
}

// Never worse: the smallest whole arena if it is smaller than the original's; forced, the
// smallest head; otherwise nothing, and why.
void Decide(SplitResult& result, const Judged& judged, const SplitRequest& request) {
  result.candidates = judged.count;
  if (!judged.smallest() && judged.target_refusals) {
    result.why_not = fmt::format(
        "every split within {:.0f}% extra MACs has an op the target refuses ({} tried; the "
        "last: {})",
        request.max_extra_macs * 100, judged.target_refusals, judged.last_target_refusal);
    return;
  }
  if (!judged.smallest()) {
    result.why_not = fmt::format(
        "no stage and grid stays within {:.0f}% extra MACs{}", request.max_extra_macs * 100,
        judged.last_refusal.empty() ? "" : fmt::format(" (last refusal: {})", judged.last_refusal));
    return;
  }
  const Candidate& best = *judged.smallest();
  if (best.arena.whole < result.arena_before.whole) return Adopt(result, best);
  if (request.force) {
    Adopt(result, *judged.smallest_head);
    result.larger = true;
    return;
  }
  result.patches = best.grid;
  result.stage = best.stage;
  result.arena_after = best.arena;
  result.why_not = fmt::format(
      "no split makes the whole arena smaller: the best of {} tried ({}) needs {} against "
      "the original's {}",
      judged.count, Describe(best), Describe(best.arena), Describe(result.arena_before));
}

}  // namespace

SplitResult SplitTflite(std::string_view bytes, std::string_view source,
                        const SplitRequest& request) {
  const SplitModel model(bytes, source);
  SplitResult result;
  result.macs_before = Macs(model.model());
  result.ops_before = model.model().subgraphs[0]->operators.size();
  const bool given = request.patches && request.stage;
  if (!model.unknown_options().empty()) {
    if (given) throw InputError(fmt::format("{}: {}", source, model.unknown_options()));
    result.why_not = model.unknown_options();
    return result;
  }
  // Both given and nothing to judge by: that rewrite, or an error saying why not.
  if (given && !request.arena_of) {
    const auto rewritten = model.Rewrite(model.Stage(*request.stage), *request.patches);
    Candidate c{*request.stage,
                *request.patches,
                Macs(rewritten),
                rewritten.subgraphs[0]->operators.size(),
                {},
                rewrite::SaveModel(rewritten)};
    Adopt(result, c);
    return result;
  }
  if (!request.arena_of) throw InternalError("SplitTflite: a search needs arena_of");
  if (model.Chains().empty() && !given) {
    result.why_not =
        "no op is a splittable spatial op (CONV_2D, DEPTHWISE_CONV_2D, PAD, ADD, or a pool "
        "without padding, on batch-1 float32, int8 or uint8 NHWC tensors)";
    return result;
  }
  result.arena_before =
      request.arena_before ? *request.arena_before : request.arena_of(std::string(bytes));
  const double limit = static_cast<double>(result.macs_before) * (1.0 + request.max_extra_macs);
  const auto macs_limit = limit >= 1.8e19 ? std::numeric_limits<std::uint64_t>::max()
                                          : static_cast<std::uint64_t>(limit);
  Decide(result, JudgeTrials(model, request, macs_limit), request);
  return result;
}

}  // namespace memplan
