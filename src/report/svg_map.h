#pragma once
// The SVG drawing shared by the standalone picture (svg.h) and the HTML page (html.h).
#include <string>

#include "memplan/memory_map.h"

namespace memplan::report {

struct SvgOptions {
  bool standalone = true;  // an XML declaration and a <title> tooltip per rectangle
  // Per-record op summaries for the tooltips (TensorOpSummaries); may be empty.
  const std::vector<std::string>* op_summaries = nullptr;
};

// The map of `plan` as an <svg> element. Rectangles are <rect class="tensor"
// data-i="RECORD"> inside <g id="tensors">, one per record of non-zero size.
std::string DrawMap(const Workload& workload, const MapPlan& plan, const MapTotals& totals,
                    const SvgOptions& options);

}  // namespace memplan::report
