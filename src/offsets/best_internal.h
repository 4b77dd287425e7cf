#pragma once
// `best` with a given number of threads, so tests can check that the plan does not
// depend on it.
#include <span>

#include "memplan/plan.h"

namespace memplan::offsets {

OffsetPlan PlanBestWithWorkers(const Problem& problem, unsigned workers,
                               std::span<const OffsetPlan> known = {});

}  // namespace memplan::offsets
