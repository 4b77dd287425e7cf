// Replaying the calls TensorFlow Lite's planner would have seen (tflite_shadow.h,
// docs/cpu-planner.md "Never above TensorFlow Lite").
#include "src/cpuplan/tflite_shadow.h"

#include "src/cpuplan/planner_impl.h"

namespace memplan::cpuplan {

TfliteShadow::TfliteShadow() = default;
TfliteShadow::~TfliteShadow() = default;

void TfliteShadow::Reserve(std::size_t tensors) {
  dropped_in_.reserve(tensors);
  // Written now, with the graph: memory first written by the first PlanAllocations faulted
  // there (visual wake words' first plan in the benchmark walk, 1.09 -> 1.17 x).
  plan_tensors_.resize(tensors);
  log_.reserve(8);
}

void TfliteShadow::Planned(const std::vector<CpuTensor>& tensors) {
  dropped_in_.assign(tensors.size(), 0);
  drops_ = 0;
  plan_tensors_.assign(tensors.begin(), tensors.end());
  ++generation_;
  ready_ = true;
  log_.clear();
  path_ = 0;
}

void TfliteShadow::ResetAfter(std::int32_t node) {
  log_.push_back({false, node, node, nullptr, false});
  path_ = Mix(path_ ^ Mix(static_cast<std::uint64_t>(node) + 0x77));
}

void TfliteShadow::Forget() {
  replay_.reset();
  ready_ = false;
  log_.clear();
}

void TfliteShadow::Dropped(std::size_t tensor) {
  if (dropped_in_[tensor] != 0) return;
  dropped_in_[tensor] = epoch_ + 1;
  ++drops_;
}

void TfliteShadow::ApplyTensor(std::size_t tensor, Bytes bytes, CpuAllocationType type) {
  const CpuTensor& now = replay_->graph_.tensors[tensor];
  const auto i = static_cast<std::int32_t>(tensor);
  if (now.type != type) replay_->SetAllocationType(i, type);
  if (now.bytes != bytes) replay_->ResizeTensor(i, bytes);
}

void TfliteShadow::ApplyShapes(const ShapeSignature& shapes, const SignedTensors& signed_tensors) {
  // The signed tensors past these shapes' end joined an arena since they were logged: in
  // none before, they are in none in the replay planner either, which applies the log in
  // order from PlanAllocations' tensors (the join falls in the epoch being replayed, whose
  // earlier calls the planner has not passed).
  const std::size_t tensors = replay_->graph_.tensors.size();
  for (std::size_t e = 0; e < shapes.size() && e < signed_tensors.size(); ++e)
    if (const std::size_t t = signed_tensors.tensor(e); t < tensors)
      ApplyTensor(t, shapes.bytes(e), shapes.type(e));
}

const CpuArenaPlanner::Impl* TfliteShadow::CatchUp(const CpuGraph& graph,
                                                   const CpuPlannerOptions& options,
                                                   const SignedTensors& signed_tensors) {
  if (!ready_) return nullptr;
  bool restarted = false;
  if (!replay_ || replay_generation_ != generation_) {
    CpuPlannerOptions o;
    o.mode = CpuPlannerMode::kTfliteCpu;
    o.preserve_all_tensors = options.preserve_all_tensors;
    o.tensor_alignment = options.tensor_alignment;
    o.cache_capacity = 0;
    replay_ = std::make_unique<CpuArenaPlanner::Impl>(graph, std::move(o));
    replay_->plan_only_ = true;
    for (std::size_t t = 0; t < plan_tensors_.size() && t < graph.tensors.size(); ++t)
      ApplyTensor(t, plan_tensors_[t].bytes, plan_tensors_[t].type);
    replay_->PlanAllocations();
    replay_generation_ = generation_;
    restarted = true;
  } else if (replay_epoch_ != epoch_) {
    replay_->ResetAllocations();
    restarted = true;
  }
  if (restarted) {
    // Shares TensorFlow Lite dropped in earlier epochs stay dropped; the calls of this
    // epoch drop their own as they are replayed.
    for (std::size_t t = 0; t < dropped_in_.size(); ++t)
      if (dropped_in_[t] != 0 && dropped_in_[t] <= epoch_) replay_->share_root_[t] = -1;
    replay_epoch_ = epoch_;
    applied_ = 0;
  }
  for (; applied_ < log_.size(); ++applied_) {
    const Entry& e = log_[applied_];
    if (e.execute) {
      ApplyShapes(*e.shapes, signed_tensors);
      replay_->ExecuteAllocations(e.first, e.last);
    } else {
      replay_->ResetAllocationsAfter(e.first);
    }
  }
  return replay_.get();
}

}  // namespace memplan::cpuplan
