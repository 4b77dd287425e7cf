#pragma once
// Exact assignment of records to objects of given capacities (internal; used by
// objects/best).
#include <cstdint>
#include <optional>
#include <vector>

#include "memplan/objects.h"

namespace memplan::objects {

// Assigns every record to one of the objects whose capacities are given (largest
// first), so that records sharing an object never conflict and each fits its object.
// Exact: a depth-first search over the records in step order (best fit first) that
// remembers the states proven to lead nowhere, so it finds an assignment whenever one
// exists. Returns nullopt when none exists or after `max_steps` elementary steps (the
// steps taken are added to `*steps_used`). Its branch holds one state of
// capacities.size() steps per record: callers check StateMemoryFits first.
// Whether the search's branch, (records + 1) x objects steps of 8 bytes, stays within
// kMaxBranchSteps (256 MB): 62,185 records with 9,331 objects would need 4.6 GB.
inline constexpr std::uint64_t kMaxBranchSteps = std::uint64_t{1} << 25;
inline bool StateMemoryFits(std::size_t records, std::size_t objects) {
  return (static_cast<std::uint64_t>(records) + 1) * objects <= kMaxBranchSteps;
}

std::optional<std::vector<ObjectId>> AssignToCapacities(const std::vector<UsageRecord>& records,
                                                        const std::vector<Bytes>& capacities,
                                                        std::uint64_t max_steps,
                                                        std::uint64_t* steps_used);

}  // namespace memplan::objects
