#pragma once
// Rounding to the tensor alignment in the memplan mode's inner loops (the placement scans,
// the bound sweep, the verification). A CPU planner's alignments are powers of two in
// practice: a mask then replaces the division, which costs tens of cycles where placing a
// small graph's tensor costs a few hundred (docs/cpu-planner.md, "Planning time").
#include "memplan/problem.h"

namespace memplan::cpuplan {

inline bool IsPowerOfTwo(Bytes value) {
  return value != 0 && (value & (value - 1)) == 0;
}

// AlignUp (memplan/problem.h), the same result.
inline Bytes AlignUpFast(Bytes value, Bytes alignment) {
  return IsPowerOfTwo(alignment) ? (value + alignment - 1) & ~(alignment - 1)
                                 : AlignUp(value, alignment);
}

inline bool IsAligned(Bytes value, Bytes alignment) {
  return IsPowerOfTwo(alignment) ? (value & (alignment - 1)) == 0 : value % alignment == 0;
}

}  // namespace memplan::cpuplan
