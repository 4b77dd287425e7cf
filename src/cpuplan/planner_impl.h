#pragma once
// The planner's state, shared by both modes: the graph, the lifetimes and in-place shares
// computed by PlanAllocations, the persistent arena, and the main arena, whose plan each
// mode makes its own way (tflite_mode.cc, memplan_mode.cc). docs/cpu-planner.md.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/cpu_arena_planner.h"
#include "memplan/plan.h"
#include "src/cpuplan/layout_cache.h"
#include "src/cpuplan/replan.h"
#include "src/cpuplan/simple_arena.h"
#include "src/cpuplan/sweep_scratch.h"
#include "src/cpuplan/tflite_shadow.h"

namespace memplan {

class CpuArenaPlanner::Impl {
 public:
  Impl(CpuGraph graph, CpuPlannerOptions options);

  void PlanAllocations();
  void ExecuteAllocations(std::int32_t first, std::int32_t last);
  void ResetAllocations();
  // ResetAllocations' part for the tflite_cpu mode and persistent tensors: the persistent
  // arena's plan and the placements forgotten.
  [[gnu::noinline]] void ResetPersistentAndPlacements();
  // The UsageError of ExecuteAllocations after the graph shrank (out of line: never taken).
  [[noreturn, gnu::noinline, gnu::cold]] void ThrowTablesStale() const;
  void ResetAllocationsAfter(std::int32_t node);
  void ReleaseNonPersistentMemory();
  void AcquireNonPersistentMemory();
  void ResizeTensor(std::int32_t tensor, Bytes bytes);
  void SetAllocationType(std::int32_t tensor, CpuAllocationType type);
  void ReplaceGraph(CpuGraph graph);
  std::byte* TensorData(std::int32_t tensor) const;
  std::pair<Problem, std::vector<Bytes>> MainArenaLayout(std::vector<std::int32_t>* tensors) const;

  // A tensor's placement in `layout`, or nullptr where it has none (no index, or the layout
  // is older than its index).
  const cpuplan::Placement* PlacementIn(const cpuplan::Layout& layout, std::int32_t tensor) const {
    const std::int32_t slot = slot_of_[static_cast<std::size_t>(tensor)];
    return slot >= 0 && static_cast<std::size_t>(slot) < layout.placement.size()
               ? &layout.placement[static_cast<std::size_t>(slot)]
               : nullptr;
  }
  // The index of a tensor known to have one (a range tensor: kArenaRw).
  std::size_t Slot(std::int32_t tensor) const {
    return static_cast<std::size_t>(slot_of_[static_cast<std::size_t>(tensor)]);
  }
  std::size_t Slots() const { return tensor_of_slot_.size(); }
  // Numbers the kArenaRw tensors (no layout may be kept across it); AddSlot one more.
  void AssignSlots();
  void AddSlot(std::int32_t tensor);
  // Checks a tensor index from the caller.
  void CheckTensor(std::int32_t tensor, const char* what) const;

