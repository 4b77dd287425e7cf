// objects/greedy_by_size: TensorFlow Lite GPU's GREEDY_BY_SIZE for objects, the
// distance-priority variant of Pisarchyk & Lee's "greedy by size". Records are ranked
// by the positional maximum their size falls under; within a rank, the record closest
// in time to an object it can join goes first, then the larger record, then the lower
// index. That record joins its nearest object (growing it), else starts a new one.
// Records are numbered in step order first (stable by first step), as TensorFlow Lite's
// callers number them, so index ties follow that order.
//
// TensorFlow Lite keeps, for every unassigned record, its distance to every object and
// updates them all after each choice. memplan keeps only each record's best (distance,
// object) and touches, after a choice, only the records whose best changes
// (docs/scale.md):
// - those the chosen record is strictly nearer to and that fit its object: they lie in
//   the object's free gap beside it, found in a 2-d tree over the open records
//   (open_record_tree.h);
// - those whose best object it was and that it now conflicts with: each object lists
//   the records whose best it is; they find their nearest object again in an index of
//   the objects' free gaps (free_gap_index.h), the lowest id among the nearest;
// and takes the next record of a rank from a heap that learns of every change to the
// rank's records. The choices, ties included, are those of the plain algorithm
// (tests/objects_greedy_by_size_reference.cc).
#include <algorithm>
#include <limits>
#include <optional>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "src/objects/free_gap_index.h"
#include "src/objects/open_record_tree.h"
#include "src/objects/sweep.h"

namespace memplan {

using namespace objects;

namespace {

// A distance in steps between two records that do not conflict (>= 1); kFar stands for
// "no object".
using Distance = std::uint64_t;
constexpr Distance kFar = OpenRecordTree::kNoObject;
constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();
constexpr std::size_t kEnd = std::numeric_limits<std::size_t>::max();

// The records of one object, sorted by first step (pairwise disjoint).
class SizeObject {
 public:
  Bytes size = 0;

  // The members (record indices) that r would sit between, nullopt at either end.
  std::pair<std::optional<std::size_t>, std::optional<std::size_t>> Neighbours(
      const UsageRecord& r) const {
    const auto at = static_cast<std::size_t>(InsertionPoint(r) - firsts_.begin());
    std::optional<std::size_t> before, after;
    if (at > 0) before = indices_[at - 1];
    if (at < indices_.size()) after = indices_[at];
    return {before, after};
  }

  void Add(const UsageRecord& r, std::size_t index) {
    const auto at = InsertionPoint(r) - firsts_.begin();
    firsts_.insert(firsts_.begin() + at, r.first);
    indices_.insert(indices_.begin() + at, index);
    size = std::max(size, r.size);
  }

 private:
  std::vector<Step>::const_iterator InsertionPoint(const UsageRecord& r) const {
    return std::lower_bound(firsts_.begin(), firsts_.end(), r.first);
  }

  std::vector<Step> firsts_;          // the members' first steps
  std::vector<std::size_t> indices_;  // the members' record indices, in the same order
};

// Each unassigned record's best (distance, object), and per object the records whose
// best it is (intrusive doubly linked lists, so a change of best costs O(1)).
class Bests {
 public:
  explicit Bests(std::size_t records)
      : distance(records, kFar),
        object(records, kNone),
        prev_(records, kEnd),
        next_(records, kEnd) {}

  std::vector<Distance> distance;
  std::vector<ObjectId> object;

  void Set(std::size_t r, Distance d, ObjectId o) {
    distance[r] = d;
    if (object[r] == o) return;
    Unlink(r);
    object[r] = o;
    if (o == kNone) return;
    if (o >= head_.size()) head_.resize(o + 1, kEnd);
    next_[r] = head_[o];
    prev_[r] = kEnd;
    if (head_[o] != kEnd) prev_[head_[o]] = r;
    head_[o] = r;
  }

  // Record r was assigned.
  void Remove(std::size_t r) { Set(r, kFar, kNone); }

  // Calls f(r) for every record whose best is o (f must not change any best).
  template <class F>
  void ForEachOf(ObjectId o, F&& f) const {
    if (o >= head_.size()) return;
    for (std::size_t r = head_[o]; r != kEnd; r = next_[r]) f(r);
  }

 private:
  void Unlink(std::size_t r) {
    if (object[r] == kNone) return;
    if (prev_[r] != kEnd)
      next_[prev_[r]] = next_[r];
    else
      head_[object[r]] = next_[r];
    if (next_[r] != kEnd) prev_[next_[r]] = prev_[r];
  }

  std::vector<std::size_t> head_;  // object -> first record whose best it is
  std::vector<std::size_t> prev_, next_;
};

// The records of the rank being served, in the order they go: nearer best object, larger
// size, lower index. A heap whose entries are added on every change of a record's
// distance; outdated ones are dropped when they come up. When a choice changes many of
// the rank's records (a long chain joining one object), the next record is found by one
// pass over the rank instead and the heap is made again only when changes are few again,
// so a change costs O(1) and the heap stays as large as the rank.
class RankQueue {
 public:
  RankQueue(std::vector<std::size_t> members, const std::vector<UsageRecord>& records,
            const Bests& bests, const std::vector<ObjectId>& ids)
      : members_(std::move(members)), records_(records), bests_(bests), ids_(ids) {}

  // Record r (of this rank) has a new distance.
  void Changed(std::size_t r) {
    ++changes_;
    if (heap_valid_) changed_.push_back(r);
  }

