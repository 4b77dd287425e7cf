#pragma once
// Local search over shared-objects plans (internal; used by objects/best).
#include <cstdint>
#include <vector>

#include "memplan/objects.h"

namespace memplan::objects {

// Improves an assignment of records to objects (object sizes follow: each object as
// large as its largest record) by moves that keep it valid and strictly lower the
// total: merging two objects, re-orienting the alternating runs of two objects,
// moving or swapping a record, and lowering an object by moving its largest records
// elsewhere (to other objects or one new object). Deterministic. Stops at
// `lower_bound`, when no move helps, or after about `work_budget` elementary steps.
// Returns the improved object of each record (ids not compacted).
std::vector<ObjectId> ImproveObjects(const std::vector<UsageRecord>& records,
                                     std::vector<ObjectId> object_ids, Bytes lower_bound,
                                     std::uint64_t work_budget);

}  // namespace memplan::objects
