// Exact feasibility of object capacities, by a sweep over records in step order. A
// state says, for each object, the last step of the record holding it (or that it is
// free); records and objects that lead to the same state are interchangeable for
// everything that follows, so each layer keeps every distinct state once.
#include "src/objects/capacity_search.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

namespace memplan::objects_internal {

namespace {

constexpr Step kFree = -1;

// How a state of one layer was reached: the state it came from and the object taken.
struct Origin {
  std::uint32_t parent;
  std::uint32_t object;
};

// The states of one layer, k steps each, stored flat, with an open-addressing index
// for finding duplicates.
class Layer {
 public:
  explicit Layer(std::size_t k) : k_(k) {}

  std::size_t size() const { return count_; }
  const Step* operator[](std::size_t s) const { return &steps_[s * k_]; }

  void Clear() {
    count_ = 0;
    steps_.clear();
    std::fill(slots_.begin(), slots_.end(), kEmpty);
  }

  // Adds a state unless present; returns whether it was added.
  bool Add(const Step* state) {
    if ((count_ + 1) * 2 > slots_.size()) Grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t h = Hash(state) & mask;; h = (h + 1) & mask) {
      if (slots_[h] == kEmpty) {
        slots_[h] = static_cast<std::uint32_t>(count_);
        steps_.insert(steps_.end(), state, state + k_);
        ++count_;
        return true;
      }
      if (std::memcmp(&steps_[slots_[h] * k_], state, k_ * sizeof(Step)) == 0) return false;
    }
  }

 private:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  std::size_t Hash(const Step* s) const {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < k_; ++i)
      h = (h ^ static_cast<std::uint64_t>(s[i])) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }

  void Grow() {
    slots_.assign(std::max<std::size_t>(16, slots_.size() * 2), kEmpty);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = 0; s < count_; ++s) {
      std::size_t h = Hash(&steps_[s * k_]) & mask;
      while (slots_[h] != kEmpty) h = (h + 1) & mask;
      slots_[h] = static_cast<std::uint32_t>(s);
    }
  }

  std::size_t k_;
  std::size_t count_ = 0;
  std::vector<Step> steps_;
  std::vector<std::uint32_t> slots_;
};

}  // namespace

std::optional<std::vector<ObjectId>> AssignToCapacities(const std::vector<UsageRecord>& records,
                                                        const std::vector<Bytes>& capacities,
                                                        std::uint64_t max_steps,
                                                        std::uint64_t* steps_used) {
  const std::size_t n = records.size();
  const std::size_t k = capacities.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return records[a].first < records[b].first;
  });
  std::uint64_t steps = 0;
  Layer layer(k), next(k);
  const std::vector<Step> all_free(k, kFree);
  layer.Add(all_free.data());
  std::vector<std::vector<Origin>> origins;  // origins[p][s]: how state s after record p arose
  origins.reserve(n);
  std::vector<Step> after(k);
  for (std::size_t p = 0; p < n; ++p) {
    const UsageRecord& r = records[order[p]];
    // Objects free when the next record starts are free in every state: releasing them
    // now merges states that differ only in records already over.
    const Step next_first =
        p + 1 < n ? records[order[p + 1]].first : std::numeric_limits<Step>::max();
    next.Clear();
    std::vector<Origin> how;
    for (std::size_t s = 0; s < layer.size(); ++s) {
      const Step* state = layer[s];
      steps += k;
      for (std::size_t o = 0; o < k && capacities[o] >= r.size; ++o) {  // largest first
        if (state[o] != kFree && state[o] >= r.first) continue;
        // Free objects of equal capacity are interchangeable: take the first.
        if (o > 0 && capacities[o - 1] == capacities[o] && state[o - 1] < r.first) continue;
        steps += k;
        for (std::size_t x = 0; x < k; ++x) after[x] = state[x] < next_first ? kFree : state[x];
        after[o] = r.last < next_first ? kFree : r.last;
        if (next.Add(after.data()))
          how.push_back({static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(o)});
      }
      if (steps > max_steps) break;
    }
    if (steps > max_steps || next.size() == 0) {
      *steps_used += steps;
      return std::nullopt;
    }
    std::swap(layer, next);
    origins.push_back(std::move(how));
  }
  *steps_used += steps;
  std::vector<ObjectId> ids(n);
  std::uint32_t s = 0;
  for (std::size_t p = n; p-- > 0;) {
    ids[order[p]] = origins[p][s].object;
    s = origins[p][s].parent;
  }
  return ids;
}

}  // namespace memplan::objects_internal
