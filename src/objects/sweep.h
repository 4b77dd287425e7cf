#pragma once
// Helpers shared by the shared-objects strategies (internal to src/objects).
#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>
#include <vector>

#include "memplan/objects.h"

namespace memplan::objects {

// The records as the strategies see them: sizes rounded up to the alignment.
inline std::vector<UsageRecord> AlignedRecords(const Problem& problem) {
  std::vector<UsageRecord> out = problem.records;
  for (UsageRecord& r : out) r.size = AlignUp(r.size, problem.alignment);
  return out;
}

// Record indices sorted stably by first step. TensorFlow Lite's sweeping strategies
// assume their input comes in this order (its callers guarantee it); memplan sorts so
// any input order is safe, and maps the results back to record indices.
template <class Record>
std::vector<std::size_t> SweepOrder(const std::vector<Record>& records) {
  std::vector<std::size_t> order(records.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return records[a].first < records[b].first;
  });
  return order;
}

// The records in sweep order, and a sweep-order result mapped back to record order.
inline std::vector<UsageRecord> InOrder(const std::vector<UsageRecord>& records,
                                        const std::vector<std::size_t>& order) {
  std::vector<UsageRecord> out;
  out.reserve(order.size());
  for (std::size_t i : order) out.push_back(records[i]);
  return out;
}

// The aligned records in sweep order, and that order (to map results back).
struct SweptRecords {
  std::vector<std::size_t> order;    // order[k]: the index of the k-th record in sweep order
  std::vector<UsageRecord> records;  // records[k]: that record, its size aligned
};
inline SweptRecords AlignedInSweepOrder(const Problem& problem) {
  const std::vector<UsageRecord> unsorted = AlignedRecords(problem);
  std::vector<std::size_t> order = SweepOrder(unsorted);
  std::vector<UsageRecord> records = InOrder(unsorted, order);
  return {std::move(order), std::move(records)};
}
inline std::vector<ObjectId> BackToRecordOrder(const std::vector<ObjectId>& sorted_ids,
                                               const std::vector<std::size_t>& order) {
  std::vector<ObjectId> ids(order.size());
  for (std::size_t p = 0; p < order.size(); ++p) ids[order[p]] = sorted_ids[p];
  return ids;
}

// Things (objects or records) in use during a sweep, each until its last step. Before a
// record starting at step t is served, every thing whose last step is < t is released,
// in order of (last step, id) ascending, the order of TensorFlow Lite's priority queue.
class InUse {
 public:
  void Hold(std::size_t id, Step last) { queue_.emplace(last, id); }

  // Calls release(id) for every thing whose last step is before `first`.
  template <class Release>
  void ReleaseBefore(Step first, Release&& release) {
    while (!queue_.empty() && queue_.top().first < first) {
      const std::size_t id = queue_.top().second;
      queue_.pop();
      release(id);
    }
  }

 private:
  // (last step, id), smallest first.
  std::priority_queue<std::pair<Step, std::size_t>, std::vector<std::pair<Step, std::size_t>>,
                      std::greater<>>
      queue_;
};

// A stretch of steps over which the set of live records does not change.
struct Segment {
  Step begin = 0;     // first step of the stretch
  Step end = 0;       // last step of the stretch (inclusive)
  Bytes breadth = 0;  // Σ sizes of the live records
};

// The segments with at least one live record, in step order. Equivalent to TensorFlow
// Lite's per-task breadths (every task of a segment has the segment's live set) without
// costing memory per step or per live record. O(n log n).
std::vector<Segment> LiveSegments(const std::vector<UsageRecord>& records);

}  // namespace memplan::objects
