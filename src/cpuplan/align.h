#pragma once
// Rounding to the tensor alignment in the memplan mode's inner loops (the placement scans,
// the bound sweep, the verification). A CPU planner's alignments are powers of two in
// practice: a mask then replaces the division, which costs tens of cycles where placing a
// small graph's tensor costs a few hundred (docs/cpu-planner.md, "Planning time").
#include "memplan/problem.h"

namespace memplan::cpuplan {

// AlignUp (memplan/problem.h), the same result; IsAligned is there too.
inline Bytes AlignUpFast(Bytes value, Bytes alignment) {
  return IsPowerOfTwo(alignment) ? (value + alignment - 1) & ~(alignment - 1)
                                 : AlignUp(value, alignment);
}

}  // namespace memplan::cpuplan
