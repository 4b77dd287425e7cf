// textures/greedy_in_order: TensorFlow Lite GPU's multidimensional GREEDY_IN_ORDER (its
// OpenGL backend's choice for 2-D and 3-D textures). In step order, a record takes the
// released object that covers it in every dimension with the smallest element surplus
// (the earliest released on ties), else a new object of its own dims; objects never grow.
#include <list>

#include "src/objects/sweep.h"
#include "src/objects/texture_strategies.h"

namespace memplan {

using namespace objects;

namespace {

bool Covers(const std::vector<std::uint64_t>& object, const std::vector<std::uint64_t>& record) {
  for (std::size_t d = 0; d < object.size(); ++d)
    if (object[d] < record[d]) return false;
  return true;
}

}  // namespace

TexturePlan PlanTexturesGreedyInOrder(const TextureProblem& problem) {
  TexturePlan plan;
  plan.object_ids.resize(problem.size());
  std::list<std::size_t> released;  // free objects in release order
  InUse in_use;
  for (std::size_t i : SweepOrder(problem.records)) {
    const TextureRecord& r = problem.records[i];
    in_use.ReleaseBefore(r.first, [&](std::size_t o) { released.push_back(o); });
    const std::uint64_t need = Elements(r.dims);
    auto best = released.end();
    std::uint64_t best_surplus = 0;
    for (auto it = released.begin(); it != released.end(); ++it) {
      const auto& dims = plan.object_dims[*it];
      if (!Covers(dims, r.dims)) continue;
      const std::uint64_t surplus = Elements(dims) - need;
      if (best == released.end() || surplus < best_surplus) {
        best = it;
        best_surplus = surplus;
      }
    }
    std::size_t object;
    if (best == released.end()) {
      object = plan.object_dims.size();
      plan.object_dims.push_back(r.dims);
    } else {
      object = *best;
      released.erase(best);
    }
    plan.object_ids[i] = object;
    in_use.Hold(object, r.last);
  }
  return plan;
}

}  // namespace memplan
