#pragma once
// Exact assignment of records to objects of given capacities (internal; used by
// objects/best).
#include <cstdint>
#include <optional>
#include <vector>

#include "memplan/objects.h"

namespace memplan::objects_internal {

// Assigns every record to one of the objects whose capacities are given (largest
// first), so that records sharing an object never conflict and each fits its object.
// Exact: a depth-first search over the records in step order (best fit first) that
// remembers the states proven to lead nowhere, so it finds an assignment whenever one
// exists. Returns nullopt when none exists or after `max_steps` elementary steps (the
// steps taken are added to `*steps_used`).
std::optional<std::vector<ObjectId>> AssignToCapacities(const std::vector<UsageRecord>& records,
                                                        const std::vector<Bytes>& capacities,
                                                        std::uint64_t max_steps,
                                                        std::uint64_t* steps_used);

}  // namespace memplan::objects_internal
