// The verification kernels. Eval of every op:
//   h  = hash(op identity, every input byte)           inputs read
//   scratch k <- stream(h, k)                           scratch written
//   [control flow: called subgraph inputs <- stream(h), run it, h = hash(h, its outputs)]
//   variable inputs <- stream(h, variable)             state: read, modify, write
//   output j <- stream(h, j)                            outputs written
//   h2 = hash(h, inputs, scratch, outputs)              read back: anything clobbered since
//   output j's first 8 bytes ^= h2                      ... shows in the outputs
// Constants live outside the arena (in the model); they are hashed by identity.
// Ops an in-place rule set may let share memory get kernels that honour it instead
// (sharing_kernels.cc): reshape-like ops copy, element-wise ops stream word by word. Vela's
// ethos-u op, whose tensors overlap by design, reads its inputs before it writes anything.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/runtime_check.h"
#include "memplan/vela.h"
#include "src/runtime/hash_stream.h"
#include "src/runtime/verify_kernels.h"

namespace memplan {

namespace runtime {

void* InitVerify(OpContext& context) {
  auto* data = static_cast<VerifyOpData*>(context.AllocatePersistent(sizeof(VerifyOpData)));
  data->seed = Mix64(static_cast<std::uint64_t>(context.node_index()) * 0x100000001b3ULL ^
                     runtime::HashText(context.op().type));
  return data;
}

namespace {

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

}  // namespace

void EvalVerifyGeneric(OpContext& context) {
  const auto* data = static_cast<const VerifyOpData*>(context.op_data());
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
  std::uint64_t h2 = AbsorbScratch(AbsorbInputs(Mix64(h), context), context);
  for (std::size_t j = 0; j < context.num_outputs(); ++j) h2 = AbsorbView(h2, context.output(j), j);
  for (std::size_t j = 0; j < context.num_outputs(); ++j) {
    const TensorView out = context.output(j);
    if (!Writable(out)) continue;
    const std::uint64_t tag = Mix64(h2 + j);
    const std::size_t n = std::min<std::size_t>(8, out.data.size());
    for (std::size_t b = 0; b < n; ++b) out.data[b] ^= static_cast<std::byte>(tag >> (8 * b));
  }
}

// ethos-u (a Vela-compiled NPU op): Vela places its input feature maps, its outputs and its
// fast scratch inside its scratch tensor on purpose, and the NPU orders their use within the
// op (docs/tflm.md, "Vela-compiled models"). So the feature maps and constants are hashed
// first, then the two scratch tensors are written (working memory, never data), then the
// outputs; nothing is read back, as the op's own tensors overlap by design. A tensor of
// another op over them still shows: it is read after this op.
namespace {

void EvalEthosU(OpContext& context) {
  constexpr std::size_t kScratch = 2, kFastScratch = 3;
  const auto* data = static_cast<const VerifyOpData*>(context.op_data());
  std::uint64_t h = data->seed;
  for (std::size_t i = 0; i < context.num_inputs(); ++i)
    if (i != kScratch && i != kFastScratch) h = AbsorbView(h, context.input(i), i);
  for (const std::size_t i : {kScratch, kFastScratch})
    if (i < context.num_inputs() && Writable(context.input(i)))
      FillStream(context.input(i).data, Mix64(h ^ (0x6000 + i)));
  for (std::size_t j = 0; j < context.num_outputs(); ++j) {
    const TensorView out = context.output(j);
    if (Writable(out)) FillStream(out.data, Mix64(h ^ (0x5000 + j)));
  }
}

}  // namespace

}  // namespace runtime

namespace {

using runtime::InitVerify;

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

// reduce_common.cc: MEAN and SUM on int8/int16 inputs sum into output elements*4 bytes;
// every type then keeps an index per input dimension and the resolved axes (4 bytes each).
void PrepareMeanOrSum(OpContext& context) {
  if (context.num_inputs() < 2 || context.num_outputs() < 1 || !context.input(1).present())
    BadOp(context, "needs an input, an axis tensor and an output");
  const DataType type = context.input(0).tensor->type;
  if (type == DataType::kInt8 || type == DataType::kInt16)
    Request(context, Elements(context.output(0)) * 4);
  Request(context, 4 * static_cast<std::int64_t>(context.input(0).tensor->shape.size()));
  Request(context, 4 * Elements(context.input(1)));
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

// Every op type a built-in in-place rule set names gets the kernel of its kind, in every
// layout, whatever set a run uses: the naive layout must compute the same bytes.
KernelRegistry MakeVerificationRegistry() {
  KernelRegistry r = MakeRegistry(&runtime::EvalVerifyGeneric, "verify");
  std::map<std::string, ShareKind, std::less<>> kinds;
  for (const InPlaceRuleSet& set : InPlaceRuleSets())
    for (const InPlaceRule& rule : set.rules) {
      const auto [it, added] = kinds.emplace(rule.op, rule.kind);
      if (!added && it->second != rule.kind)
        throw InternalError(
            fmt::format("in-place rules: {} is an alias in one set and an "
                        "overwrite in another",
                        rule.op));
    }
  for (const auto& [op, kind] : kinds)
    r.Add(op, kind == ShareKind::kAlias
                  ? Kernel{"verify/alias", &InitVerify, nullptr, &runtime::EvalAlias}
                  : Kernel{"verify/elementwise", &InitVerify, nullptr, &runtime::EvalElementwise});
  r.Add(std::string(kEthosUOp), {"verify/ethos-u", &InitVerify, nullptr, &runtime::EvalEthosU});
  return r;
}

}  // namespace

const KernelRegistry& VerificationKernels() {
  static const KernelRegistry registry = MakeVerificationRegistry();
  return registry;
}

const KernelRegistry& NullKernels() {
  static const KernelRegistry registry = MakeRegistry(&EvalNothing, "null");
  return registry;
}

}  // namespace memplan
