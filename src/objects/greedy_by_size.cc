// objects/greedy_by_size: TensorFlow Lite GPU's GREEDY_BY_SIZE for objects, the
// distance-priority variant of Pisarchyk & Lee's "greedy by size". Records are ranked
// by the positional maximum their size falls under; within a rank, the record closest
// in time to an object it can join goes first, then the larger record, then the lower
// index. That record joins its nearest object (growing it), else starts a new one.
// Records are numbered in step order first (stable by first step), as TensorFlow Lite's
// callers number them, so index ties follow that order.
//
// TensorFlow Lite keeps, for every unassigned record, its distance to every object.
// memplan keeps only each record's best (distance, object), computes a distance to one
// object from the object's records (sorted by step) when it needs one, and finds a
// record's nearest object again, when its best one stops fitting, in an index of the
// objects' free gaps (free_gap_index.h) rather than by asking every object; the choices
// are the same. O(n² + n·u·log n) time, with u the updates a placement causes (small
// beside n in practice), O(n) memory.
#include <algorithm>
#include <limits>
#include <optional>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "src/objects/free_gap_index.h"
#include "src/objects/sweep.h"

namespace memplan {

using namespace objects_internal;

namespace {

// A distance in steps between two records that do not conflict (>= 1); kFar also
// stands for "conflicts" and "no object".
using Distance = std::uint64_t;
constexpr Distance kFar = std::numeric_limits<Distance>::max();
constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();

Distance Gap(const UsageRecord& a, const UsageRecord& b) {
  if (a.last < b.first) return static_cast<Distance>(b.first - a.last);
  if (b.last < a.first) return static_cast<Distance>(a.first - b.last);
  return kFar;
}

// The records of one object, sorted by first step (pairwise disjoint).
class SizeObject {
 public:
  Bytes size = 0;
  std::vector<UsageRecord> members;
  std::vector<std::size_t> indices;  // the members' record indices, in the same order

  // The smallest gap between r and a member, or kFar if r conflicts with one.
  Distance DistanceTo(const UsageRecord& r) const {
    const auto next =
        std::lower_bound(members.begin(), members.end(), r.first,
                         [](const UsageRecord& m, Step first) { return m.first < first; });
    Distance best = kFar;
    if (next != members.end()) {
      const Distance d = Gap(*next, r);
      if (d == kFar) return kFar;
      best = d;
    }
    if (next != members.begin()) {
      const Distance d = Gap(*std::prev(next), r);
      if (d == kFar) return kFar;
      best = std::min(best, d);
    }
    return best;
  }

  // The members (record indices) that r would sit between, nullopt at either end.
  std::pair<std::optional<std::size_t>, std::optional<std::size_t>> Neighbours(
      const UsageRecord& r) const {
    const auto at = static_cast<std::size_t>(InsertionPoint(r) - members.begin());
    std::optional<std::size_t> before, after;
    if (at > 0) before = indices[at - 1];
    if (at < indices.size()) after = indices[at];
    return {before, after};
  }

  void Add(const UsageRecord& r, std::size_t index) {
    const auto at = InsertionPoint(r) - members.begin();
    members.insert(members.begin() + at, r);
    indices.insert(indices.begin() + at, index);
    size = std::max(size, r.size);
  }

 private:
  std::vector<UsageRecord>::const_iterator InsertionPoint(const UsageRecord& r) const {
    return std::lower_bound(members.begin(), members.end(), r.first,
                            [](const UsageRecord& m, Step first) { return m.first < first; });
  }
};

// The unassigned records of one position (the index of the last positional maximum
// >= their size), one array per field so the scans stay in cache; removal swaps the
// last entry in (the priority order does not depend on array positions).
struct Open {
  std::vector<std::size_t> index;     // record index
  std::vector<Bytes> size;            // record size
  std::vector<Step> first, last;      // record interval
  std::vector<Distance> best_dist;    // distance to the best usable object, or kFar
  std::vector<ObjectId> best_object;  // that object, or kNone

  std::size_t Count() const { return index.size(); }

  // Whether entry a goes before entry b (same position): nearer object, larger size,
  // lower index.
  bool Before(std::size_t a, std::size_t b) const {
    if (best_dist[a] != best_dist[b]) return best_dist[a] < best_dist[b];
    if (size[a] != size[b]) return size[a] > size[b];
    return index[a] < index[b];
  }

