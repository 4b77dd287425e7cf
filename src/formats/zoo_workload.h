#pragma once
// `memplan plan zoo:NAME` for a built-in model: build the graph, derive the records.
#include <optional>
#include <string_view>

#include "memplan/workload.h"

namespace memplan {

// The workload of the built-in model `name` (kind "zoo"), or nullopt when no model has
// that name (it may still be a built-in records example).
std::optional<Workload> LoadZooModelWorkload(std::string_view spec, std::string_view name,
                                             const LoadOptions& options);

}  // namespace memplan
