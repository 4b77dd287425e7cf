// The tflite_cpu mode's main arena: TensorFlow Lite's ArenaPlanner placing the tensors a
// node range needs in its order with SimpleMemoryArena's best fit, and its
// ResetAllocationsAfter (docs/cpu-planner.md, "ExecuteAllocations").
#include <algorithm>

#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/tflite_order.h"

namespace memplan {

using cpuplan::kEndOfRun;
using cpuplan::Placement;

void CpuArenaPlanner::Impl::ExecuteTflite(std::int32_t first, std::int32_t last) {
  AssignTemporaries(first, last);
  std::vector<std::int32_t> kept;
  for (const std::int32_t t : Registered(first, last)) {
    const CpuTensor& tensor = graph_.tensors[t];
    if ((tensor.type == CpuAllocationType::kArenaRw && placement_[t].size < tensor.bytes) ||
        tensor.type == CpuAllocationType::kArenaRwPersistent)
      kept.push_back(t);
  }
  if (!kept.empty()) {
    // A range that starts before the last one ended forgets every active placement.
    if (first < last_active_node_)
      main_.ClearActive();
    else
      main_.DropEndedBefore(first);
    cpuplan::SortInTfliteOrder(kept, graph_, alloc_node_, dealloc_node_);
    for (const std::int32_t t : kept) {
      if (SharesNow(t)) continue;
      const CpuTensor& tensor = graph_.tensors[t];
      if (tensor.type == CpuAllocationType::kArenaRw) {
        placement_[t] = main_.Allocate(tensor.bytes, alloc_node_[t], LastOf(t), t);
        ++stats_.placed;
      } else if (placement_[t].size == 0) {
        placement_[t] = persistent_.Allocate(tensor.bytes, alloc_node_[t], kEndOfRun, t);
      }
    }
  }
  last_active_node_ = last;
  stats_.planned_bytes = main_.high_water();
  if (plan_only_) return;  // a replay (tflite_shadow.h): no memory, no pointers
  // TensorFlow Lite keeps the whole old buffer when an arena grows: the tensors placed
  // before keep their data (docs/cpu-planner.md, "Placement").
  const bool main_moved = main_.Commit(cpuplan::kKeepAll);
  const bool persistent_moved = persistent_.Commit(cpuplan::kKeepAll);
  stats_.buffer_bytes_copied = main_.bytes_copied();
  has_non_persistent_memory_ = true;
  if (main_moved || persistent_moved) {
    ResolveAll();
  } else {
    for (int pass = 0; pass < 2; ++pass)
      for (const std::int32_t t : kept)
        if ((share_root_[t] >= 0) == pass) Resolve(t);
  }
}

void CpuArenaPlanner::Impl::ResetAfterTflite(std::int32_t node) {
  for (std::size_t t = 0; t < graph_.tensors.size(); ++t) {
    Placement& p = placement_[t];
    if (graph_.tensors[t].type == CpuAllocationType::kArenaRw && p.size > 0 && p.first > node) {
      p = Placement{};
      data_[t] = nullptr;
    }
  }
  if (last_active_node_ > node) {
    // Rebuilt from every placement alive at `node`: persistent ones too, as TensorFlow Lite
    // does (their offsets belong to the other arena).
    std::vector<Placement> alive;
    for (const Placement& p : placement_)
      if (p.size > 0 && p.first <= node && node <= p.last) alive.push_back(p);
    main_.SetActive(std::move(alive));
  } else {
    main_.DropStartedAfter(node);
  }
}

}  // namespace memplan
