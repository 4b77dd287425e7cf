#pragma once
// The buffers the memplan mode's bound sweeps, scan placement and verification reuse from
// call to call (layout_bound.h, scan_fit.h). Each planner owns one, in its PlanScratch: a
// thread_local buffer would register its destructor at the first plan of every thread, a
// call into the C library through the dynamic linker that cost the first plan `memplan run`
// times about 4,000 instructions and 5 us (docs/cpu-planner.md, "Round seven").
#include <array>
#include <cstdint>
#include <vector>

#include "memplan/problem.h"

namespace memplan::cpuplan {

// Up to this many records a plan is verified without the sweep's buckets (scan_fit.cc).
inline constexpr std::size_t kSmallRecords = 64;

// A record arriving at or leaving a step, in SweepLowerBound's buckets.
struct BoundEvent {
  Bytes aligned;      // its size rounded up to the alignment
  std::uint32_t pad;  // the padding that adds
  bool arrive;        // arriving (else leaving)
};

// A record PlaceByScan has placed: its bytes and steps.
struct ScanPlaced {
  Bytes offset;
  Bytes end;
  Step first;
  Step last;
};

// The verification sweep's records of nonzero size bucketed by step (scan_fit.cc): arrivals
// by first step, departures by last step + 1; the records arriving at step s are
// arriving[arrive_start[s]] up to arriving[arrive_start[s + 1]], and likewise for leaving.
struct StepBuckets {
  std::vector<std::uint32_t> arrive_start, leave_start;
  std::vector<std::uint32_t> arriving, leaving;
  std::vector<std::uint32_t> next_arrival, next_leaving;  // filling cursors
  std::vector<std::uint32_t> live;                        // the sweep's live records
};

// A small plan's records in offset order and their byte ranges and steps (CheckFewRecords).
struct FewRecordsOrder {
  struct Span {
    Bytes begin, end;
    Step first, last;
  };
  std::array<std::uint32_t, kSmallRecords> by_offset;  // the last verification's order
  std::size_t size = 0;                                // its records (0: none yet)
  std::array<Span, kSmallRecords> spans;
};

struct SweepScratch {
  std::vector<std::uint32_t> bound_start, bound_fill;  // SweepLowerBound's buckets
  std::vector<BoundEvent> bound_events;
  std::vector<Bytes> bound_change;  // CoarseLowerBound's difference array
  std::vector<ScanPlaced> placed;   // PlaceByScan's placed records in offset order
  StepBuckets buckets;              // VerifyBySweep above kSmallRecords
  FewRecordsOrder few;              // VerifyBySweep up to kSmallRecords
};

}  // namespace memplan::cpuplan
