// PlanAllocations: lifetimes from reference counts and the in-place shares, as TensorFlow
// Lite's ArenaPlanner computes them (docs/cpu-planner.md, "Lifetimes" and "In place").
#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "src/cpuplan/planner_impl.h"

namespace memplan {

using cpuplan::kEndOfRun;

namespace {

bool Contains(const std::vector<std::int32_t>& list, std::int32_t tensor) {
  return std::find(list.begin(), list.end(), tensor) != list.end();
}

}  // namespace

void CpuArenaPlanner::Impl::PlanAllocations() {
  ResetAllocations();
  hint_.reset();  // a new plan: nothing of an older layout is a valid hint
  cache_.Clear();
  // The tables, the shape signature and the persistent count follow every change already
  // (ResizeTensor, SetAllocationType, ReplaceGraph); only a graph that shrank still needs them.
  if (tables_stale_) GrowTables();
  const std::size_t tensors = graph_.tensors.size();
  std::fill(alloc_node_.begin(), alloc_node_.end(), kEndOfRun);
  std::fill(dealloc_node_.begin(), dealloc_node_.end(), kEndOfRun);
  std::fill(share_root_.begin(), share_root_.end(), -1);
  registered_.assign(std::max<std::size_t>(1, graph_.nodes.size()), {});
  ++registrations_;
  temporaries_last_ = temporaries_first_ - 1;

  std::vector<std::int64_t> refs(tensors, 0);
  for (const std::int32_t t : graph_.outputs)
    if (t != kCpuNoTensor) ++refs[t];
  for (const std::int32_t t : graph_.variables) {
    if (t == kCpuNoTensor) continue;
    ++refs[t];
    alloc_node_[t] = 0;
    registered_[0].push_back(t);
  }
  for (const std::int32_t t : graph_.inputs) {
    if (t == kCpuNoTensor) continue;
    ++refs[t];
    if (alloc_node_[t] == kEndOfRun) alloc_node_[t] = 0;
    registered_[0].push_back(t);
  }

  // In place: an output may take the buffer of an input that dies at its node.
  const bool preserve = options_.preserve_all_tensors;
  std::vector<std::int64_t> uses = refs;  // counts with every read, before sharing
  for (const CpuNode& node : graph_.nodes)
    for (const std::int32_t t : node.inputs)
      if (t != kCpuNoTensor) ++uses[t];
  auto root_of = [&](std::int32_t t) {
    while (share_root_[t] != -1) t = share_root_[t];
    return t;
  };
  if (!preserve) {
    for (const CpuNode& node : graph_.nodes) {
      if (node.outputs.empty() || node.inplace == 0) continue;
      const std::int32_t out = node.outputs[0];
      if (out == kCpuNoTensor) continue;
      const bool changed = (node.inplace & kInPlaceDataUnmodified) == 0;
      std::int32_t taken = -1;
      const std::size_t candidates = std::min<std::size_t>(3, node.inputs.size());
      for (std::size_t k = 0; k < candidates && taken < 0; ++k) {
        const std::int32_t in = node.inputs[k];
        if (in == kCpuNoTensor || (node.inplace & (kInPlaceInput0Shared << k)) == 0) continue;
        const CpuTensor& a = graph_.tensors[in];
        const CpuTensor& b = graph_.tensors[out];
        if (changed && (a.bytes != b.bytes || a.bytes <= 4 || uses[in] > 1)) continue;
        if (Contains(graph_.inputs, in) || Contains(graph_.outputs, out)) continue;
        if (a.type != b.type && a.type != CpuAllocationType::kArenaRw) continue;
        taken = in;
      }
      if (taken < 0) continue;
      const std::int32_t root = root_of(taken);
      if (changed && uses[root] > 1) continue;
      share_root_[out] = root;
    }
  }

  // Reads count on the buffer's root; a root dies after the last read of any sharer.
  for (const CpuNode& node : graph_.nodes)
    for (const std::int32_t t : node.inputs)
      if (t != kCpuNoTensor) ++refs[root_of(t)];
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i) {
    const auto node_index = static_cast<std::int32_t>(i);
    const CpuNode& node = graph_.nodes[i];
    for (const std::int32_t t : node.outputs) {
      if (t == kCpuNoTensor) continue;
      registered_[i].push_back(t);
      if (alloc_node_[t] == kEndOfRun) alloc_node_[t] = node_index;
    }
    if (preserve) continue;
    for (const std::int32_t t : node.inputs) {
      if (t == kCpuNoTensor) continue;
      const std::int32_t root = root_of(t);
      if (--refs[root] != 0 || alloc_node_[root] == kEndOfRun) continue;
      if (dealloc_node_[root] != kEndOfRun)
        throw InputError(fmt::format("tensor {} would be freed twice (at node {} and node {})",
                                     root, dealloc_node_[root], node_index));
      dealloc_node_[root] = node_index;
    }
  }
  if (options_.mode == CpuPlannerMode::kMemplan) {
    // The first ExecuteAllocations usually sees these shapes too: it logs the same copy.
    logged_shapes_ = cpuplan::MakeLocalShared<const cpuplan::ShapeSignature>(signature_);
    shadow_.Planned(graph_.tensors);
  }
  ++version_;
}

void CpuArenaPlanner::Impl::AssignTemporaries(std::int32_t first, std::int32_t last) {
  const auto nodes = static_cast<std::int32_t>(graph_.nodes.size());
  for (std::int32_t i = std::max(first, 0); i <= std::min(last, nodes - 1); ++i)
    for (const std::int32_t t : graph_.nodes[i].temporaries) {
      if (t == kCpuNoTensor) continue;
      alloc_node_[t] = i;
      dealloc_node_[t] = options_.preserve_all_tensors ? kEndOfRun : i;
      if (std::find(registered_[i].begin(), registered_[i].end(), t) == registered_[i].end()) {
        registered_[i].push_back(t);
        ++registrations_;
      }
    }
}

}  // namespace memplan
