// objects/best: memplan's own. Runs TensorFlow Lite's strategies, improves each of their
// plans by local search (src/objects/local_search.h), then squeezes the best one's
// object sizes with an exact test of whether given sizes can hold every record
// (src/objects/capacity_search.h): lower each object as far as the test allows, and try
// one more small object if that lets the others shrink more than it costs. Stops at the
// objects lower bound or when its work budget is spent. Deterministic.
#include <algorithm>
#include <optional>
#include <string_view>

#include "memplan/bounds.h"
#include "src/objects/capacity_search.h"
#include "src/objects/local_search.h"
#include "src/objects/sweep.h"

namespace memplan {

using namespace objects;

namespace {

// min_cost_flow's solver grows superlinearly; above this many records best does without.
constexpr std::size_t kMinCostFlowLimit = 2000;

// Elementary local-search steps per record, shared by all starts.
constexpr std::uint64_t kWorkPerRecord = 4000;

// State expansions of the capacity test per record, shared by all tests.
constexpr std::uint64_t kCapacityStepsPerRecord = 8000;

// How many sizes best tries for one more object (the smallest candidates).
constexpr std::size_t kExtraSizes = 6;

Bytes Sum(const std::vector<Bytes>& v) {
  Bytes total = 0;
  for (Bytes x : v) total += x;
  return total;
}

// Object sizes tightened by the exact capacity test.
class CapacitySqueeze {
 public:
  CapacitySqueeze(const std::vector<UsageRecord>& records, std::uint64_t budget)
      : records_(records), budget_(budget), pm_(PositionalMaximums(records)) {
    for (const UsageRecord& r : records) levels_.push_back(r.size);
    levels_.push_back(0);
    std::sort(levels_.begin(), levels_.end());
    levels_.erase(std::unique(levels_.begin(), levels_.end()), levels_.end());
  }

  // An assignment for capacities (any order), or nullopt (none, or out of budget).
  std::optional<std::vector<ObjectId>> Try(std::vector<Bytes> caps) {
    std::sort(caps.begin(), caps.end(), std::greater<>());
    while (!caps.empty() && caps.back() == 0) caps.pop_back();
    if (used_ >= budget_) return std::nullopt;
    // The records alive at one step need distinct objects, each large enough: the j-th
    // largest capacity must reach the j-th positional maximum.
    if (caps.size() < pm_.size()) return std::nullopt;
    // Too many records x objects for the search's branch in memory: the squeeze ends.
    if (!StateMemoryFits(records_.size(), caps.size())) {
      used_ = budget_;
      return std::nullopt;
    }
    for (std::size_t j = 0; j < pm_.size(); ++j)
      if (caps[j] < pm_[j]) return std::nullopt;
    auto ids = AssignToCapacities(records_, caps, budget_ - used_, &used_);
    if (ids) last_caps_ = caps;
    return ids;
  }
  const std::vector<Bytes>& LastCaps() const { return last_caps_; }
  bool Spent() const { return used_ >= budget_; }

  // Lowers each capacity in turn, one level at a time, while the test accepts (lowering
  // a capacity never helps another: a failed step ends that capacity's descent). Tests
  // that succeed are cheap, failures cost a full search, so small steps waste least.
  // The smallest object is first tried without any capacity (removed). Returns the
  // assignment of the final capacities, or nullopt if nothing could be lowered.
  std::optional<std::vector<ObjectId>> Descend(std::vector<Bytes>& caps) {
    std::optional<std::vector<ObjectId>> found;
    std::sort(caps.begin(), caps.end(), std::greater<>());
    if (!caps.empty()) {
      std::vector<Bytes> trial(caps.begin(), caps.end() - 1);
      if (auto ids = Try(trial)) {
        caps.back() = 0;
        found = std::move(ids);
      }
    }
    for (std::size_t j = 0; j < caps.size() && !Spent(); ++j) {
      auto level = std::lower_bound(levels_.begin(), levels_.end(), caps[j]);
      while (level != levels_.begin() && !Spent()) {
        --level;
        std::vector<Bytes> trial = caps;
        trial[j] = *level;
        auto ids = Try(trial);
        if (!ids) break;
        caps[j] = *level;
        found = std::move(ids);
      }
    }
    return found;
  }

