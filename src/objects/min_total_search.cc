// Exact minimum-total search for shared objects: see min_total_search.h for why each
// pruning rule keeps it exact. Quadratic preprocessing and a memo of whole states: meant
// for problems of a few hundred records, not for objects/best's hot path.
#include "src/objects/min_total_search.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include "src/objects/sweep.h"

namespace memplan::objects {

namespace {

constexpr Step kFree = -1;

struct Object {
  Bytes size;
  Step busy_until;  // last step of the newest record in it
};

class Search {
 public:
  Search(const std::vector<UsageRecord>& records, Bytes upper, std::uint64_t max_nodes)
      : order_(SweepOrder(records)),
        records_(InOrder(records, order_)),
        best_(upper),
        max_nodes_(max_nodes),
        seen_(records.size()),
        assign_(records.size()) {
    // suffix_[p]: positional maximums over the steps from record p's first step on. The
    // records alive at any step are all alive at the latest first step among them, so
    // the first steps are the only steps that matter.
    const std::size_t n = records_.size();
    suffix_.resize(n + 1);
    for (std::size_t p = n; p-- > 0;) {
      suffix_[p] = suffix_[p + 1];
      // Records sharing a first step: the last of them adds the step, the others copy.
      if (p + 1 < n && records_[p + 1].first == records_[p].first) continue;
      std::vector<Bytes> alive;
      for (const UsageRecord& r : records_)
        if (r.first <= records_[p].first && records_[p].first <= r.last) alive.push_back(r.size);
      std::sort(alive.begin(), alive.end(), std::greater<>());
      if (suffix_[p].size() < alive.size()) suffix_[p].resize(alive.size(), 0);
      for (std::size_t j = 0; j < alive.size(); ++j)
        suffix_[p][j] = std::max(suffix_[p][j], alive[j]);
    }
  }

  MinTotalResult Run() {
    Visit(0);
    MinTotalResult out;
    out.complete = !aborted_;
    out.total = best_;
    out.nodes = nodes_;
    if (!best_ids_.empty()) {
      out.object_ids.resize(order_.size());
      for (std::size_t p = 0; p < order_.size(); ++p) out.object_ids[order_[p]] = best_ids_[p];
    }
    return out;
  }

 private:
  Bytes Bound(std::size_t p) const {
    std::vector<Bytes> sizes;
    for (const Object& o : objects_) sizes.push_back(o.size);
    std::sort(sizes.begin(), sizes.end(), std::greater<>());
    const std::vector<Bytes>& s = suffix_[p];
    Bytes total = 0;
    for (std::size_t j = 0; j < std::max(sizes.size(), s.size()); ++j)
      total += std::max(j < sizes.size() ? sizes[j] : 0, j < s.size() ? s[j] : 0);
    return total;
  }

  // Another bound, per step t from record p's first step on: the records not yet placed
  // that are alive at t need distinct objects, none of them an object still busy at t. So
  // the total is at least the busy objects' sizes plus the free objects' sizes matched,
  // sorted against sorted, with those records (sorted matching minimises a sum of maximums).
  // Checked at the first few distinct first steps, where objects are still busy.
  Bytes BusyBound(std::size_t p) const {
    constexpr std::size_t kSteps = 6;
    Bytes best = 0;
    std::size_t steps = 0;
    std::vector<Bytes> free_sizes, alive;
    for (std::size_t q = p; q < records_.size() && steps < kSteps; ++q) {
      if (q > p && records_[q].first == records_[q - 1].first) continue;
      const Step t = records_[q].first;
      Bytes total = 0;
      bool any_busy = false;
      free_sizes.clear();
      for (const Object& o : objects_) {
        if (o.busy_until >= t) {
          total += o.size;
          any_busy = true;
        } else {
          free_sizes.push_back(o.size);
        }
      }
      if (!any_busy) break;  // from here on Bound() already covers every step
      ++steps;
      alive.clear();
      for (std::size_t r = p; r < records_.size() && records_[r].first <= t; ++r)
        if (records_[r].last >= t) alive.push_back(records_[r].size);
      std::sort(free_sizes.begin(), free_sizes.end(), std::greater<>());
      std::sort(alive.begin(), alive.end(), std::greater<>());
      for (std::size_t j = 0; j < std::max(free_sizes.size(), alive.size()); ++j)
        total +=
            std::max(j < free_sizes.size() ? free_sizes[j] : 0, j < alive.size() ? alive[j] : 0);
      best = std::max(best, total);
    }
    return best;
  }

  void Visit(std::size_t p) {
    if (aborted_) return;
    if (++nodes_ > max_nodes_) {
      aborted_ = true;
      return;
    }
    if (Bound(p) >= best_) return;
    if (p < records_.size() && BusyBound(p) >= best_) return;
    if (p == records_.size()) {  // the bound is the total here, and below the best
      best_ = Bound(p);
      best_ids_ = assign_;
      return;
    }
    const UsageRecord& r = records_[p];
    std::vector<std::pair<Bytes, Step>> key;
    for (const Object& o : objects_)
      key.emplace_back(o.size, o.busy_until >= r.first ? o.busy_until : kFree);
    std::sort(key.begin(), key.end());
    if (!seen_[p].insert(std::move(key)).second) return;

    // Free objects, one per size, least growth first; then a new object.
    std::vector<std::size_t> options;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      if (objects_[i].busy_until >= r.first) continue;
      bool dup = false;
      for (std::size_t j : options) dup |= objects_[j].size == objects_[i].size;
      if (!dup) options.push_back(i);
    }
    auto growth = [&](std::size_t i) {
      return std::max(objects_[i].size, r.size) - objects_[i].size;
    };
    std::stable_sort(options.begin(), options.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(growth(a), objects_[a].size) < std::pair(growth(b), objects_[b].size);
    });
    for (std::size_t i : options) {
      const Object saved = objects_[i];
      objects_[i] = {std::max(saved.size, r.size), r.last};
      assign_[p] = i;
      Visit(p + 1);
      objects_[i] = saved;
    }
    objects_.push_back({r.size, r.last});
    assign_[p] = objects_.size() - 1;
    Visit(p + 1);
    objects_.pop_back();
  }

  std::vector<std::size_t> order_;
  std::vector<UsageRecord> records_;  // in step order
  std::vector<std::vector<Bytes>> suffix_;
  Bytes best_;
  std::uint64_t max_nodes_;
  std::uint64_t nodes_ = 0;
  bool aborted_ = false;
  std::vector<std::set<std::vector<std::pair<Bytes, Step>>>> seen_;
  std::vector<Object> objects_;
  std::vector<ObjectId> assign_;    // assign_[p]: the object of record p (step order)
  std::vector<ObjectId> best_ids_;  // assign_ of the best plan found, step order
};

}  // namespace

MinTotalResult SearchMinimumTotal(const std::vector<UsageRecord>& records, Bytes upper,
                                  std::uint64_t max_nodes) {
  return Search(records, upper, max_nodes).Run();
}

}  // namespace memplan::objects
