#pragma once
// Lower bounds and the naive cost.

#include <vector>

#include "memplan/problem.h"

namespace memplan {

// Σ sizes: every record its own space (sizes rounded up to the alignment, as a
// naive layout with aligned starts needs them).
Bytes NaiveBytes(const Problem& problem);

// The largest total of live sizes at any step (sizes rounded up to the alignment):
// no offsets plan can be smaller. O(n log n) sweep. Fixed records count too.
Bytes OffsetsLowerBound(const Problem& problem);

// Live bytes at every step 0..max(last) (raw sizes, no alignment), the "breadth" of
// each task in the TensorFlow Lite memory paper.
std::vector<Bytes> StepBreadths(const std::vector<UsageRecord>& records);

}  // namespace memplan
