// .tflite -> memplan::Graph. The verifier (verify.cc) proves the flatbuffer sound; this
// file checks what it cannot: indices between tables, types, shapes and sizes.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/tflite.h"
#include "src/formats/tflite/custom_ops.h"
#include "src/formats/tflite/offline_plan.h"
#include "src/formats/tflite/verify.h"

namespace memplan {

namespace {

using formats::fb::BuiltinOptions;
namespace fb = formats::fb;
using Bytes8 = std::span<const std::uint8_t>;

constexpr std::int32_t kCustomCode = 32;     // BuiltinOperator CUSTOM
constexpr std::int32_t kIfCode = 118;        // IF
constexpr std::int32_t kWhileCode = 119;     // WHILE
constexpr std::int32_t kCallOnceCode = 129;  // CALL_ONCE
constexpr int kLastKnownType = static_cast<int>(DataType::kBFloat16);
// A tensor larger than this (64 PiB) is a corrupt shape, not a model.
constexpr Bytes kMaxTensorBytes = Bytes{1} << 56;

template <typename T>
std::vector<std::int32_t> Ints(const flatbuffers::Vector<T>* v) {
  return v ? std::vector<std::int32_t>(v->begin(), v->end()) : std::vector<std::int32_t>{};
}

std::string Str(const flatbuffers::String* s) {
  return s ? s->str() : std::string();
}

// One operator code, resolved.
struct OpCode {
  std::int32_t code = 0;  // BuiltinOperator (max of the two code fields, as TFLite reads it)
  std::string name;       // builtin name, or the custom op's name
};

class TfliteReader {
 public:
  TfliteReader(std::string_view bytes, std::string_view source)
      : bytes_(bytes), source_(source), model_(formats::VerifiedModel(bytes, source)) {}

  TfliteModel Read() && {
    TfliteModel out;
    out.graph.source = source_;
    out.graph.format = "tflite";
    out.schema_version = model_->version();
    out.description = Str(model_->description());
    out.file_bytes = bytes_.size();
    ReadBuffers();
    out.buffers = has_data_.size();
    ReadOpCodes();
    const auto* subgraphs = model_->subgraphs();
    if (!subgraphs || subgraphs->size() == 0) Fail("the model has no subgraphs");
    for (flatbuffers::uoffset_t s = 0; s < subgraphs->size(); ++s) {
      out.tensor_buffers.emplace_back();
      out.graph.subgraphs.push_back(ReadSubgraph(s, *subgraphs->Get(s), out.tensor_buffers.back()));
      ReadShapeFacts(*subgraphs->Get(s), out.graph.subgraphs.back(), out.tensor_buffers.back(),
                     out);
    }
    ReadMetadata(out);
    ValidateGraph(out.graph);
    return out;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw InputError(fmt::format("{}: {}", source_, what));
  }

  // Data stored past the flatbuffer (models over 2 GiB): offset from the file start.
  Bytes8 External(std::uint64_t offset, std::uint64_t size, const std::string& what) const {
    if (offset > bytes_.size() || size > bytes_.size() - offset)
      Fail(fmt::format("{}: its data at bytes {}..{} lies outside the {}-byte file", what, offset,
                       offset + size, bytes_.size()));
    return {reinterpret_cast<const std::uint8_t*>(bytes_.data()) + offset, size};
  }

  void ReadBuffers() {
    const auto* buffers = model_->buffers();
    if (!buffers) return;
    has_data_.reserve(buffers->size());
    for (flatbuffers::uoffset_t b = 0; b < buffers->size(); ++b) {
      const fb::Buffer* buffer = buffers->Get(b);
      if (buffer->offset() > 1) {
        External(buffer->offset(), buffer->size(), fmt::format("buffer {}", b));
        has_data_.push_back(true);
      } else {
        has_data_.push_back(buffer->data() && buffer->data()->size() > 0);
      }
    }
  }

  Bytes8 BufferData(std::uint32_t b) const {
    const fb::Buffer* buffer = model_->buffers()->Get(b);
    if (buffer->offset() > 1)
      return External(buffer->offset(), buffer->size(), fmt::format("buffer {}", b));
    if (!buffer->data()) return {};
    return {buffer->data()->data(), buffer->data()->size()};
  }

