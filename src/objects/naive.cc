// objects/naive: every record its own object (TensorFlow Lite GPU's NAIVE).
#include "memplan/objects.h"

namespace memplan {

ObjectPlan PlanObjectsNaive(const Problem& problem) {
  std::vector<ObjectId> ids(problem.size());
  std::vector<Bytes> sizes(problem.size());
  for (std::size_t i = 0; i < problem.size(); ++i) {
    ids[i] = i;
    sizes[i] = ObjectBytes(problem, i);
  }
  return MakeObjectPlan("naive", std::move(ids), std::move(sizes));
}

}  // namespace memplan
