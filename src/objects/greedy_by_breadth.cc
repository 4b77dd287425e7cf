// objects/greedy_by_breadth: TensorFlow Lite GPU's GREEDY_BY_BREADTH. Steps are visited
// busiest first (largest live total; ties by earlier step); within a step its live
// records largest first. Each unassigned record goes to the smallest object at least
// its size, else the largest smaller one, among the objects it does not conflict with
// (ties: lowest id); the object grows to fit. Without one, a new object. Records are
// numbered in step order first (stable by first step), as TensorFlow Lite's callers
// number them, so ties between equal sizes follow that order.
#include <map>
#include <optional>

#include "src/objects/sweep.h"

namespace memplan {

using namespace objects_internal;

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

}  // namespace

ObjectPlan PlanObjectsGreedyByBreadth(const Problem& problem) {
  const std::vector<UsageRecord> unsorted = AlignedRecords(problem);
  const std::vector<std::size_t> order = SweepOrder(unsorted);
  const std::vector<UsageRecord> records = InOrder(unsorted, order);
  std::vector<Segment> segments = LiveSegments(records);
  // Every step of a segment has the segment's breadth and profile, and a segment's steps
  // are contiguous, so ordering segments by (breadth desc, first step) visits the records
  // exactly as visiting every step by (breadth desc, step) would.
  std::stable_sort(segments.begin(), segments.end(),
                   [](const Segment& a, const Segment& b) { return a.breadth > b.breadth; });
  constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();
  std::vector<ObjectId> ids(records.size(), kNone);
  std::vector<BreadthObject> objects;
  for (const Segment& segment : segments) {
    for (std::size_t i : segment.profile) {
      if (ids[i] != kNone) continue;
      const UsageRecord& r = records[i];
      ObjectId best = kNone;
      for (ObjectId o = 0; o < objects.size(); ++o) {
        const Bytes size = objects[o].size;
        if (best != kNone) {
          const Bytes best_size = objects[best].size;
          // Prefer the smallest object that fits the size, else the largest smaller one.
          if (best_size < r.size ? size <= best_size : (size < r.size || size >= best_size))
            continue;
        }
        if (objects[o].Fits(r)) best = o;
      }
      if (best == kNone) {
        best = objects.size();
        objects.emplace_back();
      }
      objects[best].size = std::max(objects[best].size, r.size);
      objects[best].members.emplace(r.first, r.last);
      ids[i] = best;
    }
  }
  std::vector<Bytes> sizes;
  for (const BreadthObject& o : objects) sizes.push_back(o.size);
  return MakeObjectPlan("greedy_by_breadth", BackToRecordOrder(ids, order), std::move(sizes));
}

}  // namespace memplan