  CpuGraph graph_;
  CpuPlannerOptions options_;
  // What a cache hit's calls read and write, in six cache lines after the options, each
  // group sized to its line (issue 32: after an inference each line a hit touches is a fetch;
  // spread over the state, a hit touched twelve of them): the layouts and the versions; the
  // signature; the cache; the stats and the range last done; the flags, the persistent count
  // and the main arena's marks (the start of main_; its rest fills the line after); the log.
  // kMemplan only: the layout in use, the one before the last ResetAllocations (a hint),
  // and the shapes the last logged call saw (memplan_mode.cc).
  alignas(64) cpuplan::LocalShared<const cpuplan::Layout> layout_;
  cpuplan::LocalShared<const cpuplan::Layout> hint_;
  cpuplan::LocalShared<const cpuplan::ShapeSignature> logged_shapes_;
  std::uint64_t version_ = 1;       // bumped by every change that can alter a plan
  std::uint64_t done_version_ = 0;  // the version the last ExecuteAllocations planned
  cpuplan::ShapeSignature signature_;
  cpuplan::LayoutCache cache_;
  CpuPlanStats stats_;
  std::int32_t done_first_ = -1, done_last_ = -1;
  std::int32_t last_active_node_ = cpuplan::kEndOfRun;  // kEndOfRun = undefined
  const bool memplan_mode_;                             // options_.mode is kMemplan
  bool has_non_persistent_memory_ = false;
  bool tables_stale_ = false;  // the graph shrank: PlanAllocations must come next
  // A persistent tensor was placed since construction: before, the persistent arena holds
  // nothing and the memplan mode's calls leave it alone (a line fewer on a cache hit).
  bool persistent_used_ = false;
  std::size_t persistent_tensors_ = 0;
  cpuplan::SimpleArena main_;
  // kMemplan: the calls TensorFlow Lite's planner would have seen, replayed when needed.
  cpuplan::TfliteShadow shadow_;
  cpuplan::SimpleArena persistent_;
  cpuplan::SignedTensors signed_tensors_;  // the tensors signature_ holds
  // Per tensor: lifetime (cpuplan::kEndOfRun = not assigned), the root whose buffer it
  // shares (-1 none), the placement (main or persistent arena) and the data pointer.
  std::vector<std::int32_t> alloc_node_;
  std::vector<std::int32_t> dealloc_node_;
  std::vector<std::int32_t> share_root_;
  std::vector<cpuplan::Placement> placement_;
  std::vector<std::byte*> data_;
  // kMemplan: each main-arena tensor's index in a layout's placements (-1: none) and the
  // tensor at each index. A layout holds the arena's tensors only - a model's weights are
  // most of its tensors - so a fresh plan writes and a re-plan reads a fraction of the bytes.
  // Indices are only added (a tensor turned kArenaRw gets the next one): an older layout
  // stays valid, shorter; a tensor that leaves the arena keeps its index. Made again where
  // no layout survives (construction, ReplaceGraph).
  std::vector<std::int32_t> slot_of_;
  std::vector<std::int32_t> tensor_of_slot_;
  // Per node: the tensors the node's range has to place (outputs, temporaries; inputs and
  // variables on node 0).
  std::vector<std::vector<std::int32_t>> registered_;
  std::uint64_t registrations_ = 0;             // bumped whenever registered_ changes
  std::uint64_t gathered_ = ~std::uint64_t{0};  // RangeTensors(): what scratch_.registered holds
  // kMemplan: the nodes whose temporaries have their lifetimes since PlanAllocations or
  // ReplaceGraph (a temporary's lifetime is its node's: assigning it again changes nothing).
  std::int32_t temporaries_first_ = 0, temporaries_last_ = -1;
  std::int32_t gathered_first_ = -1, gathered_last_ = -1;

  // tflite_cpu mode as a replay (TfliteShadow): plans, but allocates no buffers.
  bool plan_only_ = false;
  // kMemplan: whether `strategy` beat the cheap plans and came within replan_good_enough of
  // the bound the last time it ran (a re-plan runs it only then).
  bool strategy_helped_ = true;
  // kMemplan: whether replan_strategy's last plan from nothing met the lower bound (it goes
  // first then), and how often it was skipped since (memplan_mode.cc).
  bool cheap_at_bound_ = true;
  // kMemplan: replan_strategy is greedy_by_size, whose plan a small range makes in a few
  // passes (small_whole.cc).
  const bool cheap_is_greedy_;
  std::uint32_t cheap_skipped_ = 0;

 private:
  void GrowTables();
  void AssignTemporaries(std::int32_t first, std::int32_t last);
  // The distinct tensors registered to nodes first..last (in registration order).
  std::vector<std::int32_t> Registered(std::int32_t first, std::int32_t last);
  void Registered(std::int32_t first, std::int32_t last, std::vector<std::int32_t>& out);
  // kMemplan: the same in scratch_.registered, gathered again only when the range or the
  // registrations changed since the last call (a re-plan of the same range reuses them).
  const std::vector<std::int32_t>& RangeTensors(std::int32_t first, std::int32_t last);
  // Whether `tensor` uses its root's buffer now (dropping a share that no longer holds).
  bool SharesNow(std::int32_t tensor);
  bool SharesNowConst(std::int32_t tensor) const {
    const std::int32_t root = share_root_[tensor];
    return root >= 0 && graph_.tensors[root].type == CpuAllocationType::kArenaRw &&
           graph_.tensors[root].bytes == graph_.tensors[tensor].bytes;
  }
  void PlacePersistent(const std::vector<std::int32_t>& candidates);
  void Resolve(std::int32_t tensor);
  void ResolveAll();
  std::int32_t LastOf(std::int32_t tensor) const;

