// objects/greedy_in_order: TensorFlow Lite GPU's GREEDY_IN_ORDER (Lee et al. 2019). In
// step order, each record takes the free object closest in size: the smallest one at
// least as large, unless the largest smaller one is strictly closer; the object grows
// to the record's size. O(n log n).
#include <iterator>
#include <set>

#include "src/objects/sweep.h"

namespace memplan {

using namespace objects;

ObjectPlan PlanObjectsGreedyInOrder(const Problem& problem) {
  const std::vector<UsageRecord> records = AlignedRecords(problem);
  std::vector<ObjectId> ids(records.size());
  std::vector<Bytes> sizes;
  std::set<std::pair<Bytes, ObjectId>> free;  // (size, id) of released objects
  InUse in_use;
  for (std::size_t i : SweepOrder(records)) {
    const UsageRecord& r = records[i];
    in_use.ReleaseBefore(r.first, [&](ObjectId o) { free.emplace(sizes[o], o); });
    // A: smallest free object >= size (lowest id among equals);
    // B: largest free object < size (highest id among equals).
    const auto at_least = free.lower_bound({r.size, 0});
    auto chosen = free.end();
    if (at_least != free.begin()) {
      const auto smaller = std::prev(at_least);
      if (at_least == free.end() || r.size - smaller->first < at_least->first - r.size)
        chosen = smaller;
      else
        chosen = at_least;
    } else {
      chosen = at_least;
    }
    ObjectId object;
    if (chosen == free.end()) {
      object = sizes.size();
      sizes.push_back(r.size);
    } else {
      object = chosen->second;
      free.erase(chosen);
      sizes[object] = std::max(sizes[object], r.size);
    }
    ids[i] = object;
    in_use.Hold(object, r.last);
  }
  return MakeObjectPlan("greedy_in_order", std::move(ids), std::move(sizes));
}

}  // namespace memplan
