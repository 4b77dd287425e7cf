// objects/greedy_by_breadth: TensorFlow Lite GPU's GREEDY_BY_BREADTH. Steps are visited
// busiest first (largest live total; ties by earlier step); within a step its live
// records largest first. Each unassigned record goes to the smallest object at least
// its size, else the largest smaller one, among the objects it does not conflict with
// (ties: lowest id); the object grows to fit. Without one, a new object. Records are
// numbered in step order first (stable by first step), as TensorFlow Lite's callers
// number them, so ties between equal sizes follow that order.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "src/objects/sweep.h"

namespace memplan {

using namespace objects;

namespace {

// An object and the intervals of its records.
struct BreadthObject {
  Bytes size = 0;                // largest record so far
  std::map<Step, Step> members;  // first -> last of each record; pairwise disjoint

  bool Fits(const UsageRecord& r) const {
    const auto next = members.lower_bound(r.first);
    if (next != members.end() && next->first <= r.last) return false;
    if (next != members.begin() && std::prev(next)->second >= r.first) return false;
    return true;
  }
};

// The objects by (size, id), asked in the order of TensorFlow Lite's preference for a
// record of size s: the smallest object of at least s (lowest id on ties), else the
// largest smaller one (lowest id on ties). The first that the record fits is the one a
// scan over every object would choose, and the scan stops there instead of reading
// every object.
class ByPreference {
 public:
  static constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();

  void Add(ObjectId o) { order_.insert({0, o}); }
  void Grow(ObjectId o, Bytes from, Bytes to) {
    if (from == to) return;
    order_.erase({from, o});
    order_.insert({to, o});
  }

  ObjectId Choose(const UsageRecord& r, const std::vector<BreadthObject>& objects) const {
    // At least r.size, smallest first, then lower id: the set's own order.
    for (auto it = order_.lower_bound({r.size, 0}); it != order_.end(); ++it)
      if (objects[it->second].Fits(r)) return it->second;
    // Smaller: largest size first, and within one size the lowest id.
    auto group_end = order_.lower_bound({r.size, 0});
    while (group_end != order_.begin()) {
      const Bytes size = std::prev(group_end)->first;
      const auto group_begin = order_.lower_bound({size, 0});
      for (auto it = group_begin; it != group_end; ++it)
        if (objects[it->second].Fits(r)) return it->second;
      group_end = group_begin;
    }
    return kNone;
  }

 private:
  std::set<std::pair<Bytes, ObjectId>> order_;  // (size, id) of every object
};

// The records not yet given an object, found by a segment they are live in: a segment
// tree over the segments (in step order) whose nodes list the records covering them.
// A query drops from the lists it reads the records given an object since, so each
// record leaves each of its O(log segments) lists once: memory O(n log n), not the
// Σ of live records over all segments that stored profiles take (1.5 GB on a
// 62,185-record compiler trace, docs/scale.md).
class Unassigned {
 public:
  Unassigned(const std::vector<UsageRecord>& records, const std::vector<Segment>& segments) {
    while (leaves_ < segments.size()) leaves_ *= 2;
    lists_.resize(2 * leaves_);
    std::vector<Step> begins;
    for (const Segment& s : segments) begins.push_back(s.begin);
    for (std::size_t i = 0; i < records.size(); ++i) {
      // The segments a record is live in: from the one it starts (a segment starts at every
      // first step) to the last starting at or before its last step.
      const auto lo = static_cast<std::size_t>(
          std::lower_bound(begins.begin(), begins.end(), records[i].first) - begins.begin());
      const auto hi = static_cast<std::size_t>(
          std::upper_bound(begins.begin(), begins.end(), records[i].last) - begins.begin());
      if (lo < hi) Add(1, 0, leaves_ - 1, lo, hi - 1, i);
    }
  }

  // The records live in segment `segment` that `ids` has no object for yet.
  void LiveIn(std::size_t segment, const std::vector<ObjectId>& ids, ObjectId none,
              std::vector<std::size_t>& out) {
    out.clear();
    std::size_t node = 1, lo = 0, hi = leaves_ - 1;
    while (true) {
      std::vector<std::size_t>& list = lists_[node];
      std::erase_if(list, [&](std::size_t i) { return ids[i] != none; });
      out.insert(out.end(), list.begin(), list.end());
      if (lo == hi) return;
      const std::size_t mid = lo + (hi - lo) / 2;
      if (segment <= mid) {
        node = 2 * node;
        hi = mid;
      } else {
        node = 2 * node + 1;
        lo = mid + 1;
      }
    }
  }

 private:
  void Add(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from, std::size_t to,
           std::size_t record) {
    if (to < lo || hi < from) return;
    if (from <= lo && hi <= to) {
      lists_[node].push_back(record);
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    Add(2 * node, lo, mid, from, to, record);
    Add(2 * node + 1, mid + 1, hi, from, to, record);
  }
  std::size_t leaves_ = 1;
  std::vector<std::vector<std::size_t>> lists_;
};

}  // namespace

ObjectPlan PlanObjectsGreedyByBreadth(const Problem& problem) {
  const auto [order, records] = AlignedInSweepOrder(problem);
  const std::vector<Segment> segments = LiveSegments(records);
  // Every step of a segment has the segment's breadth and live records, and a segment's
  // steps are contiguous, so visiting segments by (breadth desc, first step) visits the
  // records exactly as visiting every step by (breadth desc, step) would.
  std::vector<std::size_t> visit(segments.size());
  for (std::size_t k = 0; k < visit.size(); ++k) visit[k] = k;
  std::stable_sort(visit.begin(), visit.end(), [&](std::size_t a, std::size_t b) {
    return segments[a].breadth > segments[b].breadth;
  });
  constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();
  std::vector<ObjectId> ids(records.size(), kNone);
  std::vector<BreadthObject> objects;
  Unassigned unassigned(records, segments);
  std::vector<std::size_t> profile;  // a segment's unassigned records, largest first
  ByPreference preference;
  for (std::size_t segment : visit) {
    unassigned.LiveIn(segment, ids, kNone, profile);
    // TensorFlow Lite's task profile order: size non-increasing, then record index.
    std::sort(profile.begin(), profile.end(), [&](std::size_t a, std::size_t b) {
      return records[a].size != records[b].size ? records[a].size > records[b].size : a < b;
    });
    for (std::size_t i : profile) {
      if (ids[i] != kNone) continue;
      const UsageRecord& r = records[i];
      ObjectId best = preference.Choose(r, objects);
      if (best == kNone) {
        best = objects.size();
        objects.emplace_back();
        preference.Add(best);
      }
      const Bytes grown = std::max(objects[best].size, r.size);
      preference.Grow(best, objects[best].size, grown);
      objects[best].size = grown;
      objects[best].members.emplace(r.first, r.last);
      ids[i] = best;
    }
  }
  std::vector<Bytes> sizes;
  for (const BreadthObject& o : objects) sizes.push_back(o.size);
  return MakeObjectPlan("greedy_by_breadth", BackToRecordOrder(ids, order), std::move(sizes));
}

}  // namespace memplan
