#pragma once
// A self-contained HTML page (inline SVG and script, no external assets) showing the
// memory maps of several plans of one workload, with a selector between them and a
// tooltip per tensor (name, size, lifetime, offset, producing and consuming ops).

#include <string>
#include <vector>

#include "memplan/memory_map.h"

namespace memplan {

// `initial` is the index of the plan shown first. InternalError when `plans` is empty
// or a plan does not have one offset per record.
std::string RenderHtml(const Workload& workload, const std::vector<MapPlan>& plans,
                       std::size_t initial);

}  // namespace memplan
