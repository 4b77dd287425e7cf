#pragma once
// The checks that the byte-sized objects' verification (verify.cc) and the textures'
// (textures.cc) share: each record in an object that exists and holds it, and records
// sharing an object never alive at one step.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "memplan/plan.h"

namespace memplan::objects {

// Appends a violation when the plan has not one object id per record, else one for each
// record in an object the plan does not have (it has `objects`) or in one that does not
// hold it: `misfit(i, id)` says why record i does not fit object id, empty when it does.
// Stops once `out` holds `limit`.
template <class RecordProblem, class ObjectIds, class Misfit>
void CheckEachRecord(const RecordProblem& problem, const ObjectIds& object_ids, std::size_t objects,
                     std::size_t limit, std::vector<Violation>& out, Misfit misfit) {
  const std::size_t n = problem.size();
  if (object_ids.size() != n) {
    out.push_back({fmt::format("the plan has {} object ids for {} records", object_ids.size(), n)});
    return;
  }
  for (std::size_t i = 0; i < n && out.size() < limit; ++i) {
    const auto id = object_ids[i];
    if (id >= objects) {
      out.push_back({fmt::format("unknown object: {} is in object {} but the plan has {} objects",
                                 problem.Describe(i), id, objects)});
      continue;
    }
    std::string why = misfit(i, id);
    if (!why.empty()) out.push_back({std::move(why)});
  }
}

// Appends a violation for each record alive at a step with another of its object, until
// `out` holds `limit`. The records are taken by object, then first step: any conflict shows
// against the member of the current object that ends last so far (not only the previous
// one: a long record may cover several later ones). `RecordProblem` has `records` (with
// `first` and `last`), `size()` and `Describe(i)`.
template <class RecordProblem, class ObjectIds>
void FindSharedObjectConflicts(const RecordProblem& problem, const ObjectIds& object_ids,
                               std::size_t limit, std::vector<Violation>& out) {
  const std::size_t n = problem.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tuple(object_ids[a], problem.records[a].first, a) <
           std::tuple(object_ids[b], problem.records[b].first, b);
  });
  std::size_t reach = 0;
  for (std::size_t p = 0; p < n && out.size() < limit; ++p) {
    const std::size_t i = order[p];
    if (p > 0 && object_ids[order[p - 1]] == object_ids[i]) {
      // Sorted by first step, the two share a step exactly when `reach` lasts until i starts.
      if (problem.records[reach].last >= problem.records[i].first)
        out.push_back(
            {fmt::format("conflict: {} and {} share object {} but are alive at the "
                         "same step",
                         problem.Describe(reach), problem.Describe(i), object_ids[i])});
      if (problem.records[i].last > problem.records[reach].last) reach = i;
    } else {
      reach = i;
    }
  }
}

}  // namespace memplan::objects
