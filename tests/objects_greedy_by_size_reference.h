#pragma once
// A plain version of objects/greedy_by_size (TensorFlow Lite GPU's GREEDY_BY_SIZE for
// shared objects, distance-priority variant; docs/scale.md), written the way it was
// before memplan indexed it: after every choice each unassigned record is looked at
// again, and a record whose best object stops fitting asks every object. Tests compare
// the indexed strategy's plans with this one's.
#include "memplan/objects.h"

namespace memplan::reference {

ObjectPlan ObjectsGreedyBySize(const Problem& problem);

}  // namespace memplan::reference
