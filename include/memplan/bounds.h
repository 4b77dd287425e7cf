#pragma once
// Lower bounds and the naive cost.

#include <vector>

#include "memplan/problem.h"

namespace memplan {

// Σ sizes: every record its own space (sizes rounded up to the alignment, as a
// naive layout with aligned starts needs them).
Bytes NaiveBytes(const Problem& problem);

// The largest total of live sizes at any step, sizes rounded up to the alignment except
// the largest padding of that step (the topmost record needs none), so it is a true
// bound for any alignment: no offsets plan can be smaller. Live fixed records count by
// the bytes they cover (they may overlap each other), and no bound is below the end of
// a fixed record. O(n log n) sweep (plus the union of live fixed records per step).
Bytes OffsetsLowerBound(const Problem& problem);

// Live bytes at every step 0..max(last) (raw sizes, no alignment), the "breadth" of
// each task in the TensorFlow Lite memory paper.
std::vector<Bytes> StepBreadths(const std::vector<UsageRecord>& records);

// Shared objects (objects.h). The profile of task t lists the records alive at t,
// largest first, equal sizes in record order; one profile per task 0..max(last)
// (TensorFlow Lite GPU's CalculateTaskProfiles). O(Σ interval lengths) memory.
std::vector<std::vector<std::size_t>> TaskProfiles(const std::vector<UsageRecord>& records);

// pm[k] = the largest (k+1)-th largest size in any task's profile (TensorFlow Lite GPU's
// CalculatePositionalMaximums); non-increasing, as long as the longest profile. Only
// steps where a record starts are visited, so long intervals cost nothing extra.
std::vector<Bytes> PositionalMaximums(const std::vector<UsageRecord>& records);

// Σ positional maximums of the sizes rounded up to the alignment: the records alive at
// one step need pairwise distinct objects, so the k-th largest object is at least the
// k-th largest of them. No shared-objects plan can be smaller; never below
// OffsetsLowerBound.
Bytes ObjectsLowerBound(const Problem& problem);

}  // namespace memplan