  void ReadOpCodes() {
    const auto* codes = model_->operator_codes();
    if (!codes) return;
    for (flatbuffers::uoffset_t i = 0; i < codes->size(); ++i) {
      const fb::OperatorCode* c = codes->Get(i);
      OpCode op;
      op.code = std::max<std::int32_t>(c->builtin_code(), c->deprecated_builtin_code());
      if (op.code == kCustomCode)
        op.name = c->custom_code() ? c->custom_code()->str() : std::string("CUSTOM");
      else
        op.name = BuiltinOperatorName(op.code);
      opcodes_.push_back(std::move(op));
    }
  }

  std::string TensorLabel(flatbuffers::uoffset_t s, flatbuffers::uoffset_t t,
                          const std::string& name) const {
    return fmt::format("subgraph {}, tensor {}{}", s, t,
                       name.empty() ? std::string() : fmt::format(" '{}'", name));
  }

  Tensor ReadTensor(flatbuffers::uoffset_t s, flatbuffers::uoffset_t t, const fb::Tensor& in,
                    std::uint32_t& buffer_index) const {
    Tensor out;
    out.name = Str(in.name());
    const std::string label = TensorLabel(s, t, out.name);
    const int type = static_cast<int>(in.type());
    if (type < 0 || type > kLastKnownType)
      Fail(fmt::format("{}: unknown tensor type {} (known: 0..{}, float32..bfloat16)", label, type,
                       kLastKnownType));
    out.type = static_cast<DataType>(type);
    if (const auto* shape = in.shape()) {
      for (flatbuffers::uoffset_t k = 0; k < shape->size(); ++k) {
        const std::int32_t d = shape->Get(k);
        if (d < -1)
          Fail(fmt::format("{}: dimension {} is {} (a size, or -1 when unknown)", label, k, d));
        out.shape.push_back(d);
      }
    }
    buffer_index = in.buffer();
    if (buffer_index >= has_data_.size() && !(buffer_index == 0 && has_data_.empty()))
      Fail(fmt::format("{}: buffer index {}, but the model has {} buffers", label, buffer_index,
                       has_data_.size()));
    out.is_constant = buffer_index < has_data_.size() && has_data_[buffer_index];
    out.is_variable = in.is_variable();
    if (const auto* q = in.quantization();
        q && q->scale() && q->scale()->size() > 0 && q->zero_point() && q->zero_point()->size() > 0)
      out.quant_channels = q->scale()->size();
    Size(out, in, label);
    return out;
  }

  // Byte size from type and shape. The stored shape wins over shape_signature (TFLM
  // plans the stored shape; a -1 there only marks a dimension resizable at run time).
  void Size(Tensor& out, const fb::Tensor& in, const std::string& label) const {
    if (!DataTypeBits(out.type)) {
      out.why_unsized = fmt::format("{} tensors are sized at run time", DataTypeName(out.type));
      return;
    }
    if (std::any_of(out.shape.begin(), out.shape.end(), [](std::int64_t d) { return d < 0; })) {
      out.why_unsized =
          fmt::format("shape {} has dimensions known only at run time", ShapeText(out.shape));
      return;
    }
    const auto* signature = in.shape_signature();
    if (out.shape.empty() && signature && signature->size() > 0 && !out.is_constant) {
      out.why_unsized =
          fmt::format("stored shape [] stands for shape_signature {}",
                      ShapeText(std::vector<std::int64_t>(signature->begin(), signature->end())));
      return;
    }
    const auto elements = ShapeElements(out.shape);
    const auto bytes = elements ? TensorBytes(out.type, *elements) : std::nullopt;
    if (!bytes || *bytes > kMaxTensorBytes)
      Fail(fmt::format("{}: shape {} of {} is absurd (more than 2^56 bytes); the file is corrupt",
                       label, ShapeText(out.shape), DataTypeName(out.type)));
    out.bytes = bytes;
  }

  // Custom options: inline, or past the flatbuffer in models over 2 GiB.
  Bytes8 CustomOptions(const fb::Operator& op, const std::string& label) const {
    if (op.large_custom_options_offset() > 1)
      return External(op.large_custom_options_offset(), op.large_custom_options_size(),
                      label + ": custom options");
    if (!op.custom_options()) return {};
    return {op.custom_options()->data(), op.custom_options()->size()};
  }

