// ExactLowerBound: the solver's name for the core load bound, which is safe for
// alignment and fixed records (bounds.h).
#include "memplan/bounds.h"
#include "memplan/exact.h"

namespace memplan {

Bytes ExactLowerBound(const Problem& problem) {
  return OffsetsLowerBound(problem);
}

}  // namespace memplan
