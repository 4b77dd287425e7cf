#pragma once
// Exact minimum total of a shared-objects plan, for small problems (internal; used by
// tests to prove objects/best optimal where it stays above the objects lower bound).
#include <cstdint>
#include <vector>

#include "memplan/objects.h"

namespace memplan::objects {

struct MinTotalResult {
  // The search ran to the end: no plan totals less than `total`. With `object_ids`
  // empty, `total` is the upper bound given and no plan below it exists.
  bool complete = false;
  Bytes total = 0;                   // the smallest total found, or the upper bound
  std::vector<ObjectId> object_ids;  // a plan of `total` below the upper bound, if found
  std::uint64_t nodes = 0;           // search nodes visited
};

// Branch and bound over the records in step order: each record joins a free object (one
// per distinct size: free objects of equal size are interchangeable) or opens a new one.
// Searches only plans totalling less than `upper` and stops, incomplete, after
// `max_nodes` nodes. Exact because every pruning rule is:
//  - bound: the final sizes, sorted, are at least the current sizes, sorted (objects only
//    grow, new ones only add), and at least the positional maximums of the steps still
//    to come (the records alive at one step need distinct objects as large as they are);
//    so Σ_j max(current_j, suffix maximum_j) never exceeds the final total;
//  - memo: before record p, what can still happen depends only on each object's size and
//    whether it is still busy (the last step of its record, if that reaches record p's
//    first step); a state seen before at p was already searched with a bound no lower.
MinTotalResult SearchMinimumTotal(const std::vector<UsageRecord>& records, Bytes upper,
                                  std::uint64_t max_nodes);

}  // namespace memplan::objects
