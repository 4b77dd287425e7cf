#pragma once
// Layers as TensorFlow Lite runs them, on top of GraphBuilder: each adds its operator
// with the output shape worked out as TensorFlow does (NHWC, SAME/VALID padding, numpy
// broadcasting) and its weights as constants with their real shapes (no data), so the
// graphs look like converted models while the planners skip the constants.
// Activations are fused into the op, as the TensorFlow Lite converter does.
#include <cstdint>
#include <string>
#include <vector>

#include "src/graph/zoo/graph_builder.h"

namespace memplan::graph::zoo {

// How a window meets the border, as TensorFlow's `padding` attribute.
enum class Padding { kSame, kValid };

// ---- NHWC image layers ----
// CONV_2D with a [filters, kh, kw, C] filter and a [filters] bias.
TensorId Conv2D(GraphBuilder& g, TensorId x, std::string name, std::int64_t filters,
                std::int64_t kh, std::int64_t kw, std::int64_t stride,
                Padding padding = Padding::kSame);
// DEPTHWISE_CONV_2D (multiplier 1) with a [1, k, k, C] filter and a [C] bias.
TensorId DepthwiseConv2D(GraphBuilder& g, TensorId x, std::string name, std::int64_t k,
                         std::int64_t stride, Padding padding = Padding::kSame);
// A depthwise convolution over time: DEPTHWISE_CONV_2D (multiplier 1) with a k×1 window,
// stride 1, SAME padding, on [1, T, 1, C], as converters write a 1-D depthwise conv.
TensorId TemporalDepthwiseConv(GraphBuilder& g, TensorId x, std::string name, std::int64_t k);
// MAX_POOL_2D or AVERAGE_POOL_2D with a k×k window.
TensorId Pool2D(GraphBuilder& g, std::string type, TensorId x, std::string name, std::int64_t k,
                std::int64_t stride, Padding padding);
// CONCATENATION of NHWC tensors along the channels.
TensorId ConcatChannels(GraphBuilder& g, const std::vector<TensorId>& parts, std::string name);

// ---- Shape-generic layers ----
// Element-wise binary op (ADD, SUB, MUL) with numpy broadcasting.
TensorId Binary(GraphBuilder& g, std::string type, TensorId a, TensorId b, std::string name);
// Element-wise unary op (SOFTMAX, GELU, RSQRT, ...): shaped like its input.
TensorId Unary(GraphBuilder& g, std::string type, TensorId x, std::string name);
// LayerNorm over the last dimension, decomposed into TensorFlow Lite operators (MEAN, SUB,
// MUL, MEAN, ADD ε, RSQRT, MUL, MUL γ, ADD β) as converted models run it.
TensorId LayerNorm(GraphBuilder& g, TensorId x, const std::string& name);
// FULLY_CONNECTED over the last dimension (keep_num_dims), with [units, in] weights and
// a [units] bias.
TensorId FullyConnected(GraphBuilder& g, TensorId x, std::string name, std::int64_t units);
// MEAN over `axes` (an int32 constant input); kept as size 1 when `keep_dims`.
TensorId Mean(GraphBuilder& g, TensorId x, std::string name, const std::vector<std::int64_t>& axes,
              bool keep_dims);
// RESHAPE to `shape` (same element count); the shape is an int32 constant input.
TensorId Reshape(GraphBuilder& g, TensorId x, std::string name, Shape shape);
// TRANSPOSE by `perm` (an int32 constant input).
TensorId Transpose(GraphBuilder& g, TensorId x, std::string name,
                   const std::vector<std::int64_t>& perm);
// [1, T, heads × head_dim] → [1, heads, T, head_dim] by RESHAPE and TRANSPOSE, or
// [1, heads, head_dim, T] for attention keys (ready for Q·Kᵀ).
TensorId SplitHeads(GraphBuilder& g, TensorId x, const std::string& name, std::int64_t heads,
                    bool keys);
// The names a model gives the pieces of its self-attention (suffixes of the layer's name).
struct AttentionNames {
  std::string qkv;    // the one FULLY_CONNECTED for Q, K and V
  std::string split;  // the SPLIT of it into Q, K and V
  std::string out;    // the output FULLY_CONNECTED
};
// Multi-head self-attention over [1, T, D]: Q, K and V from one FULLY_CONNECTED, SPLIT, heads
// (SplitHeads), BATCH_MATMUL Q·Kᵀ, MUL by the scale, ADD of `mask` when given (-1: none),
// SOFTMAX, BATCH_MATMUL with V, heads merged by TRANSPOSE/RESHAPE, the output projection.
TensorId SelfAttention(GraphBuilder& g, TensorId x, const std::string& name, std::int64_t heads,
                       TensorId mask, const AttentionNames& names);
// BATCH_MATMUL of [..., M, K] by [..., K, N] (equal batch dimensions).
TensorId BatchMatMul(GraphBuilder& g, TensorId a, TensorId b, std::string name);
// GATHER of rows of `params` [V, D] at int32 `indices` [...]: [..., D].
TensorId Gather(GraphBuilder& g, TensorId params, TensorId indices, std::string name);
// SPLIT along `axis` into `parts` equal tensors NAME_0, NAME_1, ...; the axis is an
// int32 constant and comes first, as in TensorFlow Lite.
std::vector<TensorId> Split(GraphBuilder& g, TensorId x, std::string name, std::int64_t axis,
                            std::int64_t parts);

// ---- Classifier heads ----
// Keras' ImageNet head: global average pooling (MEAN over H and W), the 1000-way
// FULLY_CONNECTED "predictions" and its SOFTMAX.
TensorId KerasClassifier(GraphBuilder& g, TensorId x);
// TF-Slim's MobileNet head on the 7×7 map: AVERAGE_POOL_2D (VALID, `pool_stride`), a 1×1
// CONV_2D to 1001 classes, RESHAPE to [1, 1001] and SOFTMAX, named under `scope` as
// SCOPE/Logits/POOL_NAME, SCOPE/Logits/Conv2d_1c_1x1, SCOPE/Logits/SQUEEZE_NAME and
// SCOPE/Predictions/Softmax.
TensorId SlimClassifier(GraphBuilder& g, TensorId x, const std::string& scope,
                        const std::string& pool_name, std::int64_t pool_stride,
                        const std::string& squeeze_name);

}  // namespace memplan::graph::zoo
