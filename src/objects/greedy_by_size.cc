// objects/greedy_by_size: TensorFlow Lite GPU's GREEDY_BY_SIZE for objects, the
// distance-priority variant of Pisarchyk & Lee's "greedy by size". Records are ranked
// by the positional maximum their size falls under; within a rank, the record closest
// in time to an object it can join goes first, then the larger record, then the lower
// index. That record joins its nearest object (growing it), else starts a new one.
// O(n² + n·k) time, O(n·k) memory for k objects.
#include <algorithm>
#include <limits>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "src/objects/sweep.h"

namespace memplan {

using namespace objects_internal;

namespace {

// A distance in steps; kFar also marks "conflicts" (no usable distance).
using Distance = std::uint64_t;
constexpr Distance kFar = std::numeric_limits<Distance>::max();
constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();

// What the strategy knows about one unassigned record.
struct Candidate {
  std::size_t index = 0;         // the record
  std::size_t position = 0;      // index of the last positional maximum >= its size
  Bytes size = 0;                // its size
  Step first = 0;                // its first step
  Step last = 0;                 // its last step
  Distance best_dist = kFar;     // smallest distance to a usable object
  ObjectId best_object = kNone;  // the object at that distance
  std::vector<Distance> dist;    // per object: smallest gap to its records, or kFar

  // Higher priority: smaller position, then nearer object, then larger size, then index.
  bool Before(const Candidate& o) const {
    if (position != o.position) return position < o.position;
    if (best_dist != o.best_dist) return best_dist < o.best_dist;
    if (size != o.size) return size > o.size;
    return index < o.index;
  }
};

}  // namespace

ObjectPlan PlanObjectsGreedyBySize(const Problem& problem) {
  const std::vector<UsageRecord> records = AlignedRecords(problem);
  const std::vector<Bytes> pm = PositionalMaximums(records);
  std::vector<Candidate> open;
  open.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const UsageRecord& r = records[i];
    // pm is non-increasing and pm[0] is the largest size, so the count is >= 1.
    const auto count = static_cast<std::size_t>(
        std::upper_bound(pm.begin(), pm.end(), r.size, std::greater<>()) - pm.begin());
    if (count == 0) throw InternalError("Variable pos must be positive.");
    open.push_back({i, count - 1, r.size, r.first, r.last, kFar, kNone, {}});
  }
  std::vector<ObjectId> ids(records.size(), kNone);
  std::vector<Bytes> sizes;
  while (!open.empty()) {
    std::size_t pick = 0;
    for (std::size_t c = 1; c < open.size(); ++c)
      if (open[c].Before(open[pick])) pick = c;
    const Candidate chosen = std::move(open[pick]);
    open[pick] = std::move(open.back());
    open.pop_back();

    const bool new_object = chosen.best_object == kNone;
    const ObjectId object = new_object ? sizes.size() : chosen.best_object;
    if (new_object)
      sizes.push_back(chosen.size);
    else
      sizes[object] = std::max(sizes[object], chosen.size);
    ids[chosen.index] = object;

    for (Candidate& q : open) {
      Distance d = kFar;
      if (q.last < chosen.first)
        d = static_cast<Distance>(chosen.first - q.last);
      else if (chosen.last < q.first)
        d = static_cast<Distance>(q.first - chosen.last);
      if (new_object) {
        q.dist.push_back(d);
      } else {
        Distance& known = q.dist[object];
        if (known == kFar) continue;  // already conflicts with this object
        if (d == kFar) {
          known = kFar;
          if (q.best_object == object) {
            q.best_dist = kFar;
            q.best_object = kNone;
            for (ObjectId o = 0; o < q.dist.size(); ++o)
              if (q.dist[o] < q.best_dist) {
                q.best_dist = q.dist[o];
                q.best_object = o;
              }
          }
        } else {
          known = std::min(known, d);
        }
      }
      if (d < q.best_dist) {
        q.best_dist = d;
        q.best_object = object;
      }
    }
  }
  return MakeObjectPlan("greedy_by_size", std::move(ids), std::move(sizes));
}

}  // namespace memplan
