#pragma once
// Time components of a problem: groups of records such that no record of one group is
// live at a step boundary that another group crosses, so each group can be planned on
// its own and the plans combined (the arena is the largest of theirs).
#include <cstddef>
#include <vector>

#include "memplan/problem.h"

namespace memplan::exact {

// The records (indices, non-zero sizes only) of each time component, in time order.
std::vector<std::vector<std::size_t>> TimeComponents(const Problem& problem);

// The problem restricted to `records` (alignment, fixed offsets and names kept).
Problem SubProblem(const Problem& problem, const std::vector<std::size_t>& records);

}  // namespace memplan::exact
