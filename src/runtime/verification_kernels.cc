// The verification kernels. Eval of every op:
//   h  = hash(op identity, every input byte)           inputs read
//   scratch k <- stream(h, k)                           scratch written
//   [control flow: called subgraph inputs <- stream(h), run it, h = hash(h, its outputs)]
//   variable inputs <- stream(h, variable)             state: read, modify, write
//   output j <- stream(h, j)                            outputs written
//   h2 = hash(h, inputs, scratch, outputs)              read back: anything clobbered since
//   output j's first 8 bytes ^= h2                      ... shows in the outputs
// Constants live outside the arena (in the model); they are hashed by identity.
//
// In place (plans with shares, e.g. `memplan embed --inplace`): an op that memplan's
// widest rule set lets write over an input does what such a kernel does on shared
// memory. An overwrite op (ADD, RELU, ...) whose output 0 is exactly the input's bytes
// reads the input before writing, so its read-back uses those bytes as read; a
// reshape-like op (RESHAPE, EXPAND_DIMS, ...) copies its input to output 0 unchanged, in
// every layout (that is what the op does), and spoils the copy when another input was
// clobbered. Any other overlap still changes the outputs.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/runtime_check.h"
#include "src/runtime/hash_stream.h"

namespace memplan {

namespace {

using detail::Absorb;
using detail::FillStream;
using detail::Mix64;

struct VerifyOpData {
  std::uint64_t seed = 0;  // op identity: node index and op type
};

void* InitVerify(OpContext& context) {
  auto* data = static_cast<VerifyOpData*>(context.AllocatePersistent(sizeof(VerifyOpData)));
  data->seed = Mix64(static_cast<std::uint64_t>(context.node_index()) * 0x100000001b3ULL ^
                     detail::HashText(context.op().type));
  return data;
}

std::uint64_t AbsorbView(std::uint64_t h, const TensorView& view, std::uint64_t position) {
  if (!view.present()) return Mix64(h ^ (0xa5a5ULL + position));
  if (view.tensor->is_constant)
    return Mix64(h ^ Mix64(static_cast<std::uint64_t>(view.ref.tensor) + 31 * position));
  return Absorb(h ^ position, view.data);
}

std::uint64_t AbsorbInputs(std::uint64_t h, OpContext& context) {
  for (std::size_t i = 0; i < context.num_inputs(); ++i) h = AbsorbView(h, context.input(i), i);
  return h;
}

std::uint64_t AbsorbScratch(std::uint64_t h, OpContext& context) {
  for (int k = 0; k < context.num_scratch(); ++k)
    h = Absorb(h ^ (0x5cULL + static_cast<std::uint64_t>(k)), context.Scratch(k));
  return h;
}

bool Writable(const TensorView& view) {
  return view.present() && !view.tensor->is_constant;
}

bool SameBytes(const TensorView& a, const TensorView& b) {
  return a.data.data() == b.data.data() && a.data.size() == b.data.size();
}

// The input output 0 may take the memory of under memplan's widest in-place rules: the
// allowed one it does share, else (reshape-like ops, which copy) the first allowed one
// of its size in the arena; -1 when none.
int SharableInput(OpContext& context, const InPlaceRule& rule) {
  if (context.num_outputs() == 0 || !Writable(context.output(0))) return -1;
  const TensorView out = context.output(0);
  int first = -1;
  for (std::size_t i = 0; i < context.num_inputs() && i < 32; ++i) {
    const TensorView in = context.input(i);
    if (!(rule.inputs >> i & 1u) || !Writable(in) || in.tensor->is_variable ||
        in.data.size() != out.data.size() || out.data.empty())
      continue;
    if (SameBytes(in, out)) return static_cast<int>(i);
    if (first < 0) first = static_cast<int>(i);
  }
  return rule.kind == ShareKind::kAlias ? first : -1;
}

// A reshape-like op: output 0 = input `from` byte for byte; other outputs as usual. A
// clobbered input (other than the one shared) spoils the copy.
void EvalAlias(OpContext& context, std::size_t from) {
  const auto* data = static_cast<const VerifyOpData*>(context.op_data());
  std::vector<std::uint64_t> before(context.num_inputs());
  for (std::size_t i = 0; i < context.num_inputs(); ++i)
    before[i] = AbsorbView(data->seed, context.input(i), i);
  const TensorView in = context.input(from);
  const TensorView out = context.output(0);
  if (!SameBytes(in, out)) std::memmove(out.data.data(), in.data.data(), out.data.size());
  const std::uint64_t h = Mix64(before.empty() ? data->seed : before.back());
  for (std::size_t j = 1; j < context.num_outputs(); ++j)
    if (Writable(context.output(j))) FillStream(context.output(j).data, Mix64(h ^ (0x5000 + j)));
  for (std::size_t i = 0; i < context.num_inputs(); ++i) {
    if (i == from && SameBytes(in, out)) continue;
    if (AbsorbView(data->seed, context.input(i), i) != before[i]) {
      out.data[0] ^= std::byte{0xff};
      return;
    }
  }
}

void EvalVerify(OpContext& context) {
  const auto* data = static_cast<const VerifyOpData*>(context.op_data());
  static const InPlaceRuleSet& widest = InPlaceRuleSetNamed("all");
  const InPlaceRule* rule = widest.Find(context.op().type);
  const int shared = rule ? SharableInput(context, *rule) : -1;
  if (shared >= 0 && rule->kind == ShareKind::kAlias)
    return EvalAlias(context, static_cast<std::size_t>(shared));
  // An overwrite in place: keep the input's bytes as read for the read-back.
  std::vector<std::byte> as_read;
  if (shared >= 0 &&
      SameBytes(context.input(static_cast<std::size_t>(shared)), context.output(0))) {
    const auto bytes = context.input(static_cast<std::size_t>(shared)).data;
    as_read.assign(bytes.begin(), bytes.end());
  }
  std::uint64_t h = AbsorbInputs(data->seed, context);
  for (int k = 0; k < context.num_scratch(); ++k)
    FillStream(context.Scratch(k), Mix64(h + 0x1000 + static_cast<std::uint64_t>(k)));

  const Operator& op = context.op();
  for (std::size_t c = 0; c < op.called_subgraphs.size(); ++c) {
    const std::int32_t called = op.called_subgraphs[c];
    const Subgraph& sg = context.graph().subgraphs[called];
    for (std::size_t i = 0; i < sg.inputs.size(); ++i) {
      const TensorView in = context.tensor(called, sg.inputs[i]);
      if (Writable(in)) FillStream(in.data, Mix64(h ^ (0x2000 + 64 * c + i)));
    }
    context.InvokeSubgraph(called);
    for (std::size_t i = 0; i < sg.outputs.size(); ++i)
      h = AbsorbView(h, context.tensor(called, sg.outputs[i]), 0x3000 + i);
  }

  for (std::size_t i = 0; i < context.num_inputs(); ++i) {
    const TensorView in = context.input(i);
    if (Writable(in) && in.tensor->is_variable) FillStream(in.data, Mix64(h ^ (0x4000 + i)));
  }
  for (std::size_t j = 0; j < context.num_outputs(); ++j) {
    const TensorView out = context.output(j);
    if (Writable(out)) FillStream(out.data, Mix64(h ^ (0x5000 + j)));
  }
  std::uint64_t h2 = Mix64(h);
  for (std::size_t i = 0; i < context.num_inputs(); ++i)
    h2 = !as_read.empty() && static_cast<int>(i) == shared ? Absorb(h2 ^ i, as_read)
                                                           : AbsorbView(h2, context.input(i), i);
  h2 = AbsorbScratch(h2, context);
  for (std::size_t j = 0; j < context.num_outputs(); ++j) h2 = AbsorbView(h2, context.output(j), j);
  for (std::size_t j = 0; j < context.num_outputs(); ++j) {
    const TensorView out = context.output(j);
    if (!Writable(out)) continue;
    const std::uint64_t tag = Mix64(h2 + j);
    const std::size_t n = std::min<std::size_t>(8, out.data.size());
    for (std::size_t b = 0; b < n; ++b) out.data[b] ^= static_cast<std::byte>(tag >> (8 * b));
  }
}

void EvalNothing(OpContext&) {}

// ---- Scratch requests of TFLM's reference kernels -----------------------------------

[[noreturn]] void BadOp(OpContext& context, const std::string& what) {
  throw InputError(fmt::format("{}: op {} ({}) in subgraph {}: {}", context.graph().source,
                               context.op_index(), context.op().type, context.subgraph(), what));
}

// Dimension `d` of a present, statically shaped input or output.
std::int64_t Dim(OpContext& context, const TensorView& view, std::size_t d, const char* role) {
  if (!view.present() || view.tensor->shape.size() <= d || view.tensor->shape[d] < 0)
    BadOp(context,
          fmt::format("its {} needs a static shape with at least {} dimensions", role, d + 1));
  return view.tensor->shape[d];
}

std::int64_t Elements(const TensorView& view) {
  std::int64_t n = 1;
  for (std::int64_t d : view.tensor->shape) n *= std::max<std::int64_t>(d, 0);
  return n;
}

void Request(OpContext& context, std::int64_t bytes) {
  if (bytes < 0) BadOp(context, "negative scratch size");
  context.RequestScratch(static_cast<std::size_t>(bytes));
}

// svdf_common.cc: batch*num_filters*4, and for quantized inputs batch*num_units*4.
void PrepareSvdf(OpContext& context) {
  if (context.num_inputs() < 5 || context.num_outputs() < 1)
    BadOp(context, "SVDF needs 5 inputs and 1 output");
  const TensorView input = context.input(0);
  const std::int64_t batch = Dim(context, input, 0, "input");
  const std::int64_t num_filters = Dim(context, context.input(1), 0, "weights_feature");
  const std::int64_t num_units = Dim(context, context.output(0), 1, "output");
  Request(context, batch * num_filters * 4);
  if (input.tensor->type != DataType::kFloat32) Request(context, batch * num_units * 4);
}

// unidirectional_sequence_lstm.cc: four buffers of batch*cells elements of the cell
// state's type, i.e. the cell state's size.
void PrepareLstm(OpContext& context) {
  constexpr std::size_t kCellState = 19;
  if (context.num_inputs() <= kCellState || !context.input(kCellState).present())
    BadOp(context, "UNIDIRECTIONAL_SEQUENCE_LSTM needs its cell state (input 19)");
  const Tensor& cell = *context.input(kCellState).tensor;
  if (!cell.bytes) BadOp(context, "its cell state has no static size");
  for (int i = 0; i < 4; ++i) Request(context, static_cast<std::int64_t>(*cell.bytes));
}

// reduce_common.cc: MEAN and SUM on int8/int16 inputs sum into output elements*4 bytes.
void PrepareMeanOrSum(OpContext& context) {
  if (context.num_inputs() < 1 || context.num_outputs() < 1)
    BadOp(context, "needs an input and an output");
  const DataType type = context.input(0).tensor->type;
  if (type == DataType::kInt8 || type == DataType::kInt16)
    Request(context, Elements(context.output(0)) * 4);
}

// reduce_common.cc: REDUCE_MAX/MIN keep an index per input dimension and the axes.
void PrepareReduceMinMax(OpContext& context) {
  if (context.num_inputs() < 2 || !context.input(1).present())
    BadOp(context, "needs an input and an axis tensor");
  Request(context, 4 * static_cast<std::int64_t>(context.input(0).tensor->shape.size()));
  Request(context, 4 * Elements(context.input(1)));
}

KernelRegistry MakeRegistry(void (*eval)(OpContext&), const char* prefix) {
  KernelRegistry r;
  const std::string_view p = prefix;
  const bool verify = p == "verify";
  r.SetFallback({verify ? "verify/generic" : "null/generic", &InitVerify, nullptr, eval});
  r.Add("SVDF", {verify ? "verify/svdf" : "null/svdf", &InitVerify, &PrepareSvdf, eval});
  r.Add("UNIDIRECTIONAL_SEQUENCE_LSTM",
        {verify ? "verify/lstm" : "null/lstm", &InitVerify, &PrepareLstm, eval});
  for (const char* type : {"MEAN", "SUM"})
    r.Add(type,
          {verify ? "verify/mean_sum" : "null/mean_sum", &InitVerify, &PrepareMeanOrSum, eval});
  for (const char* type : {"REDUCE_MAX", "REDUCE_MIN"})
    r.Add(type,
          {verify ? "verify/reduce" : "null/reduce", &InitVerify, &PrepareReduceMinMax, eval});
  return r;
}

}  // namespace

const KernelRegistry& VerificationKernels() {
  static const KernelRegistry registry = MakeRegistry(&EvalVerify, "verify");
  return registry;
}

const KernelRegistry& NullKernels() {
  static const KernelRegistry registry = MakeRegistry(&EvalNothing, "null");
  return registry;
}

}  // namespace memplan
