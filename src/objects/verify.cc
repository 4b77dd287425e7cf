// Building and verifying shared-objects plans.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "memplan/error.h"
#include "memplan/objects.h"
#include "src/objects/object_checks.h"

namespace memplan {

Bytes ObjectBytes(const Problem& problem, std::size_t i) {
  return AlignUp(problem.records[i].size, problem.alignment);
}

ObjectPlan MakeObjectPlan(std::string strategy, std::vector<ObjectId> object_ids,
                          std::vector<Bytes> object_sizes) {
  ObjectPlan plan{std::move(strategy), std::move(object_ids), std::move(object_sizes), 0};
  for (Bytes size : plan.object_sizes) plan.total_bytes += size;
  return plan;
}

ObjectPlan ObjectPlanFromIds(const Problem& problem, std::string strategy,
                             const std::vector<ObjectId>& object_ids) {
  constexpr ObjectId kUnseen = std::numeric_limits<ObjectId>::max();
  std::vector<ObjectId> renumber;
  std::vector<ObjectId> ids(object_ids.size());
  std::vector<Bytes> sizes;
  for (std::size_t i = 0; i < object_ids.size(); ++i) {
    const ObjectId old = object_ids[i];
    if (old >= renumber.size()) renumber.resize(old + 1, kUnseen);
    if (renumber[old] == kUnseen) {
      renumber[old] = sizes.size();
      sizes.push_back(0);
    }
    ids[i] = renumber[old];
    sizes[ids[i]] = std::max(sizes[ids[i]], ObjectBytes(problem, i));
  }
  return MakeObjectPlan(std::move(strategy), std::move(ids), std::move(sizes));
}

std::vector<Violation> FindObjectViolations(const Problem& problem, const ObjectPlan& plan,
                                            std::size_t limit) {
  std::vector<Violation> out;
  const std::size_t k = plan.object_sizes.size();
  auto full = [&] { return out.size() >= limit; };
  objects::CheckEachRecord(
      problem, plan.object_ids, k, limit, out, [&](std::size_t i, ObjectId id) -> std::string {
        if (plan.object_sizes[id] >= ObjectBytes(problem, i)) return {};
        return fmt::format("too small: {} needs {} B but object {} has {} B", problem.Describe(i),
                           ObjectBytes(problem, i), id, plan.object_sizes[id]);
      });
  if (!out.empty()) return out;
  for (std::size_t o = 0; o < k && !full(); ++o)
    if (plan.object_sizes[o] % problem.alignment != 0)
      out.push_back(
          {fmt::format("unaligned: object {} has {} B, not a multiple of the alignment {}", o,
                       plan.object_sizes[o], problem.alignment)});
  objects::FindSharedObjectConflicts(problem, plan.object_ids, limit, out);
  Bytes total = 0;
  for (Bytes size : plan.object_sizes) {
    if (size > std::numeric_limits<Bytes>::max() - total) {
      out.push_back({"the object sizes overflow 64 bits"});
      return out;
    }
    total += size;
  }
  if (!full() && total != plan.total_bytes)
    out.push_back({fmt::format("the plan claims {} B in objects but its objects add up to {} B",
                               plan.total_bytes, total)});
  return out;
}

void VerifyObjectsOrThrow(const Problem& problem, const ObjectPlan& plan) {
  ThrowIfInvalid(fmt::format("objects strategy '{}'", plan.strategy),
                 FindObjectViolations(problem, plan, 5));
}

}  // namespace memplan