  std::vector<std::int32_t> CalledSubgraphs(const fb::Operator& op, std::int32_t code,
                                            const std::string& label) const {
    auto missing = [&](const char* options) {
      Fail(fmt::format("{}: no {} (the subgraphs it runs are unknown)", label, options));
    };
    switch (code) {
      case kIfCode: {
        const auto* o = op.builtin_options_as_IfOptions();
        if (!o) missing("IfOptions");
        return {o->then_subgraph_index(), o->else_subgraph_index()};
      }
      case kWhileCode: {
        const auto* o = op.builtin_options_as_WhileOptions();
        if (!o) missing("WhileOptions");
        return {o->cond_subgraph_index(), o->body_subgraph_index()};
      }
      case kCallOnceCode: {
        const auto* o = op.builtin_options_as_CallOnceOptions();
        if (!o) missing("CallOnceOptions");
        return {o->init_subgraph_index()};
      }
      default:
        return {};
    }
  }

  Subgraph ReadSubgraph(flatbuffers::uoffset_t s, const fb::SubGraph& in,
                        std::vector<std::uint32_t>& buffers) const {
    Subgraph out;
    out.name = Str(in.name());
    if (const auto* tensors = in.tensors()) {
      out.tensors.reserve(tensors->size());
      buffers.resize(tensors->size());
      for (flatbuffers::uoffset_t t = 0; t < tensors->size(); ++t)
        out.tensors.push_back(ReadTensor(s, t, *tensors->Get(t), buffers[t]));
    }
    out.inputs = Ints(in.inputs());
    out.outputs = Ints(in.outputs());
    if (const auto* ops = in.operators()) {
      out.ops.reserve(ops->size());
      for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i) {
        const fb::Operator& op = *ops->Get(i);
        if (op.opcode_index() >= opcodes_.size())
          Fail(
              fmt::format("subgraph {}, op {}: operator code index {}, but the model has {} "
                          "operator codes",
                          s, i, op.opcode_index(), opcodes_.size()));
        const OpCode& code = opcodes_[op.opcode_index()];
        const std::string label = fmt::format("subgraph {}, op {} ({})", s, i, code.name);
        Operator o;
        o.type = code.name;
        o.inputs = Ints(op.inputs());
        o.outputs = Ints(op.outputs());
        o.intermediates = Ints(op.intermediates());
        o.called_subgraphs = CalledSubgraphs(op, code.code, label);
        o.int_params = KernelParams(op);
        if (code.code == kCustomCode) {
          const Bytes8 options = CustomOptions(op, label);
          o.int_params = {static_cast<std::int64_t>(options.size())};
          MarkKernelSizedOutputs(in, out, o, options);
        }
        out.ops.push_back(std::move(o));
      }
    }
    return out;
  }

