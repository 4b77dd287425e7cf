#include "memplan/svg.h"

#include "src/report/svg_map.h"

namespace memplan {

std::string RenderSvg(const Workload& workload, const MapPlan& plan) {
  const auto ops = TensorOpSummaries(workload);
  report::SvgOptions options;
  options.standalone = true;
  options.op_summaries = &ops;
  return report::DrawMap(workload, plan, ComputeMapTotals(workload.problem), options);
}

}  // namespace memplan