  // tflite_cpu mode.
  void ExecuteTflite(std::int32_t first, std::int32_t last);
  void ResetAfterTflite(std::int32_t node);
  // memplan mode.
  void ExecuteMemplan(std::int32_t first, std::int32_t last);
  // Every call but a cache hit after a reset: an unchanged call, a hit with a layout in use
  // or persistent tensors, a miss (`missed_hash`: the key's hash, when the cache was asked).
  [[gnu::noinline]] void ExecuteMemplanOther(std::int32_t first, std::int32_t last,
                                             const std::uint64_t* missed_hash);
  // A call's end: the main arena's mark and buffer for layout_ (`before`: the layout in use
  // before it, whose data a growth keeps), the persistent arena's buffer, the stats.
  // Inline: a cache hit's code, in the lines of its caller.
  [[gnu::always_inline]] void Commit(std::int32_t first, std::int32_t last, bool unchanged,
                                     const cpuplan::Layout* before);
  // A call the cache does not hold: the shapes logged, the temporaries' lifetimes, the layout
  // planned (PlanLayout) and cached; returns it.
  cpuplan::LocalShared<const cpuplan::Layout> PlanAndCache(const cpuplan::LayoutKey& key,
                                                           std::uint64_t key_hash);
  // The main arena's buffer grown to the layout in use, keeping what the layout `before` (the
  // one used before this call; nullptr after a reset) placed where it stays. Out of line:
  // most calls do not grow it (ExecuteMemplan).
  void GrowMain(const cpuplan::Layout* before);
  // The range's persistent tensors placed in TensorFlow Lite's order.
  void PlacePersistentOf(std::int32_t first, std::int32_t last);
  void ResetAfterMemplan(std::int32_t node);
  // Plans into `layout` (new, possibly holding the shapes already) and returns it; its id
  // derives from the call's cache key (`key_hash`), the layout before and the calls since
  // the last reset.
  cpuplan::LocalShared<const cpuplan::Layout> PlanLayout(
      std::int32_t first, std::int32_t last, bool fresh,
      cpuplan::LocalShared<cpuplan::Layout> layout, std::uint64_t key_hash);
  // PlanLayout's steps (memplan_mode.cc). What the call has to place (range.start not yet
  // filled: TakeStart fills it where a plan needs it; a scaled layout does not).
  // Whether a tensor's placement in the layout the range starts from still fits it.
  bool StillHolds(const cpuplan::RangeToPlan& range, std::int32_t tensor) const;
  void TakeStart(cpuplan::RangeToPlan& range);
  cpuplan::RangeToPlan& GatherRange(std::int32_t first, std::int32_t last);
  // Whether a tensor has main-arena memory of its own now, and whether a placement still
  // fits it (made for its current bytes and lifetime).
  bool OwnsMemory(std::int32_t tensor) const {
    return graph_.tensors[tensor].type == CpuAllocationType::kArenaRw && !SharesNowConst(tensor) &&
           alloc_node_[tensor] != cpuplan::kEndOfRun && graph_.tensors[tensor].bytes > 0;
  }
  bool Holds(const cpuplan::Placement& placement, std::int32_t tensor) const {
    return placement.size == graph_.tensors[tensor].bytes &&
           placement.first == alloc_node_[tensor] && placement.last == dealloc_node_[tensor];
  }
  // A repair when it reaches the bound, else a re-plan from the reach (and from the
  // range's first node when kept offsets cost something).
  cpuplan::Replan ChooseReplan(cpuplan::RangeToPlan& range);
  // `missed` receives the bound of the whole layout and its peak when a repair missed the
  // bound (a re-plan of the same range places the same tensors: the same bound).
  // It takes range.start, and gives it back when it misses.
  std::optional<cpuplan::Replan> Repair(cpuplan::RangeToPlan& range, cpuplan::Replan& missed);
  // Whether a repaired layout is at its lower bound, asked at a few nodes first; swept over
  // every node only when `may_sweep` (else false when those do not show it).
  bool RepairAtBound(cpuplan::Replan& out, const cpuplan::Layout* previous,
                     const std::vector<std::int32_t>& changed, bool may_sweep) const;
  // The layout before with every offset scaled by the ratio all the range's tensors grew or
  // shrank by, when that is a whole plan at the new lower bound (scaled_layout.cc); verified.
  bool ScaleLayout(const cpuplan::RangeToPlan& range, cpuplan::Replan& out);
  // A whole layout of `high` bytes verified (cpuplan::VerifyFewPlacements on its placements,
  // or above kSmallRecords placed, VerifyBySweep through the verification's problem).
  void VerifyLayout(const std::vector<cpuplan::Placement>& placement, Bytes high,
                    std::string_view strategy);
  // After a reset, a range of up to kSmallRange tensors of which few changed, repaired by
  // greedy_by_size's rule (the others keep their offsets) in a few passes over its placements
  // (small_range.cc); kept only at the lower bound, verified.
  bool RepairSmall(const cpuplan::RangeToPlan& range, cpuplan::Replan& out);
  // Whether the one tensor a small repair would place grew out of its place at the peak of a
  // layout at its bound, where a repair cannot reach the bound (small_range.cc).
  bool GrewOutOfItsSlotAtThePeak(const cpuplan::RangeToPlan& range) const;
  // Whether a small repair's layout of `high` bytes (the range's tensors at the `slots` of
  // `placement`) is at its bound: asked at `peak` (the layout before's, -1 none), then at the
  // first and last node of each `placed` slot. out.bound and out.peak set when it is.
  bool SmallRepairAtBound(const std::vector<cpuplan::Placement>& placement,
                          std::span<const std::uint32_t> slots, Bytes high, Step peak,
                          std::span<const std::uint32_t> placed, cpuplan::Replan& out) const;
  // After a reset, a range of up to kSmallRange tensors planned whole on its placements
  // (small_whole.cc): the candidates PlaceFromNothing weighs (greedy_by_size's plan and
  // TensorFlow Lite's, the same offsets and the same choice), the bound asked over the
  // placements, verified. false, with nothing changed, where the full strategy's turn comes
  // (or replan_strategy is not greedy_by_size): the general path plans the range then.
  bool PlanSmallWhole(const cpuplan::RangeToPlan& range, cpuplan::Replan& out);
  // The bytes alive at `step` among `placement`, sizes rounded up to the alignment except the
  // topmost: a lower bound of their arena, in one pass (cpuplan::LiveBytesAt over a layout's
  // placements rather than records).
  Bytes AliveAt(const std::vector<cpuplan::Placement>& placement, Step step) const;
  // last_use: the range's placements are not needed after this plan (it takes them).
  cpuplan::Replan PlanFrom(cpuplan::RangeToPlan& range, std::int32_t from, bool last_use = false);
  // The range's placements `start` with every tensor first used after its last node forgotten.
  cpuplan::Replan StartReplan(std::vector<cpuplan::Placement> start, std::int32_t range_last,
                              std::int32_t from) const;
  // The placements alive somewhere in steps lo..hi as fixed records (out.fixed of them; the
  // others counted in out.others), then the `free` tensors; validated.
  const Problem& ProblemAround(const std::vector<cpuplan::Placement>& placement, Step lo, Step hi,
                               const std::vector<std::int32_t>& free, cpuplan::Replan& out);
  // false: stopped once the arena reached `stop_at` (greedy_by_size's scan only), `plan`
  // incomplete.
  bool CheapPlacement(const Problem& problem, const std::string& strategy, OffsetPlan& plan,
                      Bytes stop_at = ~Bytes{0});
  // The candidates for a problem without fixed records; sets out.bound and
  // out.tflite_candidate. `previous`: the layout before, if any. The plan chosen is one of
  // scratch_.plans.
  const OffsetPlan& PlaceFromNothing(const Problem& problem, const std::vector<std::int32_t>& free,
                                     const cpuplan::Layout* previous, cpuplan::Replan& out);
  // Verifies `plan` and writes the free tensors' placements and the high-water mark.
  void Settle(cpuplan::Replan& out, const Problem& problem, const std::vector<std::int32_t>& free,
              const OffsetPlan& plan) const;
  // Settle without the verification (for a plan that may yet be dropped).
  void Apply(cpuplan::Replan& out, const std::vector<std::int32_t>& free,
             const OffsetPlan& plan) const;
  // The records of a layout's placements (a live-to-the-end tensor ends at the last node).
  std::vector<UsageRecord> RecordsOf(const std::vector<cpuplan::Placement>& placement) const;
  // The lower bound of those records (and where it is reached), without allocating.
  Bytes BoundOf(const std::vector<cpuplan::Placement>& placement, Step* peak) const;
  // A lifetime's last node as a record's last step: kEndOfRun (alive to the end of the run)
  // becomes the graph's end, or the first node when that is later.
  // Inline: every pass over placements asks it, the bound's and the verification's.
  Step RecordLast(std::int32_t first, std::int32_t last) const {
    return last == cpuplan::kEndOfRun
               ? std::max<Step>(static_cast<Step>(graph_.nodes.size()), first)
               : Step{last};
  }
  // Makes sure `layout` is no larger than TensorFlow Lite's plan after the same calls
  // (docs/cpu-planner.md, "Never above TensorFlow Lite"); sets layout.check.
  // `bound`: the lower bound of the layout's records when known (else ~0).
  void CheckAgainstTflite(cpuplan::Layout& layout, bool tflite_was_candidate, Bytes bound);
  // TensorFlow Lite's placement of a problem without fixed records whose record k is tensor
  // free[k] (records in its order, offsets returned in the problem's).
  // Stops once its arena reaches `stop_at` (false: `plan` incomplete, its arena no smaller).
  bool TflitePlacement(const Problem& problem, const std::vector<std::int32_t>& free,
                       OffsetPlan& plan, Bytes stop_at = ~Bytes{0});

  std::vector<std::uint32_t> seen_;                 // Registered(): epoch marks per tensor
  mutable std::vector<UsageRecord> bound_records_;  // BoundOf()'s records, reused
  cpuplan::PlanScratch scratch_;                    // kMemplan: buffers reused from plan to plan
  // kMemplan: the bound sweeps', the scan placement's and the verification's buffers (the
  // planner's own rather than thread_local ones: sweep_scratch.h).
  mutable cpuplan::SweepScratch sweep_;
  std::uint32_t epoch_ = 0;
};

}  // namespace memplan