  void Remove(std::size_t e) {
    const std::size_t back = index.size() - 1;
    index[e] = index[back];
    size[e] = size[back];
    first[e] = first[back];
    last[e] = last[back];
    best_dist[e] = best_dist[back];
    best_object[e] = best_object[back];
    index.pop_back();
    size.pop_back();
    first.pop_back();
    last.pop_back();
    best_dist.pop_back();
    best_object.pop_back();
  }
};

// Updates every record of `open` after `chosen` joined `object` (new_object: it was
// just created): TensorFlow Lite's bookkeeping of each record's nearest usable object.
void Update(Open& open, const std::vector<UsageRecord>& records,
            const std::vector<SizeObject>& objects, const FreeGapIndex& gaps,
            const UsageRecord& chosen, ObjectId object, bool new_object) {
  for (std::size_t e = 0; e < open.Count(); ++e) {
    // The gap to `chosen`; only a conflict or a new nearest object changes anything.
    const Step after = open.first[e] - chosen.last, before = chosen.first - open.last[e];
    const Step gap = std::max(after, before);
    if (gap > 0 && static_cast<Distance>(gap) >= open.best_dist[e]) continue;
    const UsageRecord& q = records[open.index[e]];
    const Distance d = gap > 0 ? static_cast<Distance>(gap) : kFar;
    if (d == kFar) {
      // q can no longer join this object; if it was q's best, find the next best
      // (lowest id among the nearest).
      if (open.best_object[e] != object) continue;
      // `chosen` is already in the index, so `object` no longer has a gap q fits in.
      const auto nearest = gaps.Nearest(q);
      open.best_dist[e] = nearest ? nearest->first : kFar;
      open.best_object[e] = nearest ? nearest->second : kNone;
    } else if (d < open.best_dist[e] && (new_object || objects[object].DistanceTo(q) != kFar)) {
      // A nearer usable object (one q conflicts with through another record is not).
      open.best_dist[e] = d;
      open.best_object[e] = object;
    }
  }
}

}  // namespace

ObjectPlan PlanObjectsGreedyBySize(const Problem& problem) {
  const std::vector<UsageRecord> unsorted = AlignedRecords(problem);
  const std::vector<std::size_t> order = SweepOrder(unsorted);
  const std::vector<UsageRecord> records = InOrder(unsorted, order);
  const std::vector<Bytes> pm = PositionalMaximums(records);
  // Records by position: a smaller position always goes first, so only the lowest
  // non-empty group is searched for the next record; every group is updated.
  std::vector<Open> groups(pm.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    // pm is non-increasing and pm[0] is the largest size, so the count is >= 1.
    const auto count = static_cast<std::size_t>(
        std::upper_bound(pm.begin(), pm.end(), records[i].size, std::greater<>()) - pm.begin());
    if (count == 0) throw InternalError("Variable pos must be positive.");
    Open& open = groups[count - 1];
    open.index.push_back(i);
    open.size.push_back(records[i].size);
    open.first.push_back(records[i].first);
    open.last.push_back(records[i].last);
    open.best_dist.push_back(kFar);
    open.best_object.push_back(kNone);
  }
  std::vector<ObjectId> ids(records.size(), kNone);
  std::vector<SizeObject> objects;
  FreeGapIndex gaps(records);
  for (std::size_t current = 0; current < groups.size();) {
    Open& group = groups[current];
    if (group.Count() == 0) {
      ++current;
      continue;
    }
    std::size_t pick = 0;
    for (std::size_t e = 1; e < group.Count(); ++e)
      if (group.Before(e, pick)) pick = e;
    const UsageRecord& chosen = records[group.index[pick]];
    const bool new_object = group.best_object[pick] == kNone;
    const ObjectId object = new_object ? objects.size() : group.best_object[pick];
    if (new_object) objects.emplace_back();
    const std::size_t chosen_index = group.index[pick];
    ids[chosen_index] = object;
    group.Remove(pick);

    // The index learns of `chosen` first (the objects only after the updates, whose
    // conflict tests must see `object` without it).
    const auto [before, after] = objects[object].Neighbours(chosen);
    gaps.Place(chosen_index, object, before, after);
    for (std::size_t g = current; g < groups.size(); ++g)
      Update(groups[g], records, objects, gaps, chosen, object, new_object);
    objects[object].Add(chosen, chosen_index);
  }
  std::vector<Bytes> sizes;
  for (const SizeObject& o : objects) sizes.push_back(o.size);
  return MakeObjectPlan("greedy_by_size", BackToRecordOrder(ids, order), std::move(sizes));
}

}  // namespace memplan
