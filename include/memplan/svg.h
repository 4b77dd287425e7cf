#pragma once
// The memory map of one plan as a standalone SVG picture, in the manner of the
// figures of the TensorFlow Lite memory-optimisation blog: x = execution step,
// y = address, one rectangle per non-empty tensor, the lower bound as a dashed line,
// byte axes, a title and a summary panel.

#include <string>

#include "memplan/memory_map.h"

namespace memplan {

// The SVG document (UTF-8, well-formed XML). Throws InternalError when the plan does
// not have one offset per record.
std::string RenderSvg(const Workload& workload, const MapPlan& plan);

}  // namespace memplan
