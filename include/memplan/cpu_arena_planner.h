#pragma once
// CpuArenaPlanner: the memory planner a CPU inference engine embeds, with the contract of
// TensorFlow Lite's ArenaPlanner (docs/cpu-planner.md). The engine describes its graph
// (tensors with an allocation type and a byte size, nodes in execution order), then asks
// for memory one node range at a time as shapes become known, resizes tensors between
// calls, and may hand the non-persistent memory back between runs.
//
// Two modes share the lifetimes, the in-place rules and the persistent arena:
//  - kTfliteCpu reproduces TensorFlow Lite's planner call for call (offsets, when the
//    arena grows, which data pointers change), its quirks included;
//  - kMemplan plans each range with memplan's offsets strategies, re-plans after a resize
//    only the tensors the change reaches, and caches one layout per shape signature.
//
// One planner serves one engine thread at a time (no internal locking).
//
// Errors throw (memplan/error.h): UsageError for a call the contract forbids (a tensor
// index out of range, an alignment of 0 or above 64), InputError for a graph the rules
// reject (a tensor freed twice), InternalError for a plan that fails verification.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// Where a tensor's memory comes from (TensorFlow Lite's TfLiteAllocationType).
enum class CpuAllocationType : std::uint8_t {
  kArenaRw,            // the main arena, re-planned as shapes change
  kArenaRwPersistent,  // the persistent arena, placed once and kept
  kDynamic,            // the engine's own heap memory (sized while running)
  kMmapRo,             // read-only model data
  kPersistentRo,       // read-only, set up once by a kernel
  kCustom,             // memory the application supplies
  kNonCpu,             // memory of another device
  kMemNone,            // no memory at all
};

// A node's in-place bits (TensorFlow Lite's TfLiteInPlaceOp): which inputs its first output
// may share memory with.
inline constexpr std::uint32_t kInPlaceDataUnmodified = 1;              // output equals the input
inline constexpr std::uint32_t kInPlaceInputCanBeSharedWithOutput = 2;  // read, not used
inline constexpr std::uint32_t kInPlaceInput0Shared = 4;
inline constexpr std::uint32_t kInPlaceInput1Shared = 8;
inline constexpr std::uint32_t kInPlaceInput2Shared = 16;

// A tensor index that stands for "absent" in any list (kTfLiteOptionalTensor).
inline constexpr std::int32_t kCpuNoTensor = -1;

struct CpuTensor {
  Bytes bytes = 0;
  CpuAllocationType type = CpuAllocationType::kArenaRw;
};

struct CpuNode {
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
  std::vector<std::int32_t> temporaries;  // scratch tensors alive during this node only
  std::uint32_t inplace = 0;              // kInPlace* bits
};

struct CpuGraph {
  std::vector<CpuTensor> tensors;
  std::vector<CpuNode> nodes;  // in execution order
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
  std::vector<std::int32_t> variables;  // state kept across runs: alive for the whole run
};

enum class CpuPlannerMode {
  kTfliteCpu,  // TensorFlow Lite's allocation-order best fit, exactly
  kMemplan,    // memplan's strategies, incremental re-planning and a layout cache
};

// An arena buffer allocated (bytes = its new size) or freed (bytes = its old size).
struct CpuBufferEvent {
  bool persistent = false;  // the persistent arena's buffer, else the main one
  bool allocated = false;   // false: freed
  Bytes bytes = 0;
};

struct CpuPlannerOptions {
  CpuPlannerMode mode = CpuPlannerMode::kMemplan;
  bool preserve_all_tensors = false;  // nothing is freed and nothing shares (debugging)
  Bytes tensor_alignment = 64;        // every offset is a multiple of it (1..64)
  // kMemplan: the offsets strategy for a range planned from nothing (any name PlanOffsets
  // knows), and the one for a re-plan around tensors that keep their offsets (a cheap one:
  // its time should follow the tensors the change reaches).
  std::string strategy = "best";
  std::string replan_strategy = "greedy_by_size";
  // kMemplan: a range planned from nothing keeps the cheap plans (TensorFlow Lite's order,
  // replan_strategy) when one is within this factor of the lower bound; else `strategy` runs.
  // The first plan after PlanAllocations uses good_enough, a re-plan after a resize (an
  // earlier layout exists) replan_good_enough: a resize should cost a cheap plan.
  double good_enough = 1.01;
  double replan_good_enough = 1.05;
  // kMemplan: layouts kept per shape signature; 0 turns the cache off.
  std::size_t cache_capacity = 64;
  // Called each time an arena buffer is allocated or freed (a profiler's hook).
  std::function<void(const CpuBufferEvent&)> on_buffer_event;
};

// A tensor's lifetime in nodes, both ends inclusive; nullopt = not assigned (a missing
// last node means alive to the end of the run).
struct CpuLifetime {
  std::optional<std::int32_t> first;
  std::optional<std::int32_t> last;
};

