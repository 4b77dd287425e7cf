#pragma once
// The time axis under a memory map: the live bytes over the steps as a filled curve with
// the lower bound marked (what every plan must hold at its busiest step), the step
// numbers, and the name of the op that runs at each step.
#include <string>
#include <vector>

#include "memplan/memory_map.h"
#include "src/report/svg_layout.h"

namespace memplan::report {

// Appends the curve, its byte axis, the lower-bound line and red bars under the steps
// where the live bytes reach the bound.
void DrawLiveBytes(std::string& out, const Layout& layout, const Problem& problem,
                   Bytes lower_bound);

// Appends step ticks and, when `labels` is not empty, the op names (rotated, thinned to
// one per ~11 units when the columns are narrow); `standalone`: the long label as a
// <title> tooltip on each (the HTML page has its own tooltip).
void DrawStepAxis(std::string& out, const Layout& layout, const std::vector<StepLabel>& labels,
                  bool standalone);

}  // namespace memplan::report
