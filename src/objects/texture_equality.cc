// textures/equality: reuse only objects of exactly the record's dims. TensorFlow Lite
// has two variants and pairs them with size types: the hash variant (shapes) takes the
// most recently released equal object; the linear variant (2-D/3-D textures) takes the
// lowest-id equal object whose last record has ended. Records in step order.
#include <map>

#include "src/objects/sweep.h"
#include "src/objects/texture_strategies.h"

namespace memplan {

using namespace objects;

TexturePlan PlanTexturesEqualityHash(const TextureProblem& problem) {
  TexturePlan plan;
  plan.object_ids.resize(problem.size());
  std::map<std::vector<std::uint64_t>, std::vector<std::size_t>> released;  // oldest first
  InUse in_use;
  for (std::size_t i : SweepOrder(problem.records)) {
    const TextureRecord& r = problem.records[i];
    in_use.ReleaseBefore(r.first,
                         [&](std::size_t o) { released[plan.object_dims[o]].push_back(o); });
    auto& pool = released[r.dims];
    std::size_t object;
    if (pool.empty()) {
      object = plan.object_dims.size();
      plan.object_dims.push_back(r.dims);
    } else {
      object = pool.back();
      pool.pop_back();
    }
    plan.object_ids[i] = object;
    in_use.Hold(object, r.last);
  }
  return plan;
}

TexturePlan PlanTexturesEqualityLinear(const TextureProblem& problem) {
  TexturePlan plan;
  plan.object_ids.resize(problem.size());
  std::vector<Step> busy_until;  // per object: last step of its latest record
  for (std::size_t i : SweepOrder(problem.records)) {
    const TextureRecord& r = problem.records[i];
    std::size_t object = plan.object_dims.size();
    for (std::size_t o = 0; o < plan.object_dims.size(); ++o) {
      if (busy_until[o] < r.first && plan.object_dims[o] == r.dims) {
        object = o;
        break;
      }
    }
    if (object == plan.object_dims.size()) {
      plan.object_dims.push_back(r.dims);
      busy_until.push_back(r.last);
    } else {
      busy_until[object] = r.last;
    }
    plan.object_ids[i] = object;
  }
  return plan;
}

}  // namespace memplan
