#include "src/formats/zoo_workload.h"

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/zoo.h"

namespace memplan {

std::optional<Workload> LoadZooModelWorkload(std::string_view spec, std::string_view name,
                                             const LoadOptions& options) {
  std::optional<Graph> graph = ZooGraph(name);
  if (!graph) return std::nullopt;
  // zoo:gpt2 leaves its sequence length open and zoo:conformer_s its frame count: --dim
  // NAME=N builds it at N (docs/cpu-planner.md: `memplan run zoo:gpt2 --resize tokens=...`).
  if (options.shapes.empty() && options.dims.size() == 1) {
    Graph sized = *ZooGraphWith(name, options.dims[0].first, options.dims[0].second);
    sized.source = std::string(spec);
    LoadOptions rest = options;
    rest.dims.clear();
    return GraphWorkload(std::move(sized), spec, "zoo", rest);
  }
  // The built-in models have fixed shapes from end to end; rebinding one tensor would
  // leave the shapes after it wrong.
  if (!options.dims.empty() || !options.shapes.empty())
    throw UsageError(
        fmt::format("{}: built-in models have fixed shapes (but one dimension binding for the "
                    "dimension a model leaves open: zoo:gpt2 tokens=N, zoo:conformer_s frames=N); "
                    "shape bindings apply to model files",
                    spec));
  return GraphWorkload(std::move(*graph), spec, "zoo", options);
}

}  // namespace memplan
