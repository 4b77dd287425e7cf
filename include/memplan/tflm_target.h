#pragma once
// A model of the target TensorFlow Lite Micro runs on: what its MicroAllocator places in
// the arena for a model, to the byte, for a given pointer size and struct layout rules.
// It replays AllocateTensors of TFLM's RecordingMicroInterpreter (reference kernels, the
// commit kTflmCommit) on an arena of a given size, without memory: the allocator objects,
// the builtin options structs, TfLiteEvalTensor and NodeAndRegistration arrays, every
// kernel's persistent data (Init and Prepare), its temporary TfLiteTensors while it is
// prepared, the scratch-request area, the memory-planning arrays, the variables and the
// interpreter's input and output tensors. docs/tflm.md lists the facts it relies on.
//
// The head (the planned tensors and scratch buffers) is not planned here: the runtime
// (runtime.h) already plans it as TFLM does; it is an input (TflmHeadPlan).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/graph.h"
#include "memplan/problem.h"

namespace memplan {

// The TFLM source the model follows.
inline constexpr std::string_view kTflmCommit = "90b983c2b3f1480642e040bbd2ddb37b998f3424";

// The kernels TFLM is built with: its reference kernels, or (OPTIMIZED_KERNEL_DIR=cmsis_nn)
// the CMSIS-NN ones where TFLM's cmsis_nn folder has a kernel, reference ones elsewhere.
enum class TflmKernels { kReference, kCmsisNn };

// The Arm core's extensions CMSIS-NN's code paths (and so its scratch sizes) depend on.
enum class ArmExtensions {
  kNone,  // no DSP extension: Cortex-M0, M0+, M3, and targets that are no Cortex-M
  kDsp,   // the DSP extension: Cortex-M4, M7, M33
  kMve,   // Helium (M-profile vector extension): Cortex-M55, M85
};

// What the layouts of C structs and the kernels' memory depend on.
struct TargetAbi {
  std::string name;         // "host64", "arm32", "cortex-m4", ...
  std::string description;  // for reports
  Bytes pointer = 8;        // sizeof(void*), sizeof(size_t), alignof of both
  Bytes int64_align = 8;    // alignof(int64_t) and alignof(double)
  Bytes enum_bytes = 4;     // sizeof of a C enum (1 with arm-none-eabi's short enums)
  ArmExtensions extensions = ArmExtensions::kNone;  // for CMSIS-NN's code paths
  TflmKernels kernels = TflmKernels::kReference;    // the kernel set TFLM is built with
};

// "host64" (x86-64 Linux, LP64), "arm32" (32-bit ARM Linux, AAPCS, 4-byte enums), or a
// Cortex-M core built bare metal with arm-none-eabi (AAPCS, 1-byte enums): "cortex-m0",
// "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55", "cortex-m85". Reference
// kernels; UsageError naming the known ones otherwise.
TargetAbi TflmTargetNamed(std::string_view name);
std::vector<std::string> TflmTargetNames();

// "reference" or "cmsis-nn"; UsageError naming the known ones otherwise.
TflmKernels TflmKernelsNamed(std::string_view name);
std::string_view TflmKernelsName(TflmKernels kernels);
// The target with another kernel set; UsageError when the target cannot have it (CMSIS-NN
// is modelled for the Cortex-M targets only).
TargetAbi WithTflmKernels(TargetAbi target, TflmKernels kernels);

// What the runtime's plan gives: the head and its scratch requests.
struct TflmHeadPlan {
  Bytes head = 0;                      // the plan's height (max offset + size)
  std::size_t planned_buffers = 0;     // buffers handed to the planner (tensors + scratch)
  std::vector<std::uint32_t> scratch;  // scratch requests per op, ops of every subgraph in order
};

// One line of PrintAllocations.
struct TflmCategory {
  std::string name;         // TFLM's category name ('TfLiteEvalTensor data', ...)
  std::string unit;         // what `count` counts (allocations, tensors, ...)
  Bytes used = 0;           // bytes the tail moved, alignment included
  Bytes requested = 0;      // bytes asked for
  std::uint64_t count = 0;  // allocations, tensors or structs, as TFLM counts them
};

// An op whose memory the model cannot give exactly.
struct TflmOpNote {
  std::int32_t subgraph = 0;  // the op's subgraph
  std::int32_t op = 0;        // its index in the subgraph
  std::string type;           // "CONV_2D", a custom op's name, ...
  std::string why;            // what is refused or unknown
};

// Sizes from `first` to `last`, both included, in steps of 16.
struct TflmSizeRange {
  Bytes first = 0;
  Bytes last = 0;
};

struct TflmArenaFigures {
  TargetAbi target;               // the target the figures are for
  Bytes head = 0;                 // after AllocateTensors
  Bytes tail = 0;                 // after AllocateTensors
  Bytes arena_used = 0;           // TFLM's arena_used_bytes(): head + tail
  Bytes minimal_arena = 0;        // smallest tensor_arena_size that works (start aligned)
  Bytes minimal_arena_plain = 0;  // the same with a plain MicroInterpreter (not recording)
  // Two buffers (MicroAllocator::Create(persistent, non_persistent)): the persistent buffer
  // where every allocation is granted (the safe one, the figure to ship), and the smallest
  // TFLM accepts. They differ where a kernel does not check a persistent allocation (TFLM's
  // float CONV_2D and DEPTHWISE_CONV_2D per-channel arrays, which float never uses; CMSIS-NN's
  // per-channel arrays and kernel sums, which it then writes through a null pointer): the
  // allocation fails silently and the model still prepares. Success is then not monotone
  // in the size: `two_buffer_persistent_accepted` lists every size below the safe one that
  // TFLM accepts, as runs of multiples of 16.
  Bytes two_buffer_persistent = 0;
  Bytes two_buffer_persistent_safe = 0;
  std::vector<TflmSizeRange> two_buffer_persistent_accepted;
  Bytes two_buffer_non_persistent = 0;   // two buffers: the non-persistent one
  std::vector<TflmCategory> categories;  // PrintAllocations order, used or requested > 0
  std::vector<TflmOpNote> unsupported;   // the reference kernels refuse them on the target
  std::vector<TflmOpNote> unmodelled;    // kernel memory unknown: figures are lower bounds
  bool lower_bound() const { return !unmodelled.empty(); }
};

// The ops of a model the reference kernels refuse on the target, and those whose kernel
// memory the model does not know; no arena figure needed (so it can be said up front).
struct TflmOpCheck {
  std::vector<TflmOpNote> unsupported;  // the reference kernels refuse them on the target
  std::vector<TflmOpNote> unmodelled;   // kernel memory unknown
};
TflmOpCheck CheckTflmOps(const Graph& graph, const TargetAbi& target);

// Notes grouped by op type and reason, first seen first:
// "CONV_2D: CONV_2D on uint8 tensors (ops 0, 2, 3; 3 in all)" (subgraph N's ops as N:op).
std::vector<std::string> GroupTflmOpNotes(const std::vector<TflmOpNote>& notes);

// InputError when the graph cannot be modelled (an unsized tensor the arena would hold).
TflmArenaFigures ModelTflmArena(const Graph& graph, const TargetAbi& target,
                                const TflmHeadPlan& head);

// Whether TFLM accepts a persistent buffer of `size` bytes with two buffers (the
// non-persistent one of the figures' size): the safe size and above, or a size in one of the
// accepted runs below it.
bool TflmAcceptsPersistentBuffer(const TflmArenaFigures& figures, Bytes size);

// "[RecordingMicroAllocator] ..." lines as TFLM prints them.
std::string TflmPrintAllocations(const TflmArenaFigures& figures);

}  // namespace memplan

namespace memplan {

class KernelRegistry;  // kernel.h

// The head plan of TFLM's own greedy planner as the runtime (runtime.h) makes it with the
// verification kernels, which request the scratch buffers TFLM's reference kernels do:
// the head, the planned buffers and the scratch requests per op. `offline` as in
// InterpreterOptions (the model's OfflineMemoryAllocation is used when present).
TflmHeadPlan TflmHeadPlanFromRuntime(const Graph& graph, bool use_offline_plan = true);
// Kernels for the runtime (runtime.h) that request the scratch buffers the target's kernel
// set requests: the verification kernels (runtime_check.h), with the requests they do not
// make (ADD_N's and MIRROR_PAD's; CMSIS-NN's, which depend on the core, for that set).
const KernelRegistry& TflmScratchKernels(const TargetAbi& target);

// The head plan with the scratch buffers the target's kernel set requests.
TflmHeadPlan TflmHeadPlanFromRuntime(const Graph& graph, const TargetAbi& target,
                                     bool use_offline_plan = true);

}  // namespace memplan
