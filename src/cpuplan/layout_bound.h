#pragma once
// The lower bound of a set of records (memplan/bounds.h OffsetsLowerBound, records without
// fixed offsets) in O(n + steps) for records over node indices: events bucketed by node
// instead of sorted, paddings counted in an array instead of a multiset. The memplan mode
// computes it for every plan it makes (docs/cpu-planner.md); tests check it equals
// OffsetsLowerBound.
#include <vector>

#include "memplan/problem.h"

namespace memplan::cpuplan {

// `peak`, when given, gets the first step where the bound is reached (-1 when the records
// are sparse and OffsetsLowerBound answers).
Bytes SweepLowerBound(const std::vector<UsageRecord>& records, Bytes alignment,
                      Step* peak = nullptr);

// The bytes alive at one step, sizes rounded up to the alignment except the topmost: a lower
// bound in one pass (no plan is smaller), and the bound itself at the step where that is
// reached.
Bytes LiveBytesAt(const std::vector<UsageRecord>& records, Bytes alignment, Step step);

}  // namespace memplan::cpuplan