  // A custom op's outputs stored as shape [] (rank unknown) are sized by its kernel at
  // run time; read literally they would be 4-byte scalars.
  void MarkKernelSizedOutputs(const fb::SubGraph& in, Subgraph& sg, const Operator& op,
                              Bytes8 options) const {
    // Input shapes for the rules that need them (a static shape, else empty).
    std::vector<std::vector<std::int64_t>> inputs;
    for (const std::int32_t t : op.inputs) {
      const bool known = t >= 0 && static_cast<std::size_t>(t) < sg.tensors.size() &&
                         sg.tensors[static_cast<std::size_t>(t)].bytes.has_value();
      inputs.push_back(known ? sg.tensors[static_cast<std::size_t>(t)].shape
                             : std::vector<std::int64_t>{});
    }
    const auto likely = formats::LikelyCustomOutputShapes(op.type, options, inputs);
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      const std::int32_t t = op.outputs[k];
      if (t < 0 || static_cast<std::size_t>(t) >= sg.tensors.size()) continue;  // ValidateGraph
      Tensor& tensor = sg.tensors[static_cast<std::size_t>(t)];
      if (!tensor.shape.empty() || tensor.is_constant || !tensor.bytes) continue;
      if (in.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t))->has_rank()) continue;
      tensor.bytes.reset();
      tensor.why_unsized = fmt::format(
          "output {} of custom op {} is stored as shape [] and sized by the op at run time", k,
          op.type);
      if (likely && k < likely->shapes.size()) {
        tensor.likely_shape = likely->shapes[k];
        tensor.why_unsized +=
            fmt::format(" ({} give {})", likely->basis, ShapeText(tensor.likely_shape));
      }
    }
  }

  // What shape propagation needs beyond the graph: signatures, options, small constants.
  void ReadShapeFacts(const fb::SubGraph& in, const Subgraph& sg,
                      const std::vector<std::uint32_t>& buffers, TfliteModel& out) const {
    auto& signatures = out.shape_signatures.emplace_back(sg.tensors.size());
    auto& constants = out.small_int_constants.emplace_back(sg.tensors.size());
    for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
      const fb::Tensor& tensor = *in.tensors()->Get(static_cast<flatbuffers::uoffset_t>(t));
      if (const auto* sig = tensor.shape_signature())
        signatures[t].assign(sig->begin(), sig->end());
      constants[t] = SmallIntConstant(sg.tensors[t], buffers[t]);
    }
    auto& options = out.op_options.emplace_back();
    if (const auto* ops = in.operators())
      for (flatbuffers::uoffset_t i = 0; i < ops->size(); ++i)
        options.push_back(ShapeOptions(*ops->Get(i)));
  }

  std::optional<std::vector<std::int64_t>> SmallIntConstant(const Tensor& t,
                                                            std::uint32_t buffer) const {
    if (!t.is_constant || !t.bytes) return std::nullopt;
    const bool wide = t.type == DataType::kInt64;
    if (!wide && t.type != DataType::kInt32) return std::nullopt;
    const auto elements = ShapeElements(t.shape);
    if (!elements || *elements > kSmallConstantElements) return std::nullopt;
    const Bytes8 data = BufferData(buffer);
    const std::size_t width = wide ? 8 : 4;
    if (data.size() < *elements * width) return std::nullopt;  // too short: not a usable value
    std::vector<std::int64_t> values;
    for (std::size_t k = 0; k < *elements; ++k) {
      std::uint64_t v = 0;
      for (std::size_t b = 0; b < width; ++b)  // little-endian, as the format stores it
        v |= static_cast<std::uint64_t>(data[k * width + b]) << (8 * b);
      values.push_back(wide ? static_cast<std::int64_t>(v)
                            : static_cast<std::int32_t>(static_cast<std::uint32_t>(v)));
    }
    return values;
  }

  // The options Operator::int_params keeps (graph.h) for the kernels' memory.
  static std::vector<std::int64_t> KernelParams(const fb::Operator& op) {
    using P = std::int64_t;
    if (const auto* bmm = op.builtin_options_as_BatchMatMulOptions())
      return {bmm->adj_x() ? 1 : 0, bmm->adj_y() ? 1 : 0};
    if (const auto* c = op.builtin_options_as_Conv2DOptions())
      return {static_cast<P>(c->padding()), c->stride_w(), c->stride_h(), c->dilation_w_factor(),
              c->dilation_h_factor()};
    if (const auto* d = op.builtin_options_as_DepthwiseConv2DOptions())
      return {static_cast<P>(d->padding()), d->stride_w(),          d->stride_h(),
              d->dilation_w_factor(),       d->dilation_h_factor(), d->depth_multiplier()};
    if (const auto* p = op.builtin_options_as_Pool2DOptions())
      return {static_cast<P>(p->padding()), p->stride_w(), p->stride_h(), p->filter_width(),
              p->filter_height()};
    if (const auto* t = op.builtin_options_as_TransposeConvOptions())
      return {static_cast<P>(t->padding()), t->stride_w(), t->stride_h()};
    return {};
  }

  static TfliteOpOptions ShapeOptions(const fb::Operator& op) {
    TfliteOpOptions o;
    // Padding and strides, as every windowed op's options table spells them; dilation as the
    // convolutions' do.
    const auto strided = [&](const auto* w) {
      o.padding = static_cast<std::int32_t>(w->padding());
      o.stride_w = w->stride_w();
      o.stride_h = w->stride_h();
    };
    const auto dilated = [&](const auto* w) {
      strided(w);
      o.dilation_w = w->dilation_w_factor();
      o.dilation_h = w->dilation_h_factor();
    };
    if (const auto* c = op.builtin_options_as_Conv2DOptions()) {
      dilated(c);
    } else if (const auto* d = op.builtin_options_as_DepthwiseConv2DOptions()) {
      dilated(d);
    } else if (const auto* p = op.builtin_options_as_Pool2DOptions()) {
      strided(p);
      o.filter_w = p->filter_width();
      o.filter_h = p->filter_height();
    } else if (const auto* f = op.builtin_options_as_FullyConnectedOptions()) {
      o.keep_num_dims = f->keep_num_dims();
    } else if (const auto* cat = op.builtin_options_as_ConcatenationOptions()) {
      o.axis = cat->axis();
    } else if (const auto* r = op.builtin_options_as_ReshapeOptions()) {
      o.has_new_shape = r->new_shape() != nullptr;
      o.dims = Ints(r->new_shape());
    } else if (const auto* red = op.builtin_options_as_ReducerOptions()) {
      o.keep_dims = red->keep_dims();
    } else if (const auto* sq = op.builtin_options_as_SqueezeOptions()) {
      o.dims = Ints(sq->squeeze_dims());
    } else if (const auto* ss = op.builtin_options_as_StridedSliceOptions()) {
      o.begin_mask = ss->begin_mask();
      o.end_mask = ss->end_mask();
      o.ellipsis_mask = ss->ellipsis_mask();
      o.new_axis_mask = ss->new_axis_mask();
      o.shrink_axis_mask = ss->shrink_axis_mask();
      o.slice_offset = ss->offset();
    } else if (const auto* pk = op.builtin_options_as_PackOptions()) {
      o.axis = pk->axis();
      o.count = pk->values_count();
    } else if (const auto* up = op.builtin_options_as_UnpackOptions()) {
      o.axis = up->axis();
      o.count = up->num();
    } else if (const auto* bmm = op.builtin_options_as_BatchMatMulOptions()) {
      o.adj_x = bmm->adj_x();
      o.adj_y = bmm->adj_y();
    }
    return o;
  }

  void ReadMetadata(TfliteModel& out) const {
    const auto* metadata = model_->metadata();
    if (!metadata) return;
    for (flatbuffers::uoffset_t i = 0; i < metadata->size(); ++i) {
      const fb::Metadata* m = metadata->Get(i);
      TfliteMetadata entry{Str(m->name()), m->buffer(), 0};
      if (entry.buffer >= has_data_.size())
        Fail(fmt::format("metadata entry {} ('{}'): buffer index {}, but the model has {} buffers",
                         i, entry.name, entry.buffer, has_data_.size()));
      const Bytes8 data = BufferData(entry.buffer);
      entry.bytes = data.size();
      // TFLM compares the exact name and keeps the last entry that matches.
      if (entry.name == kOfflinePlanMetadata) {
        OfflinePlan plan = formats::ParseOfflinePlan(data, out.graph.TensorCount());
        plan.metadata_index = i;
        plan.buffer_index = entry.buffer;
        out.offline_plan = std::move(plan);
      }
      out.metadata.push_back(std::move(entry));
    }
    out.graph.fixed_offsets.clear();
    if (out.offline_plan && out.offline_plan->problem.empty())
      out.graph.fixed_offsets.assign(out.offline_plan->offsets.begin(),
                                     out.offline_plan->offsets.end());
  }

  std::string_view bytes_;
  std::string source_;
  const fb::Model* model_;
  std::vector<bool> has_data_;  // per buffer: carries data (the tensor is a constant)
  std::vector<OpCode> opcodes_;
};

}  // namespace

TfliteModel ParseTflite(std::string_view bytes, std::string_view source) {
  // The verifier checks alignment relative to the buffer start; reading 8-byte fields is
  // only safe when the start itself is 8-aligned, so copy bytes that are not.
  if (reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(std::uint64_t) != 0) {
    std::vector<std::uint64_t> aligned((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    return TfliteReader({reinterpret_cast<const char*>(aligned.data()), bytes.size()}, source)
        .Read();
  }
  return TfliteReader(bytes, source).Read();
}

TfliteModel ReadTfliteFile(const std::filesystem::path& path, std::string_view source) {
  const std::string bytes = ReadFileBytes(path);
  const std::string name = source.empty() ? path.string() : std::string(source);
  return ParseTflite(bytes, name);
}

}  // namespace memplan