// How the memplan mode knows its main arena is no larger than TensorFlow Lite's planner's
// after the same calls (docs/cpu-planner.md, "Never above TensorFlow Lite").
enum class CpuTfliteCheck : std::uint8_t {
  kNone,             // tflite_cpu mode, or no check possible (ReplaceGraph, no PlanAllocations)
  kAtBound,          // the arena is the lower bound of its tensors: no valid plan is smaller
  kTfliteCandidate,  // planned from nothing with TensorFlow Lite's own placement as a candidate
  kReplayed,         // TensorFlow Lite's calls were replayed: its arena is no smaller
  kTookTflite,       // ours was larger: TensorFlow Lite's placement was taken instead
  kTfliteOverlaps,   // ours was larger, and TensorFlow Lite's placement overlaps (its quirks)
};

// What the last ExecuteAllocations did.
struct CpuPlanStats {
  bool unchanged = false;  // nothing changed since the same call: nothing was done
  bool cache_hit = false;  // kMemplan: the layout came from the shape cache
  std::size_t placed = 0;  // main-arena tensors given an offset by this call
  std::size_t kept = 0;    // kMemplan: tensors whose earlier offsets were kept fixed
  std::int32_t first_replanned_node = -1;  // kMemplan: where the re-plan started (-1: none)
  // kMemplan: every tensor grew or shrank by one ratio and the layout before, its offsets
  // scaled alike, was taken (at the lower bound; docs/cpu-planner.md).
  bool scaled = false;
  Bytes planned_bytes = 0;  // the main arena's plan (high-water mark)
  // Bytes of the old main-arena buffer copied into the new one when it grew (0: it did not
  // grow, or nothing in it had to survive). kTfliteCpu copies the whole old buffer, as
  // TensorFlow Lite does; kMemplan only what the tensors that kept their offsets hold.
  Bytes buffer_bytes_copied = 0;
  CpuTfliteCheck tflite_check = CpuTfliteCheck::kNone;  // kMemplan: see CpuTfliteCheck
};

class CpuArenaPlanner {
 public:
  // Takes the graph. Nothing is planned until PlanAllocations.
  explicit CpuArenaPlanner(CpuGraph graph, CpuPlannerOptions options = {});
  ~CpuArenaPlanner();  // frees both buffers
  CpuArenaPlanner(const CpuArenaPlanner&) = delete;
  CpuArenaPlanner& operator=(const CpuArenaPlanner&) = delete;

  // Forgets every placement (the buffers stay), then computes the lifetimes and the
  // in-place shares from the graph.
  void PlanAllocations();
  // Places what the nodes first..last need (tensors with no offset yet or grown since),
  // grows the buffers where needed and sets the data pointers.
  void ExecuteAllocations(std::int32_t first_node, std::int32_t last_node);
  // Forgets every placement; the buffers keep their size. kMemplan keeps the old layout as
  // a hint: what did not change keeps its offset at the next ExecuteAllocations.
  void ResetAllocations();
  // Forgets the placements of main-arena tensors first used after `node`.
  void ResetAllocationsAfter(std::int32_t node);
  // Frees the main arena's buffer (the plan is kept); Acquire allocates it again.
  void ReleaseNonPersistentMemory();
  void AcquireNonPersistentMemory();
  bool HasNonPersistentMemory() const;

  // Changes between calls, as an engine makes them when shapes change.
  void ResizeTensor(std::int32_t tensor, Bytes bytes);
  void SetAllocationType(std::int32_t tensor, CpuAllocationType type);
  // New graph contents (the tensor count may grow, not shrink); call PlanAllocations next.
  void ReplaceGraph(CpuGraph graph);

  const CpuGraph& graph() const;
  const CpuPlannerOptions& options() const;

  // The tensor's memory, or nullptr when the planner gave it none (yet).
  std::byte* TensorData(std::int32_t tensor) const;
  // Buffer starts and sizes (the buffer only grows while it is held).
  std::byte* ArenaBase() const;
  std::byte* PersistentArenaBase() const;
  Bytes ArenaBufferBytes() const;
  Bytes PersistentArenaBufferBytes() const;
  // The current plan's high-water mark of the main arena.
  Bytes PlannedArenaBytes() const;

  CpuLifetime Lifetime(std::int32_t tensor) const;
  // The tensor whose buffer this one uses (in place), if any.
  std::optional<std::int32_t> SharesBufferOf(std::int32_t tensor) const;
  // The main arena's plan as an offsets problem and plan: one record per placed tensor
  // (a live-to-the-end tensor ends at the last node), for checks, bounds and reports.
  // `tensors` (optional) receives the tensor of each record.
  std::pair<Problem, std::vector<Bytes>> MainArenaLayout(
      std::vector<std::int32_t>* tensors = nullptr) const;

  const CpuPlanStats& last_stats() const;

  class Impl;  // one per mode (src/cpuplan/)

 private:
  std::unique_ptr<Impl> impl_;
};

// "tflite_cpu" / "memplan" and back; UsageError for another name.
CpuPlannerMode CpuPlannerModeNamed(const std::string& name);
const char* CpuPlannerModeName(CpuPlannerMode mode);

}  // namespace memplan
