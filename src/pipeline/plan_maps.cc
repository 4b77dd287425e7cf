// Plans as memory maps (include/memplan/plan_maps.h).
#include "memplan/plan_maps.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "memplan/split.h"
#include "memplan/table.h"

namespace memplan {

std::optional<MapPlan> MapOfRun(const StrategyRun& run, Bytes alignment) {
  if (run.offsets) return MapOfOffsets(run.Key(), *run.offsets);
  if (run.objects)
    return MapOfObjects(run.Key(), run.objects->object_ids, run.objects->object_sizes, alignment);
  return std::nullopt;
}

std::string MapSummary(const Workload& workload, const MapPlan& plan) {
  const MapTotals totals = ComputeMapTotals(workload.problem);
  const double ratio = totals.lower_bound == 0 ? 1.0
                                               : static_cast<double>(plan.bytes) /
                                                     static_cast<double>(totals.lower_bound);
  std::string out = fmt::format("{}: {} tensors, {} steps", workload.label, workload.problem.size(),
                                totals.steps);
  if (workload.graph) out += fmt::format(", {} ops", workload.ops);
  out += fmt::format(", alignment {}\n", workload.problem.alignment);
  if (!plan.object_sizes.empty())
    out += fmt::format("{}: {} shared objects, {} B in all; laid out back to back:\n", plan.key,
                       plan.object_sizes.size(), WithThousands(plan.bytes));
  out +=
      fmt::format("{}: arena {} B, lower bound {} B (× {:.3f}{}), naive {} B\n", plan.key,
                  WithThousands(plan.bytes), WithThousands(totals.lower_bound), ratio,
                  plan.bytes <= totals.lower_bound ? ", optimal" : "", WithThousands(totals.naive));
  return out;
}

void MarkSplitStage(Workload& workload) {
  if (!workload.graph) return;
  const auto split = DescribeSplit(*workload.graph);
  if (!split) return;
  std::optional<Step> first, last;
  for (std::size_t s = 0; s < workload.step_ops.size(); ++s) {
    const StepOp& at = workload.step_ops[s];
    if (at.subgraph != 0 || at.op < split->first_op || at.op > split->last_op) continue;
    if (!first) first = static_cast<Step>(s);
    last = static_cast<Step>(s);
  }
  if (!first) return;
  workload.step_bands.push_back({*first, *last,
                                 fmt::format("split stage: {}x{} patches, ops {}..{}", split->rows,
                                             split->cols, split->first_op, split->last_op)});
}

Workload TextureElementsWorkload(const Workload& textures, std::string label) {
  const TextureProblem& problem = *textures.textures;
  const std::uint64_t unit = std::max<std::uint64_t>(problem.element_bytes, 1);
  Workload elements;
  elements.label = std::move(label);
  elements.kind = problem.element_bytes > 0 ? textures.kind : "records";
  elements.ops = textures.ops;
  elements.step_ops = textures.step_ops;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const TextureRecord& r = problem.records[i];
    elements.problem.records.push_back({Elements(r.dims) * unit, r.first, r.last});
    elements.problem.names.push_back(
        fmt::format("{} ({})", problem.names[i], fmt::join(r.dims, "x")));
  }
  return elements;
}

std::vector<MapPlan> TextureMaps(const TextureProblem& problem, const TextureRuns& runs) {
  const std::uint64_t unit = std::max<std::uint64_t>(problem.element_bytes, 1);
  std::vector<MapPlan> maps;
  for (const TextureRun& run : runs.runs) {
    std::vector<Bytes> sizes;
    for (const auto& dims : run.plan.object_dims) sizes.push_back(Elements(dims) * unit);
    maps.push_back(MapOfObjects("objects/" + run.strategy, run.plan.object_ids, sizes, 1));
  }
  return maps;
}

}  // namespace memplan
