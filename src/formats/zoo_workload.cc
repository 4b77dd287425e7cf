#include "src/formats/zoo_workload.h"

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/zoo.h"

namespace memplan {

std::optional<Workload> LoadZooModelWorkload(std::string_view spec, std::string_view name,
                                             const LoadOptions& options) {
  std::optional<Graph> graph = ZooGraph(name);
  if (!graph) return std::nullopt;
  // zoo:gpt2 leaves its sequence length open: --dim tokens=N builds it over N tokens
  // (docs/cpu-planner.md: `memplan run zoo:gpt2 --resize tokens=...`).
  if (name == "gpt2" && options.shapes.empty() && options.dims.size() == 1 &&
      options.dims[0].first == "tokens") {
    Graph sized = Gpt2WithTokens(options.dims[0].second);
    sized.source = std::string(spec);
    LoadOptions rest = options;
    rest.dims.clear();
    return GraphWorkload(std::move(sized), spec, "zoo", rest);
  }
  // The built-in models have fixed shapes from end to end; rebinding one tensor would
  // leave the shapes after it wrong.
  if (!options.dims.empty() || !options.shapes.empty())
    throw UsageError(fmt::format(
        "{}: built-in models have fixed shapes (but zoo:gpt2's --dim tokens=N); --dim and "
        "--shape apply to model files",
        spec));
  return GraphWorkload(std::move(*graph), spec, "zoo", options);
}

}  // namespace memplan
