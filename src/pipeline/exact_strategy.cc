// Adds the exact solver to the offsets strategies' table as "exact". The solver starts
// from the offsets strategies' plans, so the offsets area cannot name it; this file sits
// above both and is the one source of the `memplan` library, whose users' link keeps it
// by the symbol below (src/CMakeLists.txt).
#include "memplan/exact.h"
#include "memplan/offsets.h"

namespace memplan::pipeline {

namespace {

const bool registered = [] {
  RegisterOffsetStrategy(
      OffsetStrategy{"exact", "provably optimal branch and bound (10 s budget)", &PlanExact});
  return true;
}();

}  // namespace

}  // namespace memplan::pipeline

// What the link of every program that uses `memplan` asks for by name, so that this file's
// registration is linked in.
extern "C" {
extern const int memplan_exact_strategy_anchor;
const int memplan_exact_strategy_anchor = 1;
}
