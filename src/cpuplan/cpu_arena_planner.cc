// CpuArenaPlanner: the calls both modes share (tables, persistent arena, data pointers,
// memory release) and the public class (docs/cpu-planner.md).
#include "memplan/cpu_arena_planner.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "src/cpuplan/planner_impl.h"
#include "src/cpuplan/tflite_order.h"

namespace memplan {

using cpuplan::kEndOfRun;
using cpuplan::Placement;

CpuArenaPlanner::Impl::Impl(CpuGraph graph, CpuPlannerOptions options)
    : graph_(std::move(graph)),
      options_(std::move(options)),
      cache_(options_.mode == CpuPlannerMode::kMemplan ? options_.cache_capacity : 0),
      memplan_mode_(options_.mode == CpuPlannerMode::kMemplan),
      main_(false, options_.tensor_alignment, options_.on_buffer_event),
      persistent_(true, options_.tensor_alignment, options_.on_buffer_event),
      cheap_is_greedy_(options_.replan_strategy == "greedy_by_size") {
  GrowTables();
}

void CpuArenaPlanner::Impl::AssignSlots() {
  slot_of_.assign(graph_.tensors.size(), -1);
  tensor_of_slot_.clear();
  for (std::size_t t = 0; t < graph_.tensors.size(); ++t)
    if (graph_.tensors[t].type == CpuAllocationType::kArenaRw)
      AddSlot(static_cast<std::int32_t>(t));
}

void CpuArenaPlanner::Impl::AddSlot(std::int32_t tensor) {
  slot_of_[static_cast<std::size_t>(tensor)] = static_cast<std::int32_t>(tensor_of_slot_.size());
  tensor_of_slot_.push_back(tensor);
}

void CpuArenaPlanner::Impl::CheckTensor(std::int32_t tensor, const char* what) const {
  if (tensor < 0 || static_cast<std::size_t>(tensor) >= graph_.tensors.size())
    throw UsageError(fmt::format("{}: tensor {} is not one of the graph's {} tensors", what, tensor,
                                 graph_.tensors.size()));
}

void CpuArenaPlanner::Impl::GrowTables() {
  const std::size_t n = graph_.tensors.size();
  for (const CpuNode& node : graph_.nodes)
    for (const auto* list : {&node.inputs, &node.outputs, &node.temporaries})
      for (const std::int32_t t : *list)
        if (t != kCpuNoTensor) CheckTensor(t, "node list");
  for (const auto* list : {&graph_.inputs, &graph_.outputs, &graph_.variables})
    for (const std::int32_t t : *list)
      if (t != kCpuNoTensor) CheckTensor(t, "graph list");
  tables_stale_ = false;
  alloc_node_.resize(n, kEndOfRun);
  dealloc_node_.resize(n, kEndOfRun);
  share_root_.resize(n, -1);
  placement_.resize(n);
  data_.resize(n, nullptr);
  seen_.resize(n, 0);
  if (options_.mode == CpuPlannerMode::kMemplan) {
    AssignSlots();
    scratch_.Reserve(n);
    shadow_.Reserve(n);
    bound_records_.reserve(n);
  }
  signed_tensors_.Reset(graph_.tensors);
  signature_.Reset(graph_.tensors, signed_tensors_);
  persistent_tensors_ = static_cast<std::size_t>(std::count_if(
      graph_.tensors.begin(), graph_.tensors.end(),
      [](const CpuTensor& t) { return t.type == CpuAllocationType::kArenaRwPersistent; }));
  ++version_;
}

std::vector<std::int32_t> CpuArenaPlanner::Impl::Registered(std::int32_t first, std::int32_t last) {
  std::vector<std::int32_t> out;
  Registered(first, last, out);
  return out;
}

void CpuArenaPlanner::Impl::Registered(std::int32_t first, std::int32_t last,
                                       std::vector<std::int32_t>& out) {
  out.clear();
  if (++epoch_ == 0) {
    std::fill(seen_.begin(), seen_.end(), 0);
    epoch_ = 1;
  }
  const auto nodes = static_cast<std::int32_t>(registered_.size());
  for (std::int32_t i = std::max(first, 0); i <= std::min(last, nodes - 1); ++i)
    for (const std::int32_t t : registered_[i])
      if (seen_[t] != epoch_) {
        seen_[t] = epoch_;
        out.push_back(t);
      }
}

bool CpuArenaPlanner::Impl::SharesNow(std::int32_t tensor) {
  if (share_root_[tensor] < 0) return false;
  if (SharesNowConst(tensor)) return true;
  // TensorFlow Lite drops a share that no longer holds for good; kMemplan decides from the
  // current shapes each time, so a cached layout stays valid when they come back.
  if (options_.mode == CpuPlannerMode::kTfliteCpu) share_root_[tensor] = -1;
  return false;
}

std::int32_t CpuArenaPlanner::Impl::LastOf(std::int32_t tensor) const {
  return dealloc_node_[tensor];
}

void CpuArenaPlanner::Impl::PlacePersistent(const std::vector<std::int32_t>& sorted) {
  for (const std::int32_t t : sorted) {
    if (graph_.tensors[t].type != CpuAllocationType::kArenaRwPersistent) continue;
    if (SharesNow(t) || placement_[t].size != 0) continue;
    placement_[t] = persistent_.Allocate(graph_.tensors[t].bytes, alloc_node_[t], kEndOfRun, t);
    persistent_used_ = true;
  }
}

void CpuArenaPlanner::Impl::Resolve(std::int32_t t) {
  const CpuAllocationType type = graph_.tensors[t].type;
  const std::int32_t root = share_root_[t];
  if (root >= 0 && type == graph_.tensors[root].type &&
      (type == CpuAllocationType::kArenaRw || type == CpuAllocationType::kArenaRwPersistent)) {
    data_[t] = data_[root];
    return;
  }
  const Placement& p = placement_[t];
  if (type == CpuAllocationType::kArenaRw) {
    if (p.size != 0) data_[t] = main_.base() + p.offset;
  } else if (type == CpuAllocationType::kArenaRwPersistent) {
    data_[t] = p.size != 0 ? persistent_.base() + p.offset : nullptr;
  }
}

void CpuArenaPlanner::Impl::ResolveAll() {
  const auto n = static_cast<std::int32_t>(graph_.tensors.size());
  for (std::int32_t t = 0; t < n; ++t)
    if (share_root_[t] < 0) Resolve(t);
  for (std::int32_t t = 0; t < n; ++t)
    if (share_root_[t] >= 0) Resolve(t);
}

void CpuArenaPlanner::Impl::ThrowTablesStale() const {
  throw UsageError(
      fmt::format("ExecuteAllocations: the graph shrank to {} tensors; call PlanAllocations first",
                  graph_.tensors.size()));
}

void CpuArenaPlanner::Impl::ExecuteAllocations(std::int32_t first, std::int32_t last) {
  stats_ = CpuPlanStats{};
  if (tables_stale_) [[unlikely]]
    ThrowTablesStale();
  if (!memplan_mode_)
    ExecuteTflite(first, last);
  else
    ExecuteMemplan(first, last);
}

void CpuArenaPlanner::Impl::ResetAllocations() {
  // The memplan mode's reset without persistent tensors (a returning shape's, before its cache
  // hit) in a few lines of code; the persistent arena and the placements out of line.
  if (!memplan_mode_ || persistent_used_ || persistent_tensors_ > 0) [[unlikely]]
    ResetPersistentAndPlacements();
  main_.ClearPlan();
  last_active_node_ = kEndOfRun;
  if (layout_) hint_ = std::move(layout_);  // the layout becomes the hint (layout_ empties)
  if (memplan_mode_) shadow_.Reset();
  ++version_;
}

void CpuArenaPlanner::Impl::ResetPersistentAndPlacements() {
  if (!memplan_mode_ || persistent_used_) persistent_.ClearPlan();
  // kMemplan keeps only persistent tensors in placement_ (the main arena is in layout_):
  // with none, a reset is O(1), so returning to a cached shape stays a lookup.
  if (!memplan_mode_ || persistent_tensors_ > 0)
    std::fill(placement_.begin(), placement_.end(), Placement{});
}

void CpuArenaPlanner::Impl::ResetAllocationsAfter(std::int32_t node) {
  if (options_.mode == CpuPlannerMode::kTfliteCpu)
    ResetAfterTflite(node);
  else
    ResetAfterMemplan(node);
  if (options_.mode == CpuPlannerMode::kMemplan) shadow_.ResetAfter(node);
  last_active_node_ = node;
  ++version_;
}

void CpuArenaPlanner::Impl::ReleaseNonPersistentMemory() {
  main_.Release();
  for (std::size_t t = 0; t < graph_.tensors.size(); ++t)
    if (graph_.tensors[t].type == CpuAllocationType::kArenaRw) data_[t] = nullptr;
  has_non_persistent_memory_ = false;
}

void CpuArenaPlanner::Impl::AcquireNonPersistentMemory() {
  // After a release the old buffer is empty: nothing to copy (a held one does not grow).
  main_.Commit(cpuplan::kKeepAll);
  has_non_persistent_memory_ = true;
  const auto n = static_cast<std::int32_t>(graph_.tensors.size());
  for (int pass = 0; pass < 2; ++pass)
    for (std::int32_t t = 0; t < n; ++t)
      if (graph_.tensors[t].type == CpuAllocationType::kArenaRw && (share_root_[t] >= 0) == pass)
        Resolve(t);
}

void CpuArenaPlanner::Impl::ResizeTensor(std::int32_t tensor, Bytes bytes) {
  CheckTensor(tensor, "ResizeTensor");
  CpuTensor& t = graph_.tensors[tensor];
  if (t.bytes == bytes) return;
  t.bytes = bytes;
  // A tensor never in an arena is in no plan: its bytes are not signed (its version still
  // bumps: the next call finds the same shapes in the cache).
  if (const std::int32_t entry = signed_tensors_.entry(static_cast<std::size_t>(tensor));
      entry >= 0)
    signature_.Set(static_cast<std::size_t>(entry), bytes, t.type);
  ++version_;
}

void CpuArenaPlanner::Impl::SetAllocationType(std::int32_t tensor, CpuAllocationType type) {
  CheckTensor(tensor, "SetAllocationType");
  CpuTensor& t = graph_.tensors[tensor];
  if (t.type == type) return;
  if (t.type == CpuAllocationType::kArenaRwPersistent) --persistent_tensors_;
  if (type == CpuAllocationType::kArenaRwPersistent) ++persistent_tensors_;
  t.type = type;
  if (type == CpuAllocationType::kArenaRw && options_.mode == CpuPlannerMode::kMemplan &&
      slot_of_[static_cast<std::size_t>(tensor)] < 0)
    AddSlot(tensor);
  const std::int32_t entry = signed_tensors_.entry(static_cast<std::size_t>(tensor));
  if (entry >= 0)
    signature_.Set(static_cast<std::size_t>(entry), t.bytes, type);
  else if (cpuplan::SignedTensors::InArena(type)) {  // its first time in an arena
    signed_tensors_.Add(static_cast<std::size_t>(tensor));
    signature_.Append(t.bytes, type);
  }
  ++version_;
}

void CpuArenaPlanner::Impl::ReplaceGraph(CpuGraph graph) {
  // Fewer tensors: the tables shrink at the next PlanAllocations, which must come first.
  tables_stale_ = graph.tensors.size() < alloc_node_.size();
  graph_ = std::move(graph);
  // New tensors: none has memory yet, and no layout of the old graph applies.
  std::fill(data_.begin(), data_.end(), nullptr);
  layout_.reset();
  hint_.reset();
  shadow_.Forget();
  if (!tables_stale_) GrowTables();
  cache_.Clear();
  temporaries_last_ = temporaries_first_ - 1;
  ++version_;
}

std::byte* CpuArenaPlanner::Impl::TensorData(std::int32_t tensor) const {
  CheckTensor(tensor, "TensorData");
  if (options_.mode == CpuPlannerMode::kTfliteCpu) return data_[tensor];
  const CpuAllocationType type = graph_.tensors[tensor].type;
  const std::int32_t t = SharesNowConst(tensor) ? share_root_[tensor] : tensor;
  if (type == CpuAllocationType::kArenaRw) {
    if (!has_non_persistent_memory_ || !layout_) return nullptr;
    const Placement* p = PlacementIn(*layout_, t);
    return !p || p->size == 0 ? nullptr : main_.base() + p->offset;
  }
  if (type == CpuAllocationType::kArenaRwPersistent) {
    const Placement& p = placement_[tensor];
    return p.size == 0 ? nullptr : persistent_.base() + p.offset;
  }
  return nullptr;
}

std::pair<Problem, std::vector<Bytes>> CpuArenaPlanner::Impl::MainArenaLayout(
    std::vector<std::int32_t>* tensors) const {
  Problem problem;
  problem.alignment = options_.tensor_alignment;
  std::vector<Bytes> offsets;
  const auto end = static_cast<Step>(graph_.nodes.size());
  const bool tflite = options_.mode == CpuPlannerMode::kTfliteCpu;
  if (tensors) tensors->clear();
  for (std::size_t t = 0; t < graph_.tensors.size(); ++t) {
    const Placement* p = nullptr;
    if (tflite && graph_.tensors[t].type == CpuAllocationType::kArenaRw)
      p = &placement_[t];
    else if (!tflite && layout_)
      p = PlacementIn(*layout_, static_cast<std::int32_t>(t));
    if (!p || p->size == 0) continue;
    problem.records.push_back(
        {p->size, p->first, p->last == kEndOfRun ? std::max<Step>(end, p->first) : p->last});
    offsets.push_back(p->offset);
    if (tensors) tensors->push_back(static_cast<std::int32_t>(t));
  }
  return {std::move(problem), std::move(offsets)};
}

// The public class forwards to the state.

CpuArenaPlanner::CpuArenaPlanner(CpuGraph graph, CpuPlannerOptions options)
    : impl_(std::make_unique<Impl>(std::move(graph), std::move(options))) {}
CpuArenaPlanner::~CpuArenaPlanner() = default;
void CpuArenaPlanner::PlanAllocations() {
  impl_->PlanAllocations();
}
void CpuArenaPlanner::ExecuteAllocations(std::int32_t first_node, std::int32_t last_node) {
  impl_->ExecuteAllocations(first_node, last_node);
}
void CpuArenaPlanner::ResetAllocations() {
  impl_->ResetAllocations();
}
void CpuArenaPlanner::ResetAllocationsAfter(std::int32_t node) {
  impl_->ResetAllocationsAfter(node);
}
void CpuArenaPlanner::ReleaseNonPersistentMemory() {
  impl_->ReleaseNonPersistentMemory();
}
void CpuArenaPlanner::AcquireNonPersistentMemory() {
  impl_->AcquireNonPersistentMemory();
}
bool CpuArenaPlanner::HasNonPersistentMemory() const {
  return impl_->has_non_persistent_memory_;
}
void CpuArenaPlanner::ResizeTensor(std::int32_t tensor, Bytes bytes) {
  impl_->ResizeTensor(tensor, bytes);
}
void CpuArenaPlanner::SetAllocationType(std::int32_t tensor, CpuAllocationType type) {
  impl_->SetAllocationType(tensor, type);
}
void CpuArenaPlanner::ReplaceGraph(CpuGraph graph) {
  impl_->ReplaceGraph(std::move(graph));
}
const CpuGraph& CpuArenaPlanner::graph() const {
  return impl_->graph_;
}
const CpuPlannerOptions& CpuArenaPlanner::options() const {
  return impl_->options_;
}
std::byte* CpuArenaPlanner::TensorData(std::int32_t tensor) const {
  return impl_->TensorData(tensor);
}
std::byte* CpuArenaPlanner::ArenaBase() const {
  return impl_->main_.base();
}
std::byte* CpuArenaPlanner::PersistentArenaBase() const {
  return impl_->persistent_.base();
}
Bytes CpuArenaPlanner::ArenaBufferBytes() const {
  return impl_->main_.buffer_bytes();
}
Bytes CpuArenaPlanner::PersistentArenaBufferBytes() const {
  return impl_->persistent_.buffer_bytes();
}
Bytes CpuArenaPlanner::PlannedArenaBytes() const {
  return impl_->main_.high_water();
}
CpuLifetime CpuArenaPlanner::Lifetime(std::int32_t tensor) const {
  impl_->CheckTensor(tensor, "Lifetime");
  CpuLifetime out;
  if (impl_->alloc_node_[tensor] != kEndOfRun) out.first = impl_->alloc_node_[tensor];
  if (impl_->dealloc_node_[tensor] != kEndOfRun) out.last = impl_->dealloc_node_[tensor];
  return out;
}
std::optional<std::int32_t> CpuArenaPlanner::SharesBufferOf(std::int32_t tensor) const {
  impl_->CheckTensor(tensor, "SharesBufferOf");
  const std::int32_t root = impl_->share_root_[tensor];
  return root >= 0 ? std::optional<std::int32_t>(root) : std::nullopt;
}
std::pair<Problem, std::vector<Bytes>> CpuArenaPlanner::MainArenaLayout(
    std::vector<std::int32_t>* tensors) const {
  return impl_->MainArenaLayout(tensors);
}
const CpuPlanStats& CpuArenaPlanner::last_stats() const {
  return impl_->stats_;
}

CpuPlannerMode CpuPlannerModeNamed(const std::string& name) {
  if (name == "tflite_cpu") return CpuPlannerMode::kTfliteCpu;
  if (name == "memplan") return CpuPlannerMode::kMemplan;
  throw UsageError(fmt::format("unknown CPU planner mode '{}' (tflite_cpu or memplan)", name));
}

const char* CpuPlannerModeName(CpuPlannerMode mode) {
  return mode == CpuPlannerMode::kTfliteCpu ? "tflite_cpu" : "memplan";
}

}  // namespace memplan
