#pragma once
// The records objects/greedy_by_size has not assigned yet, as points (first, last) in a
// 2-d tree, each weighted with its distance to its best object, so that after a record
// joins an object the records it is now strictly nearest to are found without looking
// at the others (internal to src/objects; docs/scale.md).
//
// When record c joins an object between members b and a, the records that can take the
// object at distance d(c) are those inside the object's free gap beside c: left of c,
// b.last < q.first and q.last < c.first, at distance c.first - q.last; right of c,
// c.last < q.first and q.last < a.first, at distance q.first - c.last. A record takes it
// when that distance is below its best distance. A record in another gap of the object
// is nearer to a member than to c, so it never qualifies; a record that conflicts with a
// member lies in no gap. Both queries are a rectangle in (first, last) with a threshold
// on last + distance (left) or distance - first (right): every node keeps an upper bound
// of each over its open records, raised when a distance grows and tightened to the true
// maximum whenever a query passes through.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memplan/problem.h"

namespace memplan::objects {

class OpenRecordTree {
 public:
  // The distance of a record that fits no object yet.
  static constexpr std::uint64_t kNoObject = UINT64_MAX;

  // Every record open, at distance kNoObject.
  explicit OpenRecordTree(const std::vector<UsageRecord>& records);

  // Record r's distance to its best object is now `distance` (kNoObject: none).
  void SetDistance(std::size_t r, std::uint64_t distance);
  // Record r was assigned: no query reports it again.
  void Close(std::size_t r);

  // Appends to `out` the open records q with gap_start < q.first, q.last < first and
  // first - q.last < distance(q): those a record starting at `first` is strictly nearer
  // to inside a free gap that begins after gap_start.
  void NearerBefore(Step gap_start, Step first, std::vector<std::size_t>& out);
  // Appends the open records q with last < q.first, q.last < gap_end and
  // q.first - last < distance(q).
  void NearerAfter(Step last, Step gap_end, std::vector<std::size_t>& out);

 private:
  struct Node {
    Step min_first, max_first, min_last, max_last;  // bounding box of its records
    std::int64_t max_before, max_after;             // upper bounds of the weights below
    std::uint32_t begin, end;                       // its records' positions
    std::uint32_t left, right;                      // children; 0 in a leaf (0 is the root)
    std::uint32_t parent;
  };

  std::uint32_t Build(std::uint32_t begin, std::uint32_t end, std::uint32_t parent, bool by_first);
  void Raise(std::size_t position);
  template <class Prune, class Match>
  void Collect(std::uint32_t node, const Prune& prune, const Match& match,
               std::vector<std::size_t>& out);

  // By position (the tree's order): the record and its fields, and its weights
  // last + distance and distance - first (kClosed once assigned).
  std::vector<std::size_t> record_;
  std::vector<Step> first_, last_;
  std::vector<std::int64_t> before_, after_;
  std::vector<std::size_t> position_;  // record -> position
  std::vector<std::uint32_t> leaf_;    // position -> its leaf node
  std::vector<Node> nodes_;            // nodes_[0] is the root
};

}  // namespace memplan::objects
