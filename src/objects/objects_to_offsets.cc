// objects_to_offsets: TensorFlow Lite GPU's ObjectsToOffsets. Objects sit back to back in
// id order, so every objects plan is also an offsets plan with the same total.
#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/objects.h"

namespace memplan {

ObjectsLayout LayOutObjects(const std::vector<ObjectId>& object_ids,
                            const std::vector<Bytes>& object_sizes) {
  ObjectsLayout layout;
  std::vector<Bytes> starts;
  starts.reserve(object_sizes.size());
  for (Bytes size : object_sizes) {
    starts.push_back(layout.total_bytes);
    layout.total_bytes += size;
  }
  layout.offsets.reserve(object_ids.size());
  for (std::size_t i = 0; i < object_ids.size(); ++i) {
    if (object_ids[i] >= starts.size())
      throw InputError(fmt::format("record {} is in object {} but there are only {} objects", i,
                                   object_ids[i], starts.size()));
    layout.offsets.push_back(starts[object_ids[i]]);
  }
  return layout;
}

OffsetPlan ObjectsToOffsetPlan(const Problem& problem, const ObjectPlan& plan) {
  VerifyObjectsOrThrow(problem, plan);
  ObjectsLayout layout = LayOutObjects(plan.object_ids, plan.object_sizes);
  OffsetPlan offsets = MakeOffsetPlan(problem, fmt::format("objects_to_offsets({})", plan.strategy),
                                      std::move(layout.offsets));
  VerifyOrThrow(problem, offsets);
  return offsets;
}

}  // namespace memplan
