#pragma once
// ONNX models built in code that exercise the reader's constant folding, memplan's
// com.microsoft and newer-opset shape rules, and stored shapes that disagree with
// inference. The tests read them; fuzz/make_onnx_seeds.cc writes them as fuzzer seeds.
#include <string>
#include <utility>
#include <vector>

#include "tests/onnx_builder.h"

namespace memplan::testing {

// The tf2onnx detector pattern: input [1,256,12,12] -> Relu -> two Resize nodes whose
// `sizes` come from Shape -> Slice(2..4) -> Mul by 2 -> Concat with [1,256].
OnnxBuilder DetectorUpsampling();

// ONNX Runtime's fused transformer block: EmbedLayerNormalization -> Attention (with
// past) -> SkipLayerNormalization -> MatMul -> FastGelu -> BiasGelu; symbolic batch, seq
// and past_seq.
OnnxBuilder OptimizedTransformerBlock();

// Exported with N = 1: value_info and the output declare [1,4] for a graph whose input
// is [N,4].
OnnxBuilder ExportedWithBatchOne();

// Opset 18 operators and attributes ONNX 1.12 does not know: Resize with antialias and
// keep_aspect_ratio_policy, ReduceMean with axes as an input, Split with num_outputs,
// Pad with axes.
OnnxBuilder Opset18Model();

// Opset 23 decoder pieces: RMSNormalization, RotaryEmbedding, Attention with past state.
OnnxBuilder Opset23Model();

// An opset-18 image model wrapped in onnxruntime-extensions pre- and post-processing:
// com.microsoft.extensions DecodeImage -> Resize (axes, not_larger, antialias) -> ... ->
// Resize (antialias) -> ... -> EncodeImage. The decoded image's shape is known only at run
// time (`--shape bgr=HxWx3` gives it).
OnnxBuilder ExtensionsWrappedModel();

// Every model above with a file name, for the fuzzer's seeds.
std::vector<std::pair<std::string, OnnxBuilder>> SampleOnnxModels();

}  // namespace memplan::testing
