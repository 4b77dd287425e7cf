#pragma once
// The texture strategies one by one (internal; PlanTextureObjects is the way in). Each
// fills object_ids and object_dims; the caller computes the total and verifies.
#include "memplan/textures.h"

namespace memplan {

// Every record its own object.
TexturePlan PlanTexturesNaive(const TextureProblem& problem);
// In step order, the most recently released object of exactly equal dims (shapes).
TexturePlan PlanTexturesEqualityHash(const TextureProblem& problem);
// In step order, the lowest-id free object of exactly equal dims (textures).
TexturePlan PlanTexturesEqualityLinear(const TextureProblem& problem);
// In step order, the free object covering the record with the least element surplus
// (first released on ties); objects never grow.
TexturePlan PlanTexturesGreedyInOrder(const TextureProblem& problem);

}  // namespace memplan
