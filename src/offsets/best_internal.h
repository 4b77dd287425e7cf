#pragma once
// `best` with a given number of threads, so tests can check that the plan does not
// depend on it.
#include "memplan/plan.h"

namespace memplan::offsets_internal {

OffsetPlan PlanBestWithWorkers(const Problem& problem, unsigned workers);

}  // namespace memplan::offsets_internal