  // The record that goes next, or nullopt when the rank is done.
  std::optional<std::size_t> Next() {
    const bool many = changes_ > members_.size() / 8 + 16;
    changes_ = 0;
    if (many) {
      heap_valid_ = false;
      changed_.clear();
      return Scan();
    }
    if (!heap_valid_) Rebuild();
    for (std::size_t r : changed_) Push(r);
    changed_.clear();
    while (!heap_.empty()) {
      const Entry top = heap_.front();
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.pop_back();
      if (!Assigned(top.record) && bests_.distance[top.record] == top.distance) return top.record;
    }
    return std::nullopt;
  }

 private:
  struct Entry {
    Distance distance;
    Bytes size;
    std::size_t record;
    // The heap serves its largest entry: the one that goes first is largest.
    bool operator<(const Entry& o) const {
      if (distance != o.distance) return distance > o.distance;
      if (size != o.size) return size < o.size;
      return record > o.record;
    }
  };

  bool Assigned(std::size_t r) const { return ids_[r] != kNone; }

  void Push(std::size_t r) {
    heap_.push_back({bests_.distance[r], records_[r].size, r});
    std::push_heap(heap_.begin(), heap_.end());
  }

  void Rebuild() {
    std::erase_if(members_, [&](std::size_t r) { return Assigned(r); });
    heap_.clear();
    for (std::size_t r : members_) heap_.push_back({bests_.distance[r], records_[r].size, r});
    std::make_heap(heap_.begin(), heap_.end());
    heap_valid_ = true;
  }

  // The first record left by one pass (no heap).
  std::optional<std::size_t> Scan() {
    std::erase_if(members_, [&](std::size_t r) { return Assigned(r); });
    if (members_.empty()) return std::nullopt;
    Entry first{bests_.distance[members_[0]], records_[members_[0]].size, members_[0]};
    for (std::size_t r : members_) {
      const Entry e{bests_.distance[r], records_[r].size, r};
      if (first < e) first = e;
    }
    return first.record;
  }

  std::vector<std::size_t> members_;  // the rank's records (some may be assigned since)
  const std::vector<UsageRecord>& records_;
  const Bests& bests_;
  const std::vector<ObjectId>& ids_;  // the records' objects so far (kNone: open)
  std::vector<Entry> heap_;
  bool heap_valid_ = false;
  std::size_t changes_ = 0;           // changes since the last choice
  std::vector<std::size_t> changed_;  // those records, while the heap is kept
};

}  // namespace

ObjectPlan PlanObjectsGreedyBySize(const Problem& problem) {
  const auto [order, records] = AlignedInSweepOrder(problem);
  const std::vector<Bytes> pm = PositionalMaximums(records);
  // Records by rank (the index of the last positional maximum >= their size): a lower
  // rank always goes first.
  std::vector<std::vector<std::size_t>> ranks(pm.size());
  std::vector<std::size_t> rank_of(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    // pm is non-increasing and pm[0] is the largest size, so the count is >= 1.
    const auto count = static_cast<std::size_t>(
        std::upper_bound(pm.begin(), pm.end(), records[i].size, std::greater<>()) - pm.begin());
    if (count == 0) throw InternalError("Variable pos must be positive.");
    rank_of[i] = count - 1;
    ranks[count - 1].push_back(i);
  }
  std::vector<ObjectId> ids(records.size(), kNone);
  std::vector<SizeObject> objects;
  Bests bests(records.size());
  FreeGapIndex gaps(records);
  OpenRecordTree open(records);
  std::vector<std::size_t> changed;  // scratch
  for (std::size_t current = 0; current < ranks.size(); ++current) {
    RankQueue queue(std::move(ranks[current]), records, bests, ids);
    auto set_best = [&](std::size_t q, Distance d, ObjectId o) {
      const bool moved = d != bests.distance[q];
      bests.Set(q, d, o);
      if (!moved) return;
      open.SetDistance(q, d);
      if (rank_of[q] == current) queue.Changed(q);
    };
    while (const std::optional<std::size_t> next = queue.Next()) {
      const std::size_t chosen_index = *next;
      const UsageRecord& chosen = records[chosen_index];
      const bool new_object = bests.object[chosen_index] == kNone;
      const ObjectId object = new_object ? objects.size() : bests.object[chosen_index];
      if (new_object) objects.emplace_back();
      ids[chosen_index] = object;
      bests.Remove(chosen_index);
      open.Close(chosen_index);

      // The chosen record splits the object's free gap between `before` and `after`.
      const auto [before, after] = objects[object].Neighbours(chosen);
      gaps.Place(chosen_index, object, before, after);
      objects[object].Add(chosen, chosen_index);

      // Records whose best object was this one and that conflict with `chosen` take the
      // nearest object that still fits them (not this one: they conflict with it now).
      changed.clear();
      bests.ForEachOf(object, [&](std::size_t q) {
        if (Conflicts(records[q], chosen)) changed.push_back(q);
      });
      for (std::size_t q : changed) {
        const auto nearest = gaps.Nearest(q);
        set_best(q, nearest ? nearest->first : kFar, nearest ? nearest->second : kNone);
      }
      // Records in the gap on either side of `chosen` that are strictly nearer to it than
      // to their best object take this one.
      changed.clear();
      open.NearerBefore(before ? records[*before].last : -1, chosen.first, changed);
      open.NearerAfter(chosen.last,
                       after ? records[*after].first : std::numeric_limits<Step>::max(), changed);
      for (std::size_t q : changed) {
        const UsageRecord& r = records[q];
        set_best(q,
                 static_cast<Distance>(r.last < chosen.first ? chosen.first - r.last
                                                             : r.first - chosen.last),
                 object);
      }
    }
  }
  std::vector<Bytes> sizes;
  for (const SizeObject& o : objects) sizes.push_back(o.size);
  return MakeObjectPlan("greedy_by_size", BackToRecordOrder(ids, order), std::move(sizes));
}

}  // namespace memplan