 private:
  const std::vector<UsageRecord>& records_;
  std::uint64_t budget_;
  std::uint64_t used_ = 0;
  std::vector<Bytes> pm_;      // positional maximums: a necessary condition on capacities
  std::vector<Bytes> levels_;  // distinct record sizes and 0, ascending
  std::vector<Bytes> last_caps_;
};

}  // namespace

ObjectPlan PlanObjectsBest(const Problem& problem) {
  return PlanObjectsBestReusing(problem, {});
}

ObjectPlan PlanObjectsBestReusing(const Problem& problem, std::span<const ObjectPlan> known) {
  const std::vector<UsageRecord> records = AlignedRecords(problem);
  const Bytes lower = ObjectsLowerBound(problem);
  auto known_or = [&](std::string_view name, ObjectPlan (*make)(const Problem&)) {
    for (const ObjectPlan& p : known)
      if (p.strategy == name) return p;
    return make(problem);
  };
  std::vector<ObjectPlan> starts;
  starts.push_back(known_or("greedy_by_size", &PlanObjectsGreedyBySize));
  starts.push_back(known_or("greedy_by_breadth", &PlanObjectsGreedyByBreadth));
  starts.push_back(known_or("greedy_in_order", &PlanObjectsGreedyInOrder));
  if (problem.size() <= kMinCostFlowLimit)
    starts.push_back(known_or("min_cost_flow", &PlanObjectsMinCostFlow));
  starts.push_back(known_or("equality", &PlanObjectsEquality));

  ObjectPlan best = starts.front();
  for (const ObjectPlan& s : starts)
    if (s.total_bytes < best.total_bytes) best = s;
  const std::uint64_t n = std::max<std::uint64_t>(problem.size(), 1);
  const std::uint64_t budget = kWorkPerRecord * n / starts.size();
  for (const ObjectPlan& start : starts) {
    if (best.total_bytes <= lower) break;
    ObjectPlan improved = ObjectPlanFromIds(
        problem, "best", ImproveObjects(records, start.object_ids, lower, budget));
    if (improved.total_bytes < best.total_bytes) best = std::move(improved);
  }

  CapacitySqueeze squeeze(records, kCapacityStepsPerRecord * n);
  auto adopt = [&](const std::vector<ObjectId>& ids) {
    ObjectPlan plan = ObjectPlanFromIds(problem, "best", ids);
    if (plan.total_bytes < best.total_bytes) best = std::move(plan);
  };
  if (best.total_bytes > lower) {
    // The lower bound's own sizes: if they fit, nothing can be smaller.
    if (auto ids = squeeze.Try(PositionalMaximums(records))) adopt(*ids);
  }
  if (best.total_bytes > lower) {
    std::vector<Bytes> caps = best.object_sizes;
    if (auto ids = squeeze.Descend(caps)) adopt(*ids);
  }
  // One more object, as large as one of the bound's positional maximums or one of the
  // current objects, if the others then shrink by more than it costs.
  std::vector<Bytes> extras = PositionalMaximums(records);
  extras.insert(extras.end(), best.object_sizes.begin(), best.object_sizes.end());
  std::sort(extras.begin(), extras.end());
  extras.erase(std::unique(extras.begin(), extras.end()), extras.end());
  if (extras.size() > kExtraSizes) extras.resize(kExtraSizes);
  for (Bytes extra : extras) {
    if (best.total_bytes <= lower || squeeze.Spent() || extra >= best.total_bytes) break;
    std::vector<Bytes> caps = best.object_sizes;
    caps.push_back(extra);
    if (!squeeze.Try(caps)) continue;
    if (auto ids = squeeze.Descend(caps); ids && Sum(caps) < best.total_bytes) adopt(*ids);
  }
  best.strategy = "best";
  return best;
}

}  // namespace memplan
