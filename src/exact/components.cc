#include "src/exact/components.h"

#include <algorithm>
#include <numeric>

namespace memplan::exact {

std::vector<std::vector<std::size_t>> TimeComponents(const Problem& problem) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (problem.records[i].size > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return problem.records[a].first < problem.records[b].first;
  });
  // Sweep by first step: a record starting after every earlier one has ended opens a
  // new component.
  std::vector<std::vector<std::size_t>> components;
  Step reach = 0;
  for (std::size_t i : order) {
    const UsageRecord& r = problem.records[i];
    if (components.empty() || r.first > reach) components.emplace_back();
    components.back().push_back(i);
    reach = components.back().size() == 1 ? r.last : std::max(reach, r.last);
  }
  for (auto& c : components) std::sort(c.begin(), c.end());
  return components;
}

Problem SubProblem(const Problem& problem, const std::vector<std::size_t>& records) {
  Problem sub;
  sub.alignment = problem.alignment;
  for (std::size_t i : records) {
    sub.records.push_back(problem.records[i]);
    if (!problem.fixed_offsets.empty()) sub.fixed_offsets.push_back(problem.fixed_offsets[i]);
    if (!problem.names.empty()) sub.names.push_back(problem.names[i]);
  }
  return sub;
}

}  // namespace memplan::exact
