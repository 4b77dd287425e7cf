#pragma once
// A plain version of objects/greedy_by_size (TensorFlow Lite GPU's GREEDY_BY_SIZE for
// shared objects, distance-priority variant; docs/scale.md), written the way it was
// before memplan indexed it: after every choice each unassigned record is looked at
// again, and a record whose best object stops fitting asks every object. Tests compare
// the indexed strategy's plans with this one's.
#include <vector>

#include "memplan/objects.h"

namespace memplan::reference {

// The records numbered as TensorFlow Lite's callers number them: stable by first step,
// sizes rounded up to the alignment. order[k] is the problem's index of records[k].
struct StepNumbered {
  std::vector<std::size_t> order;
  std::vector<UsageRecord> records;
};
StepNumbered NumberByFirstStep(const Problem& problem);

ObjectPlan ObjectsGreedyBySize(const Problem& problem);

}  // namespace memplan::reference
