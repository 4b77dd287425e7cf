// objects/exact: objects/best, then the exact minimum-total search below best's total
// (src/objects/min_total_search.h). A node budget, not a clock, bounds the search, so
// the strategy stays a pure function; the result says whether the search finished,
// which proves the plan optimal.
#include <fmt/format.h>

#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/objects.h"
#include "src/objects/min_total_search.h"
#include "src/objects/sweep.h"

namespace memplan {

namespace {

// The search's preprocessing is quadratic in the records: above this many, best stands.
constexpr std::size_t kMaxSearchRecords = 2000;

}  // namespace

ObjectsExactResult SolveObjectsExact(const Problem& problem, std::uint64_t node_limit,
                                     const ObjectPlan* best) {
  Validate(problem);
  ObjectsExactResult result;
  result.plan = best ? *best : PlanObjects(problem, "best");
  result.bound_bytes = std::min(ObjectsLowerBound(problem), result.plan.total_bytes);
  if (result.plan.total_bytes > result.bound_bytes && problem.size() <= kMaxSearchRecords) {
    const auto search = objects::SearchMinimumTotal(objects::AlignedRecords(problem),
                                                    result.plan.total_bytes, node_limit);
    result.nodes = search.nodes;
    if (!search.object_ids.empty())
      result.plan = ObjectPlanFromIds(problem, "exact", search.object_ids);
    if (search.complete) result.bound_bytes = result.plan.total_bytes;
  }
  result.plan.strategy = "exact";
  VerifyObjectsOrThrow(problem, result.plan);
  result.proven_optimal = result.plan.total_bytes <= result.bound_bytes;
  if (!result.proven_optimal)
    result.open_reason =
        problem.size() > kMaxSearchRecords
            ? fmt::format(
                  "{} records: above {}, the minimum-total search does not run and "
                  "best's plan stands",
                  problem.size(), kMaxSearchRecords)
            : fmt::format(
                  "the minimum-total search stopped at its budget of {} nodes without "
                  "finding a smaller plan or closing the gap",
                  node_limit);
  return result;
}

ObjectPlan PlanObjectsExact(const Problem& problem) {
  return SolveObjectsExact(problem).plan;
}

}  // namespace memplan
