#pragma once
// The free gaps of shared objects built from records placed one at a time, indexed so
// that the nearest object a record fits into is found in O(log n) rather than by
// asking every object (internal to src/objects).
//
// An object is a set of pairwise disjoint records. A record q fits into it exactly
// when q lies inside one of the object's free gaps: between two consecutive members,
// after its last member or before its first. Its distance to the object is then the
// smaller of the gap's two margins (q.first - end of the member before, start of the
// member after - q.last). So the nearest object is found with two queries:
// - the largest "member before" end below q.first whose gap reaches past q.last;
// - the smallest "member after" start above q.last whose gap begins before q.first.
// Each is a search in a segment tree over the records sorted by last (resp. first) step,
// the leaf of a placed record holding where the gap after (resp. before) it ends
// (resp. begins).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "memplan/objects.h"

namespace memplan::objects {

// A segment tree of int64 values answering "the rightmost leaf before R above x" and
// "the leftmost leaf from L on above x".
class MaxTree {
 public:
  explicit MaxTree(std::size_t leaves);
  void Set(std::size_t leaf, std::int64_t value);
  std::int64_t Get(std::size_t leaf) const { return max_[base_ + leaf]; }
  // The rightmost leaf i < end with value > x, or nullopt.
  std::optional<std::size_t> RightmostBefore(std::size_t end, std::int64_t x) const;
  // The leftmost leaf i >= begin with value > x, or nullopt.
  std::optional<std::size_t> LeftmostFrom(std::size_t begin, std::int64_t x) const;

 private:
  std::size_t base_ = 1;           // the first leaf's node (a power of two)
  std::vector<std::int64_t> max_;  // node -> largest value below it (heap layout)
};

class FreeGapIndex {
 public:
  // `records` are every record that may be placed, by index.
  explicit FreeGapIndex(const std::vector<UsageRecord>& records);

  // Record r joined `object` between its members `before` and `after` (record
  // indices; nullopt at either end of the object).
  void Place(std::size_t r, ObjectId object, std::optional<std::size_t> before,
             std::optional<std::size_t> after);

  // The nearest object record q fits into and q's distance to it (the lowest object id
  // among the nearest), or nullopt when q conflicts with every object.
  std::optional<std::pair<std::uint64_t, ObjectId>> Nearest(std::size_t q) const;

 private:
  const std::vector<UsageRecord>& records_;
  std::vector<std::size_t> by_last_;     // record indices sorted by last step
  std::vector<std::size_t> by_first_;    // record indices sorted by first step
  std::vector<Step> lasts_, firsts_;     // the steps in those orders (no indirection)
  std::vector<std::size_t> last_rank_;   // record -> its leaf in by_last_
  std::vector<std::size_t> first_rank_;  // record -> its leaf in by_first_
  // record -> how many records end before it starts, and how many start by its end (the
  // bounds of Nearest's two searches, fixed per record)
  std::vector<std::size_t> ends_before_, starts_by_end_;
  // by_last_ leaf -> the first leaf ending at the same step; by_first_ leaf -> one past
  // the last leaf starting at the same step
  std::vector<std::size_t> same_last_begin_, same_first_end_;
  std::vector<ObjectId> object_of_;  // record -> its object once placed
  MaxTree gap_end_after_;            // by_last_ leaf: where the free gap after it ends
  MaxTree gap_start_before_;         // by_first_ leaf: minus where the gap before it starts
};

}  // namespace memplan::objects
