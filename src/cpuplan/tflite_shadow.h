#pragma once
// The memplan mode's record of what TensorFlow Lite's planner would have done with the same
// calls (docs/cpu-planner.md, "Never above TensorFlow Lite"). The calls since the last
// ResetAllocations are logged with the shapes they saw (shared, immutable signatures: no
// copy per call); only when the memplan mode cannot prove its arena is no larger by a
// cheaper argument does it replay them, through a plan-only tflite_cpu planner, from where
// the last replay stopped. So the replay costs at most what TensorFlow Lite's own planner
// would have cost, and usually nothing.
#include <cstdint>
#include <memory>
#include <vector>

#include "memplan/cpu_arena_planner.h"
#include "src/cpuplan/layout_cache.h"

namespace memplan::cpuplan {

class TfliteShadow {
 public:
  TfliteShadow();
  ~TfliteShadow();
  TfliteShadow(const TfliteShadow&) = delete;
  TfliteShadow& operator=(const TfliteShadow&) = delete;

  // Room for a graph of `tensors` tensors and a few calls, taken with the graph.
  void Reserve(std::size_t tensors);
  // PlanAllocations with these tensors: a new generation, nothing logged. Every tensor's bytes
  // and type are kept (the signatures hold the arena's only): a replay's lifetimes come from
  // them, as TensorFlow Lite's planner computed its own from the same graph.
  void Planned(const std::vector<CpuTensor>& tensors);
  // ResetAllocations: the log starts again (the replay planner resets when next used).
  // Inline, as Executed: a cache hit makes both.
  void Reset() {
    log_.clear();
    ++epoch_;
    path_ = 0;
  }
  // ExecuteAllocations(first, last) with these shapes. A call repeated with nothing changed
  // is logged at most twice: TensorFlow Lite's state stops changing after the second.
  // One mix per call for the path (issue 32: a cache hit's code, in its caller's lines).
  [[gnu::always_inline]] void Executed(std::int32_t first, std::int32_t last,
                                       const LocalShared<const ShapeSignature>& shapes,
                                       bool unchanged) {
    const bool repeat = unchanged && !log_.empty() && log_.back().execute &&
                        log_.back().first == first && log_.back().last == last;
    if (repeat && log_.back().repeated) [[unlikely]]
      return;  // a third identical call changes nothing
    log_.push_back({true, first, last, shapes, repeat});
    const std::uint64_t range =
        static_cast<std::uint64_t>(first) << 32 ^ static_cast<std::uint32_t>(last);
    path_ = Mix(path_ * 0xc2b2ae3d27d4eb4fULL ^ range * 0xff51afd7ed558ccdULL ^ shapes->hash());
  }
  void ResetAfter(std::int32_t node);
  // ReplaceGraph: the replay planner is rebuilt from the next graph.
  void Forget();
  // TensorFlow Lite drops an in-place share for good the first time it places the tensor
  // while the share does not hold; the memplan mode knows the rule and reports it here, so
  // a replay after a reset starts from the drops of earlier epochs.
  void Dropped(std::size_t tensor);
  bool AnyDropped() const { return drops_ > 0; }
  // Calls logged since the last ResetAllocations or PlanAllocations.
  std::size_t CallsSinceReset() const { return log_.size(); }
  // A hash of those calls and the shapes they saw: with the same path and shapes,
  // TensorFlow Lite's planner is in the same state (the layout cache keys on it).
  std::uint64_t path() const { return path_; }

  // TensorFlow Lite's planner after the logged calls, brought up to date (the shapes' entries
  // are `signed_tensors`'); nullptr after ReplaceGraph until the next PlanAllocations.
  const CpuArenaPlanner::Impl* CatchUp(const CpuGraph& graph, const CpuPlannerOptions& options,
                                       const SignedTensors& signed_tensors);

 private:
  struct Entry {
    bool execute = true;  // else ResetAllocationsAfter(first)
    std::int32_t first = 0;
    std::int32_t last = 0;
    LocalShared<const ShapeSignature> shapes;
    bool repeated = false;  // an unchanged call logged a second time
  };
  // The replay planner's tensor given these bytes and type (where they differ).
  void ApplyTensor(std::size_t tensor, Bytes bytes, CpuAllocationType type);
  void ApplyShapes(const ShapeSignature& shapes, const SignedTensors& signed_tensors);

  // What every call touches (Reset, Executed) first, side by side.
  std::vector<Entry> log_;
  std::uint64_t path_ = 0;
  std::uint64_t epoch_ = 0, replay_epoch_ = 0;
  std::unique_ptr<CpuArenaPlanner::Impl> replay_;
  std::vector<CpuTensor> plan_tensors_;    // at the last PlanAllocations
  std::vector<std::uint64_t> dropped_in_;  // per tensor: the epoch + 1 it was dropped in, or 0
  std::size_t drops_ = 0;
  bool ready_ = false;  // PlanAllocations ran since the last ReplaceGraph
  std::uint64_t generation_ = 0, replay_generation_ = 0;
  std::size_t applied_ = 0;  // log entries the replay planner has run
};

}  // namespace memplan::cpuplan
