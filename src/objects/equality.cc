// objects/equality: an object is reused only by a record of exactly its size
// (TensorFlow Lite GPU's EQUALITY, hash variant for byte sizes). In step order, a record
// takes the most recently released object of its size, else a new one.
#include <unordered_map>

#include "src/objects/sweep.h"

namespace memplan {

using namespace objects;

ObjectPlan PlanObjectsEquality(const Problem& problem) {
  const std::vector<UsageRecord> records = AlignedRecords(problem);
  std::vector<ObjectId> ids(records.size());
  std::vector<Bytes> sizes;
  std::unordered_map<Bytes, std::vector<ObjectId>> released;  // size -> objects, oldest first
  InUse in_use;
  for (std::size_t i : SweepOrder(records)) {
    const UsageRecord& r = records[i];
    in_use.ReleaseBefore(r.first, [&](ObjectId o) { released[sizes[o]].push_back(o); });
    auto& pool = released[r.size];
    ObjectId object;
    if (pool.empty()) {
      object = sizes.size();
      sizes.push_back(r.size);
    } else {
      object = pool.back();
      pool.pop_back();
    }
    ids[i] = object;
    in_use.Hold(object, r.last);
  }
  return MakeObjectPlan("equality", std::move(ids), std::move(sizes));
}

}  // namespace memplan
