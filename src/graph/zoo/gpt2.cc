// GPT-2 small (Radford et al. 2019): 12 decoder layers, d_model 768, 12 heads of 64,
// vocabulary 50257, here over a sequence of 128 tokens, float32, written with
// TensorFlow Lite operators as a converted model runs it. Token embedding GATHER plus
// position ADD; per layer LayerNorm (MEAN, SUB, MUL, MEAN, ADD ε, RSQRT, MUL, MUL γ,
// ADD β), one FULLY_CONNECTED for Q, K and V, SPLIT, RESHAPE/TRANSPOSE to heads,
// BATCH_MATMUL Q·Kᵀ, MUL by 1/√64, ADD of the causal mask, SOFTMAX, BATCH_MATMUL with V,
// TRANSPOSE/RESHAPE back, output projection, residual ADD, LayerNorm, MLP 768→3072
// (GELU)→768, residual ADD; final LayerNorm and the LM head (tied to the token
// embedding, no bias) to 128×50257 logits. 480 operators.
#include <fmt/format.h>

#include "src/graph/zoo/layers.h"
#include "src/graph/zoo/models.h"

namespace memplan::graph::zoo {

namespace {

constexpr std::int64_t kLayers = 12;
constexpr std::int64_t kModel = 768;  // d_model
constexpr std::int64_t kHeads = 12;   // attention heads of 64
constexpr std::int64_t kSeq = 128;    // tokens per run of zoo:gpt2
constexpr std::int64_t kVocab = 50257;
constexpr std::int64_t kHidden = 3072;  // MLP width

TensorId Mlp(GraphBuilder& g, TensorId x, const std::string& n) {
  TensorId h = FullyConnected(g, x, n + "/c_fc", kHidden);
  h = Unary(g, "GELU", h, n + "/gelu");
  return FullyConnected(g, h, n + "/c_proj", kModel);
}

}  // namespace

Graph BuildGpt2Small() {
  return BuildGpt2(kSeq);
}

Graph BuildGpt2(std::int64_t seq) {
  GraphBuilder g("gpt2");
  const TensorId ids = g.Input("input_ids", {1, seq}, DataType::kInt32);
  const TensorId wte = g.Constant("wte", {kVocab, kModel});
  // Causal mask: 0 on and below the diagonal, a large negative value above it.
  const TensorId mask = g.Constant("causal_mask", {1, 1, seq, seq});
  TensorId x = Gather(g, wte, ids, "token_embedding");
  x = Binary(g, "ADD", x, g.Constant("wpe", {seq, kModel}), "embedding");
  for (std::int64_t layer = 0; layer < kLayers; ++layer) {
    const std::string n = fmt::format("h{}", layer);
    const TensorId attn = SelfAttention(g, LayerNorm(g, x, n + "/ln_1"), n + "/attn", kHeads, mask,
                                        {"/c_attn", "/qkv", "/c_proj"});
    x = Binary(g, "ADD", x, attn, n + "/attn_residual");
    const TensorId mlp = Mlp(g, LayerNorm(g, x, n + "/ln_2"), n + "/mlp");
    x = Binary(g, "ADD", x, mlp, n + "/mlp_residual");
  }
  x = LayerNorm(g, x, "ln_f");
  // The LM head reuses the token embedding as its [vocab, d_model] weights; no bias (-1).
  const TensorId logits = g.Op("FULLY_CONNECTED", {x, wte, -1}, "logits", {1, seq, kVocab});
  g.Output(logits);
  return std::move(g).Finish();
}

}  // namespace memplan::graph::zoo
