// textures/naive: every record its own object (TensorFlow Lite GPU's NAIVE).
#include "src/objects/texture_strategies.h"

namespace memplan {

TexturePlan PlanTexturesNaive(const TextureProblem& problem) {
  TexturePlan plan;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    plan.object_ids.push_back(i);
    plan.object_dims.push_back(problem.records[i].dims);
  }
  return plan;
}

}  // namespace memplan
