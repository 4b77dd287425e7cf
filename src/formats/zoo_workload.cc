#include "src/formats/zoo_workload.h"

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/zoo.h"

namespace memplan {

std::optional<Workload> LoadZooModelWorkload(std::string_view spec, std::string_view name,
                                             const LoadOptions& options) {
  std::optional<Graph> graph = ZooGraph(name);
  if (!graph) return std::nullopt;
  // The built-in models have fixed shapes from end to end; rebinding one tensor would
  // leave the shapes after it wrong.
  if (!options.dims.empty() || !options.shapes.empty())
    throw UsageError(fmt::format(
        "{}: built-in models have fixed shapes; --dim and --shape apply to model files", spec));
  return GraphWorkload(std::move(*graph), spec, "zoo", options);
}

}  // namespace memplan
