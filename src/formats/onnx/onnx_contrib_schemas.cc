// Shape rules for the com.microsoft operators ONNX Runtime's transformer optimizer and
// graph fusions write: attention, embedding and layer-normalization fusions, GELU
// variants, fused Conv/MatMul/Gemm. Inputs and outputs as ONNX Runtime's contrib
// operator documentation gives them (docs/import.md restates the rules).
#include "src/formats/onnx/onnx_schema_rules.h"
#include "src/formats/onnx/onnx_schemas.h"

namespace memplan::formats {

namespace {

using namespace onnx_rules;

constexpr const char* kMs = kMicrosoftDomain;

// Output 0 is input 0 (type and shape).
void LikeFirstInput(Ctx& ctx) {
  SameAs(ctx, 0, 0);
}

// Attention: input [B,S,D_in], weights [D_in, Dq+Dk+Dv], optional past [2,B,N,P,H].
// Output [B,S,Dv] with Dv = qkv_hidden_sizes[2] or weights' columns / 3; present
// [2,B,N,P+S,H] (P when past and present share one buffer).
void AttentionRule(Ctx& ctx) {
  const auto input = InputDims(ctx, 0);
  const auto weights = InputDims(ctx, 1);
  if (input && input->size() == 3) {
    Dim hidden;
    const onnx::AttributeProto* sizes = ctx.getAttribute("qkv_hidden_sizes");
    if (sizes && sizes->ints_size() == 3)
      hidden = Value(sizes->ints(2));
    else if (weights && weights->size() == 2)
      hidden = Div((*weights)[1], 3);
    SetOutput(ctx, 0, InputType(ctx, 0), Dims{(*input)[0], (*input)[1], hidden});
  } else {
    SetOutput(ctx, 0, InputType(ctx, 0), std::nullopt);
  }
  const auto past = InputDims(ctx, 4);
  if (HasOutput(ctx, 1) && past && past->size() == 5 && input && input->size() == 3) {
    Dims present = *past;
    if (IntAttribute(ctx, "past_present_share_buffer", 0) == 0)
      present[3] = Add((*past)[3], (*input)[1]);
    SetOutput(ctx, 1, InputType(ctx, 0), present);
  }
}

// The value hidden size of MultiHeadAttention's inputs: value [B,L,Dv], value [B,N,L,H],
// packed key/value [B,L,N,2,H] or packed query/key/value [B,S,N,3,H].
Dim ValueHidden(Ctx& ctx) {
  const auto query = InputDims(ctx, 0);
  const auto key = InputDims(ctx, 1);
  const auto value = InputDims(ctx, 2);
  if (value && value->size() == 3) return (*value)[2];
  if (value && value->size() == 4) return Mul((*value)[1], (*value)[3]);
  if (key && key->size() == 5) return Mul((*key)[2], (*key)[4]);
  if (query && query->size() == 5) return Mul((*query)[2], (*query)[4]);
  if (query && query->size() == 3 && !key) return Div((*query)[2], 3);
  if (query && query->size() == 3) return (*query)[2];
  return Unknown();
}

// MultiHeadAttention: output [B,S,Dv]; present_key/value [B,N,P+L,H] from past_key
// [B,N,P,H] and a key of length L (3-D [B,L,D]: H = D / num_heads).
void MultiHeadAttentionRule(Ctx& ctx) {
  const auto query = InputDims(ctx, 0);
  const std::int32_t type = InputType(ctx, 0);
  if (query && (query->size() == 3 || query->size() == 5))
    SetOutput(ctx, 0, type, Dims{(*query)[0], (*query)[1], ValueHidden(ctx)});
  else
    SetOutput(ctx, 0, type, std::nullopt);
  const std::int64_t heads = IntAttribute(ctx, "num_heads", 0);
  const auto key = InputDims(ctx, 1);
  const auto past_key = InputDims(ctx, 6);
  for (std::size_t out : {1u, 2u}) {
    if (!HasOutput(ctx, out)) continue;
    const auto past = InputDims(ctx, out == 1 ? 6 : 7);
    if (key && key->size() == 3 && heads > 0) {
      const Dim head = Div((*key)[2], heads);
      const Dim length = past && past->size() == 4 ? Add((*past)[2], (*key)[1]) : (*key)[1];
      const Dim head_size = past && past->size() == 4 ? (*past)[3] : head;
      SetOutput(ctx, out, type, Dims{(*key)[0], Value(heads), length, head_size});
    } else if (key && key->size() == 4 && !past_key) {
      SameAs(ctx, out == 1 ? 1 : 2, out);  // key and value already [B,N,L,H]
    } else {
      SetOutput(ctx, out, type, std::nullopt);
    }
  }
}

// GroupQueryAttention: query [B,S,N*H] (or packed [B,S,(N+2K)*H] without key), past_key
// [B,K,P,H]; output [B,S,N*H]; present [B,K,T,H] with T = max(P, total_sequence_length)
// when both are known, P when only the buffer's length is.
void GroupQueryAttentionRule(Ctx& ctx) {
  const auto query = InputDims(ctx, 0);
  const std::int32_t type = InputType(ctx, 0);
  const std::int64_t heads = IntAttribute(ctx, "num_heads", 0);
  const std::int64_t kv_heads = IntAttribute(ctx, "kv_num_heads", 0);
  // Without a key, the query holds query, key and value packed together.
  const bool packed = ctx.getNumInputs() < 2 || !ctx.getInputType(1);
  Dim head;
  // Head counts beyond any model's keep hostile values from overflowing below.
  constexpr std::int64_t kMostHeads = std::int64_t{1} << 20;
  if (query && query->size() == 3 && heads > 0 && heads < kMostHeads && kv_heads >= 0 &&
      kv_heads < kMostHeads) {
    head = packed ? Div((*query)[2], heads + 2 * kv_heads) : Div((*query)[2], heads);
    SetOutput(ctx, 0, type,
              Dims{(*query)[0], (*query)[1], packed ? Mul(head, Value(heads)) : (*query)[2]});
  } else {
    SetOutput(ctx, 0, type, std::nullopt);
  }
  const auto total = ScalarInput(ctx, 6);
  for (std::size_t out : {1u, 2u}) {
    if (!HasOutput(ctx, out)) continue;
    const auto past = InputDims(ctx, out == 1 ? 3 : 4);
    if (past && past->size() == 4) {
      Dims present = *past;
      if (total && (*past)[2].has_dim_value())
        present[2] = Value(std::max(*total, (*past)[2].dim_value()));
      else if (total)
        present[2] = Value(*total);
      SetOutput(ctx, out, type, present);
    } else if (query && query->size() == 3 && kv_heads > 0) {
      SetOutput(ctx, out, type,
                Dims{(*query)[0], Value(kv_heads), total ? Value(*total) : (*query)[1], head});
    } else {
      SetOutput(ctx, out, type, std::nullopt);
    }
  }
}

// EmbedLayerNormalization: input_ids [B,S], word_embedding [V,H] -> output [B,S,H]
// (word_embedding's type), mask_index [B] int32, embedding_sum [B,S,H].
void EmbedLayerNormRule(Ctx& ctx) {
  const auto ids = InputDims(ctx, 0);
  const auto words = InputDims(ctx, 2);
  const std::int32_t type = InputType(ctx, 2);
  std::optional<Dims> out;
  if (ids && ids->size() == 2 && words && words->size() == 2)
    out = Dims{(*ids)[0], (*ids)[1], (*words)[1]};
  SetOutput(ctx, 0, type, out);
  SetOutput(ctx, 1, onnx::TensorProto::INT32,
            ids && !ids->empty() ? std::optional<Dims>(Dims{(*ids)[0]}) : std::nullopt);
  SetOutput(ctx, 2, type, out);
}

// The input's dims with the axes from `axis` on set to 1 (LayerNormalization's mean).
std::optional<Dims> Reduced(const std::optional<Dims>& x, std::int64_t axis) {
  if (!x) return std::nullopt;
  const auto rank = static_cast<std::int64_t>(x->size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return std::nullopt;
  Dims out = *x;
  for (std::int64_t i = axis; i < rank; ++i) out[static_cast<std::size_t>(i)] = Value(1);
  return out;
}

// LayerNormalization (ONNX Runtime's, before ONNX's own at opset 17) and the simplified
// (RMS) form: Y like X; mean and inverse standard deviation over the normalized axes, in
// stash_type (float by default).
void LayerNormRule(Ctx& ctx, bool simplified) {
  SameAs(ctx, 0, 0);
  const auto x = InputDims(ctx, 0);
  const auto stats = Reduced(x, IntAttribute(ctx, "axis", -1));
  const auto stash = static_cast<std::int32_t>(IntAttribute(ctx, "stash_type", 1));
  SetOutput(ctx, 1, stash, stats);
  if (!simplified) SetOutput(ctx, 2, stash, stats);
}

// SkipLayerNormalization and its simplified form: output and input_skip_bias_sum like
// input [B,S,H]; mean and inv_std_var [B,S,1] float.
void SkipLayerNormRule(Ctx& ctx) {
  SameAs(ctx, 0, 0);
  const auto stats = Reduced(InputDims(ctx, 0), -1);
  SetOutput(ctx, 1, onnx::TensorProto::FLOAT, stats);
  SetOutput(ctx, 2, onnx::TensorProto::FLOAT, stats);
  SameAs(ctx, 0, 3);
}

// FusedMatMul: alpha * op(A) x op(B), transA/transB on the last two axes.
void FusedMatMulRule(Ctx& ctx) {
  const auto a = InputDims(ctx, 0);
  const auto b = InputDims(ctx, 1);
  std::optional<Dims> out;
  if (a && b && IntAttribute(ctx, "transBatchA", 0) == 0 &&
      IntAttribute(ctx, "transBatchB", 0) == 0)
    out = MatMulDims(*a, *b, IntAttribute(ctx, "transA", 0) != 0,
                     IntAttribute(ctx, "transB", 0) != 0);
  SetOutput(ctx, 0, InputType(ctx, 0), out);
}

// NhwcConv: Conv's rule on X seen as NCHW, the result back in NHWC.
void NhwcConvRule(Ctx& ctx) {
  const auto x = InputDims(ctx, 0);
  SetOutput(ctx, 0, InputType(ctx, 0), std::nullopt);
  if (!x || x->size() < 3) return;
  // Run Conv's rule on a private copy of the inputs with X transposed.
  onnx::TypeProto nchw = *ctx.getInputType(0);
  auto* shape = nchw.mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  *shape->add_dim() = (*x)[0];
  *shape->add_dim() = x->back();
  for (std::size_t i = 1; i + 1 < x->size(); ++i) *shape->add_dim() = (*x)[i];
  struct Transposed final : onnx::InferenceContext {
    Ctx& base;
    const onnx::TypeProto& x;
    onnx::TypeProto result;
    Transposed(Ctx& b, const onnx::TypeProto& t) : base(b), x(t) {}
    const onnx::AttributeProto* getAttribute(const std::string& n) const override {
      return base.getAttribute(n);
    }
    size_t getNumInputs() const override { return std::min<size_t>(base.getNumInputs(), 3); }
    const onnx::TypeProto* getInputType(size_t i) const override {
      return i == 0 ? &x : base.getInputType(i);
    }
    const onnx::TensorProto* getInputData(size_t i) const override { return base.getInputData(i); }
    size_t getNumOutputs() const override { return 1; }
    onnx::TypeProto* getOutputType(size_t) override { return &result; }
    onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
      return nullptr;
    }
    const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
    const onnx::TensorShapeProto* getSymbolicInput(size_t) const override { return nullptr; }
  } conv(ctx, nchw);
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema("Conv", 11, "");
  schema->GetTypeAndShapeInferenceFunction()(conv);
  if (!conv.result.tensor_type().has_shape()) return;
  const auto& y = conv.result.tensor_type().shape();
  Dims out{y.dim(0)};
  for (int i = 2; i < y.dim_size(); ++i) out.push_back(y.dim(i));
  out.push_back(y.dim(1));
  SetOutput(ctx, 0, InputType(ctx, 0), out);
}

}  // namespace

void AddContribSchemas(SchemaRegistry& r) {
  // Attention family.
  r.Add(RuleSchema("Attention", kMs, 1, 2, 8, 1, 1, AttentionRule));
  r.Add(RuleSchema("MultiHeadAttention", kMs, 1, 1, 10, 1, 3, MultiHeadAttentionRule));
  r.Add(RuleSchema("GroupQueryAttention", kMs, 1, 1, 13, 1, 3, GroupQueryAttentionRule));
  r.Add(RuleSchema("DecoderMaskedMultiHeadAttention", kMs, 1, 1, 11, 1, 3, MultiHeadAttentionRule));
  r.Add(RuleSchema("RotaryEmbedding", kMs, 1, 4, 0, 1, 0, LikeFirstInput));
  // Embedding and normalization fusions.
  // segment_ids (input 1) is optional: only input_ids is required in position.
  r.Add(RuleSchema("EmbedLayerNormalization", kMs, 1, 1, 8, 2, 1, EmbedLayerNormRule));
  r.Add(RuleSchema("SkipLayerNormalization", kMs, 1, 3, 2, 1, 3, SkipLayerNormRule));
  r.Add(RuleSchema("SkipSimplifiedLayerNormalization", kMs, 1, 3, 1, 1, 3, SkipLayerNormRule));
  auto layer_norm = [](Ctx& ctx) { LayerNormRule(ctx, false); };
  auto simplified = [](Ctx& ctx) { LayerNormRule(ctx, true); };
  r.Add(RuleSchema("LayerNormalization", kMs, 1, 2, 1, 1, 2, layer_norm));
  r.Add(RuleSchema("SimplifiedLayerNormalization", kMs, 1, 2, 0, 1, 1, simplified));
  // ONNX Runtime also registers these two in the default domain at version 1, where
  // exported models use them below opset 17 (ONNX's LayerNormalization starts at 17).
  r.Add(RuleSchema("LayerNormalization", "", 1, 2, 1, 1, 2, layer_norm));
  r.Add(RuleSchema("SimplifiedLayerNormalization", "", 1, 2, 0, 1, 1, simplified));
  r.Add(RuleSchema("GroupNorm", kMs, 1, 3, 0, 1, 0, LikeFirstInput));
  r.Add(RuleSchema("SkipGroupNorm", kMs, 1, 4, 1, 1, 1, [](Ctx& ctx) {
    SameAs(ctx, 0, 0);
    SameAs(ctx, 0, 1);
  }));
  // Activations that keep their input's shape.
  for (const char* op : {"Gelu", "FastGelu", "BiasGelu", "QuickGelu", "BiasAdd", "BiasSoftmax",
                         "Inverse", "Trilu", "NGramRepeatBlock"})
    r.Add(RuleSchema(op, kMs, 1, 1, 3, 1, 0, LikeFirstInput));
  r.Add(RuleSchema("BiasDropout", kMs, 1, 2, 3, 1, 1, [](Ctx& ctx) {
    SameAs(ctx, 0, 0);
    SetOutput(ctx, 1, onnx::TensorProto::BOOL, InputDims(ctx, 0));
  }));
  r.Add(RuleSchema("BiasSplitGelu", kMs, 1, 2, 0, 1, 0, [](Ctx& ctx) {
    auto x = InputDims(ctx, 0);
    if (x && !x->empty()) x->back() = Div(x->back(), 2);
    SetOutput(ctx, 0, InputType(ctx, 0), x);
  }));
  // Fused Conv, MatMul and Gemm.
  r.Add(RuleSchema("FusedConv", kMs, 1, 2, 2, 1, 0, [](Ctx& ctx) {
    InferAs(ctx, "Conv", 11, {0, 1, 2});
  }));
  r.Add(RuleSchema("NhwcConv", kMs, 1, 2, 1, 1, 0, NhwcConvRule));
  r.Add(RuleSchema("NhwcFusedConv", kMs, 1, 2, 2, 1, 0, NhwcConvRule));
  // ONNX Runtime's GridSample before ONNX's own (opset 16): X [N,C,H,W], grid
  // [N,H_out,W_out,2] -> [N,C,H_out,W_out].
  r.Add(RuleSchema("GridSample", kMs, 1, 2, 0, 1, 0, [](Ctx& ctx) {
    const auto x = InputDims(ctx, 0), grid = InputDims(ctx, 1);
    std::optional<Dims> out;
    if (x && x->size() == 4 && grid && grid->size() == 4)
      out = Dims{(*x)[0], (*x)[1], (*grid)[1], (*grid)[2]};
    SetOutput(ctx, 0, InputType(ctx, 0), out);
  }));
  r.Add(RuleSchema("FusedMatMul", kMs, 1, 2, 0, 1, 0, FusedMatMulRule));
  r.Add(RuleSchema("TransposeMatMul", kMs, 1, 2, 0, 1, 0, FusedMatMulRule));
  r.Add(RuleSchema("FusedGemm", kMs, 1, 2, 1, 1, 0, [](Ctx& ctx) {
    InferAs(ctx, "Gemm", 13, {0, 1, 2});
  }));
  r.Add(RuleSchema("GemmFastGelu", kMs, 1, 2, 1, 1, 0, [](Ctx& ctx) {
    const auto a = InputDims(ctx, 0), b = InputDims(ctx, 1);
    SetOutput(ctx, 0, InputType(ctx, 0), a && b ? MatMulDims(*a, *b) : std::nullopt);
  }));
}

}  // namespace memplan::formats
