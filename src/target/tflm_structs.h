#pragma once
// TensorFlow Lite Micro's structs and classes as field lists (TF_LITE_STATIC_MEMORY
// builds, as TFLM is built), laid out for a target. The field lists restate TFLM's
// headers at kTflmCommit; docs/tflm.md gives their sizes on host64 and arm32.

#include "src/target/layout.h"

namespace memplan::target {

// TfLiteIntArray / TfLiteFloatArray of n elements: an int count then n ints.
Bytes IntArrayBytes(std::uint64_t n);
inline constexpr Bytes kIntArrayAlign = 4;

Layout TfLiteTensorLayout(const TargetAbi& abi);         // static-memory TfLiteTensor
Layout TfLiteEvalTensorLayout(const TargetAbi& abi);     // data, dims, type
Layout NodeAndRegistrationLayout(const TargetAbi& abi);  // TfLiteNode + registration pointer
Layout TfLiteAffineQuantizationLayout(const TargetAbi& abi);
Layout ScratchBufferRequestLayout(const TargetAbi& abi);  // head: one per scratch request
Layout ScratchBufferHandleLayout(const TargetAbi& abi);   // tail: one per scratch request
Layout SubgraphAllocationsLayout(const TargetAbi& abi);   // tail: one per subgraph
Layout AllocationInfoLayout(const TargetAbi& abi);        // temp: one per tensor and request
// The objects MicroInterpreter puts at the top of the tail: this one, the planner and a
// MicroAllocator; RecordingMicroInterpreter's, in order, follow.
Layout SingleArenaBufferAllocatorLayout(const TargetAbi& abi);
// The objects RecordingMicroInterpreter puts at the top of the tail, in order.
Layout RecordingSingleArenaBufferAllocatorLayout(const TargetAbi& abi);
Layout GreedyMemoryPlannerLayout(const TargetAbi& abi);
Layout RecordingMicroAllocatorLayout(const TargetAbi& abi);
Layout MicroBuiltinDataAllocatorLayout(const TargetAbi& abi);
// The same for MicroAllocator::Create with two buffers (no recording).
Layout PersistentArenaBufferAllocatorLayout(const TargetAbi& abi);
Layout NonPersistentArenaBufferAllocatorLayout(const TargetAbi& abi);
Layout MicroAllocatorLayout(const TargetAbi& abi);
// Bytes GreedyMemoryPlanner needs per planned buffer (its per_buffer_size()).
Bytes GreedyPlannerBytesPerBuffer(const TargetAbi& abi);

}  // namespace memplan::target
