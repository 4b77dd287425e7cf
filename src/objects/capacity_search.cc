// Exact feasibility of object capacities: a depth-first search over the records in step
// order that remembers dead ends. A state says, for each object, the last step of the
// record holding it (or that it is free); objects of equal capacity are interchangeable,
// so a state keeps each group's busy steps sorted and a record only takes a group's
// first free object. A state proven to lead nowhere at record p is never searched again
// at p, so the search visits each distinct state at most once.
#include "src/objects/capacity_search.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

namespace memplan::objects {

namespace {

constexpr Step kFree = -1;

// A set of states, k steps each, stored flat with an open-addressing index.
class StateSet {
 public:
  explicit StateSet(std::size_t k) : k_(k) {}

  bool Contains(const Step* state) const {
    if (count_ == 0) return false;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t h = Hash(state) & mask;; h = (h + 1) & mask) {
      if (slots_[h] == kEmpty) return false;
      if (std::memcmp(&steps_[slots_[h] * k_], state, k_ * sizeof(Step)) == 0) return true;
    }
  }

  void Add(const Step* state) {
    if ((count_ + 1) * 2 > slots_.size()) Grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t h = Hash(state) & mask;
    while (slots_[h] != kEmpty) h = (h + 1) & mask;
    slots_[h] = static_cast<std::uint32_t>(count_);
    steps_.insert(steps_.end(), state, state + k_);
    ++count_;
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

// The objects in groups of equal capacity (capacities sorted): a state lists each
// object's busy-until step, and objects of one group are interchangeable.
struct CapacityGroups {
  std::vector<Bytes> capacities;
  std::vector<std::size_t> group_end;  // one past the last object of o's group

  explicit CapacityGroups(const std::vector<Bytes>& c) : capacities(c), group_end(c.size()) {
    const std::size_t k = c.size();
    for (std::size_t o = k; o-- > 0;)
      group_end[o] = o + 1 < k && c[o + 1] == c[o] ? group_end[o + 1] : o + 1;
  }
  // The state with each group's steps sorted: equal states, whatever the objects' order.
  void Canonical(Step* state) const {
    for (std::size_t o = 0; o < capacities.size(); o = group_end[o])
      if (group_end[o] - o > 1) std::sort(state + o, state + group_end[o]);
  }
  // Groups a record of `size` may use, smallest capacity first (best fit first).
  std::vector<std::size_t> GroupsFor(Bytes size) const {
    std::vector<std::size_t> out;
    for (std::size_t o = 0; o < capacities.size() && capacities[o] >= size; o = group_end[o])
      out.push_back(o);
    std::reverse(out.begin(), out.end());
    return out;
  }
};

// Replays a feasible branch (`path`, k steps per record in `order`) with real objects: at
// each record, an object that leads to the branch's next state.
std::optional<std::vector<ObjectId>> ReplayBranch(const std::vector<UsageRecord>& records,
                                                  const CapacityGroups& groups,
                                                  const std::vector<std::size_t>& order,
                                                  const std::vector<Step>& path) {
  const std::size_t n = records.size();
  const std::size_t k = groups.capacities.size();
  std::vector<ObjectId> ids(n);
  std::vector<Step> actual(k, kFree), after(k), sorted(k);
  for (std::size_t q = 0; q < n; ++q) {
    const UsageRecord& r = records[order[q]];
    const Step next_first =
        q + 1 < n ? records[order[q + 1]].first : std::numeric_limits<Step>::max();
    const Step* target = &path[(q + 1) * k];
    bool placed = false;
    for (std::size_t o = 0; o < k && !placed && groups.capacities[o] >= r.size; ++o) {
      if (actual[o] != kFree && actual[o] >= r.first) continue;
      for (std::size_t x = 0; x < k; ++x) after[x] = actual[x] < next_first ? kFree : actual[x];
      after[o] = r.last < next_first ? kFree : r.last;
      sorted = after;
      groups.Canonical(sorted.data());
      if (std::equal(sorted.begin(), sorted.end(), target)) {
        ids[order[q]] = o;
        actual = after;
        placed = true;
      }
    }
    if (!placed) return std::nullopt;  // cannot happen: the branch is feasible
  }
  return ids;
}

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
  const CapacityGroups groups(capacities);

  std::uint64_t steps = 0;
  std::vector<StateSet> dead(n + 1, StateSet(k));  // dead[p]: states that fail at record p
  // path[p]: the state before record p on the current branch (k steps each);
  // tried[p]: how many of record p's groups the branch has tried.
  std::vector<Step> path((n + 1) * k, kFree);
  std::vector<std::size_t> tried(n + 1, 0);
  std::vector<std::vector<std::size_t>> options(n);
  for (std::size_t p = 0; p < n; ++p) options[p] = groups.GroupsFor(records[order[p]].size);
  std::size_t p = 0;
  while (p < n) {
    if (steps > max_steps) {
      *steps_used += steps;
      return std::nullopt;
    }
    const UsageRecord& r = records[order[p]];
    Step* state = &path[p * k];
    bool advanced = false;
    while (tried[p] < options[p].size()) {
      const std::size_t o = options[p][tried[p]++];
      steps += k;
      // The group's first free object (free ones sort first; busy ones end >= r.first).
      if (state[o] != kFree) continue;
      const Step next_first =
          p + 1 < n ? records[order[p + 1]].first : std::numeric_limits<Step>::max();
      Step* after = &path[(p + 1) * k];
      for (std::size_t x = 0; x < k; ++x) after[x] = state[x] < next_first ? kFree : state[x];
      after[o] = r.last < next_first ? kFree : r.last;
      groups.Canonical(after);
      if (dead[p + 1].Contains(after)) continue;
      tried[p + 1] = 0;
      ++p;
      advanced = true;
      break;
    }
    if (advanced) continue;
    // Every choice at record p failed: this state is a dead end at p.
    dead[p].Add(state);
    if (p == 0) {
      *steps_used += steps;
      return std::nullopt;
    }
    --p;
  }
  *steps_used += steps;
  return ReplayBranch(records, groups, order, path);
}

}  // namespace memplan::objects
