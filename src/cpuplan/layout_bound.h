#pragma once
// The lower bound of a set of records (memplan/bounds.h OffsetsLowerBound, records without
// fixed offsets) in O(n + steps) for records over node indices: events bucketed by node
// instead of sorted, paddings counted in an array instead of a multiset. The memplan mode
// computes it for every plan it makes (docs/cpu-planner.md); tests check it equals
// OffsetsLowerBound.
#include <vector>

#include "memplan/problem.h"
#include "src/cpuplan/align.h"
#include "src/cpuplan/sweep_scratch.h"

namespace memplan::cpuplan {

// `peak`, when given, gets the first step where the bound is reached (-1 when the records
// are sparse and OffsetsLowerBound answers).
// `scratch`: buffers reused from call to call (the overload without allocates its own).
Bytes SweepLowerBound(const std::vector<UsageRecord>& records, Bytes alignment, Step* peak,
                      SweepScratch& scratch);
Bytes SweepLowerBound(const std::vector<UsageRecord>& records, Bytes alignment,
                      Step* peak = nullptr);

// The bytes of the tensors alive at one step, sizes rounded up to the alignment except the
// topmost's (it needs no padding above it; the largest padding is the one left out): a lower
// bound of any plan, added up one tensor at a time by every pass that asks it.
class LiveBytes {
 public:
  explicit LiveBytes(Bytes alignment) : alignment_(alignment) {}
  void Add(Bytes size) {
    const Bytes aligned = AlignUpFast(size, alignment_);
    padded_ += aligned;
    top_pad_ = aligned - size > top_pad_ ? aligned - size : top_pad_;
  }
  Bytes value() const { return padded_ > top_pad_ ? padded_ - top_pad_ : 0; }

 private:
  Bytes alignment_;
  Bytes padded_ = 0;
  Bytes top_pad_ = 0;
};

// The bytes alive at one step, sizes rounded up to the alignment except the topmost: a lower
// bound in one pass (no plan is smaller), and the bound itself at the step where that is
// reached.
Bytes LiveBytesAt(const std::vector<UsageRecord>& records, Bytes alignment, Step step);

// A coarser lower bound over every step in two passes (a difference array, no events): the
// most bytes alive at one step, sizes rounded up to the alignment, less the largest padding
// of any record (at least the topmost one's there). When a plan's arena is no larger, it is
// the bound, reached at `peak`. 0 (peak -1) where the steps are sparse.
Bytes CoarseLowerBound(const std::vector<UsageRecord>& records, Bytes alignment, Step* peak,
                       SweepScratch& scratch);
Bytes CoarseLowerBound(const std::vector<UsageRecord>& records, Bytes alignment, Step* peak);

}  // namespace memplan::cpuplan
