#include "src/target/tflm_structs.h"

namespace memplan::target {

namespace {
constexpr Field kInt = Field::kInt32;  // int, int32_t, float
constexpr Field kEnum = Field::kEnum;
constexpr Field kPtr = Field::kPointer;
constexpr Field kBool = Field::kBool;
}  // namespace

Bytes IntArrayBytes(std::uint64_t n) {
  return 4 + 4 * n;
}

Layout TfLiteTensorLayout(const TargetAbi& abi) {
  const Layout quantization = StructLayout(abi, {kEnum, kPtr}).Done();  // type, params
  const Layout params = StructLayout(abi, {kInt, kInt}).Done();         // scale, zero_point
  return StructLayout(abi)
      .Add(quantization)
      .Add(params)
      .Add(kPtr)   // data
      .Add(kPtr)   // dims
      .Add(kPtr)   // bytes (size_t)
      .Add(kEnum)  // type
      .Add(kEnum)  // allocation_type
      .Add(kBool)  // is_variable
      .Done();
}

Layout TfLiteEvalTensorLayout(const TargetAbi& abi) {
  return StructLayout(abi, {kPtr, kPtr, kEnum}).Done();  // data, dims, type
}

Layout NodeAndRegistrationLayout(const TargetAbi& abi) {
  // inputs, outputs, intermediates, user_data, builtin_data, custom_initial_data,
  // custom_initial_data_size
  const Layout node = StructLayout(abi, {kPtr, kPtr, kPtr, kPtr, kPtr, kPtr, kInt}).Done();
  return StructLayout(abi).Add(node).Add(kPtr).Done();
}

Layout TfLiteAffineQuantizationLayout(const TargetAbi& abi) {
  return StructLayout(abi, {kPtr, kPtr, kInt}).Done();  // scale, zero_point, dimension
}

Layout ScratchBufferRequestLayout(const TargetAbi& abi) {
  return StructLayout(abi, {kPtr, kInt, kInt}).Done();  // bytes, node_idx, subgraph_idx
}

Layout ScratchBufferHandleLayout(const TargetAbi& abi) {
  return StructLayout(abi, {kPtr}).Done();  // data
}

Layout SubgraphAllocationsLayout(const TargetAbi& abi) {
  return StructLayout(abi, {kPtr, kPtr}).Done();  // node_and_registrations, tensors
}

Layout AllocationInfoLayout(const TargetAbi& abi) {
  // bytes, output_ptr, first_created, last_used, offline_offset, needs_allocating
  return StructLayout(abi, {kPtr, kPtr, kInt, kInt, kInt, kBool}).Done();
}

// SingleArenaBufferAllocator: two interfaces (two vtable pointers), buffer_head_,
// buffer_tail_, head_, tail_, temp_, temp_buffer_ptr_check_sum_, temp_buffer_count_.
Layout SingleArenaBufferAllocatorLayout(const TargetAbi& abi) {
  return StructLayout(abi).VtablePointers(2).Add(kPtr, 6).Add(kInt).Done();
}

Layout RecordingSingleArenaBufferAllocatorLayout(const TargetAbi& abi) {
  // requested_head_bytes_, requested_tail_bytes_, used_bytes_, alloc_count_
  return StructLayout(abi).Base(SingleArenaBufferAllocatorLayout(abi)).Add(kPtr, 4).Done();
}

Layout GreedyMemoryPlannerLayout(const TargetAbi& abi) {
  return StructLayout(abi)
      .VtablePointers(1)
      .Add(kInt, 2)  // max_buffer_count_, buffer_count_
      .Add(kPtr, 4)  // requirements_, buffer_sizes_sorted_, buffer_ids_sorted_, by offset
      .Add(kInt, 2)  // next_free_entry_, first_entry_index_
      .Add(kPtr)     // buffer_offsets_
      .Add(kBool)    // need_to_calculate_offsets_
      .Done();
}

Layout MicroAllocatorLayout(const TargetAbi& abi) {
  return StructLayout(abi)
      .VtablePointers(1)
      .Add(kPtr, 4)  // non-persistent and persistent allocators, builtin data allocator, planner
      .Add(kBool)    // model_is_allocating_
      .Add(kPtr, 3)  // scratch_buffer_request_count_, scratch_buffer_head_, max head usage
      .Done();
}

Layout RecordingMicroAllocatorLayout(const TargetAbi& abi) {
  const Layout recorded = StructLayout(abi, {kPtr, kPtr, kPtr}).Done();  // requested, used, count
  return StructLayout(abi)
      .Base(MicroAllocatorLayout(abi))
      .Add(kPtr)         // recording_memory_allocator_
      .Add(recorded, 7)  // the seven categories
      .Done();
}

Layout MicroBuiltinDataAllocatorLayout(const TargetAbi& abi) {
  return StructLayout(abi).VtablePointers(1).Add(kPtr).Done();  // persistent_allocator_
}

Layout PersistentArenaBufferAllocatorLayout(const TargetAbi& abi) {
  // buffer_head_, buffer_tail_, tail_temp_
  return StructLayout(abi).VtablePointers(1).Add(kPtr, 3).Done();
}

Layout NonPersistentArenaBufferAllocatorLayout(const TargetAbi& abi) {
  // buffer_head_, buffer_tail_, head_temp_, next_temp_, temp_buffer_ptr_check_sum_,
  // temp_buffer_count_, resizable_buffer_allocated_
  return StructLayout(abi).VtablePointers(1).Add(kPtr, 5).Add(kInt).Add(kBool).Done();
}

Bytes GreedyPlannerBytesPerBuffer(const TargetAbi& abi) {
  (void)abi;  // all ints: 16 (size, offline offset, first and last use) + 4 + 4 + 12 + 4
  return 4 * 4 + 4 + 4 + 3 * 4 + 4;
}

}  // namespace memplan::target
