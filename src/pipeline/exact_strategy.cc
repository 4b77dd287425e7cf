// Adds the exact solver to the offsets strategies' table as "exact". The solver starts
// from the offsets strategies' plans, so the offsets area cannot name it; this file sits
// above both and is linked as an object file into every program that links `memplan`
// (a static library's member that nothing calls would be left out by the linker, and
// with it the registration).
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
