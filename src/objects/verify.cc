// Building and verifying shared-objects plans.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "memplan/error.h"
#include "memplan/objects.h"

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
  const std::size_t n = problem.size();
  const std::size_t k = plan.object_sizes.size();
  if (plan.object_ids.size() != n) {
    out.push_back(
        {fmt::format("the plan has {} object ids for {} records", plan.object_ids.size(), n)});
    return out;
  }
  auto full = [&] { return out.size() >= limit; };
  for (std::size_t i = 0; i < n && !full(); ++i) {
    const ObjectId id = plan.object_ids[i];
    if (id >= k) {
      out.push_back({fmt::format("unknown object: {} is in object {} but the plan has {} objects",
                                 problem.Describe(i), id, k)});
      continue;
    }
    if (plan.object_sizes[id] < ObjectBytes(problem, i))
      out.push_back(
          {fmt::format("too small: {} needs {} B but object {} has {} B", problem.Describe(i),
                       ObjectBytes(problem, i), id, plan.object_sizes[id])});
  }
  if (!out.empty()) return out;
  for (std::size_t o = 0; o < k && !full(); ++o)
    if (plan.object_sizes[o] % problem.alignment != 0)
      out.push_back(
          {fmt::format("unaligned: object {} has {} B, not a multiple of the alignment {}", o,
                       plan.object_sizes[o], problem.alignment)});
  // Records of one object, in step order: any conflict shows between neighbours.
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ra = problem.records[a];
    const auto& rb = problem.records[b];
    return std::tuple(plan.object_ids[a], ra.first, a) <
           std::tuple(plan.object_ids[b], rb.first, b);
  });
  // The member of the current object that ends last so far (not only the previous one:
  // a long record may cover several later ones).
  std::size_t reach = 0;
  for (std::size_t p = 0; p < n && !full(); ++p) {
    const std::size_t i = order[p];
    if (p > 0 && plan.object_ids[order[p - 1]] == plan.object_ids[i]) {
      if (Conflicts(problem.records[reach], problem.records[i]))
        out.push_back(
            {fmt::format("conflict: {} and {} share object {} but are alive at the "
                         "same step",
                         problem.Describe(reach), problem.Describe(i), plan.object_ids[i])});
      if (problem.records[i].last > problem.records[reach].last) reach = i;
    } else {
      reach = i;
    }
  }
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
  const auto violations = FindObjectViolations(problem, plan, 5);
  if (violations.empty()) return;
  std::string message =
      fmt::format("objects strategy '{}' produced an invalid plan:", plan.strategy);
  for (const Violation& v : violations) message += "\n  " + v.message;
  throw InternalError(message);
}

}  // namespace memplan
