#pragma once
// Texture and shape records (include/memplan/texture_records.h) planned with the objects
// strategies TensorFlow Lite GPU has for sizes with dimensions, each plan verified,
// reported as a table, JSON or CSV, and written as a plan file (what `memplan plan` does
// with such records).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/textures.h"

namespace memplan {

// One texture strategy's verified plan.
struct TextureRun {
  std::string strategy;  // e.g. "greedy_in_order"
  TexturePlan plan;      // verified by PlanTextureObjects
  double plan_ms = 0;    // wall time of planning and verification
};

struct TextureRuns {
  std::vector<TextureRun> runs;       // in TextureStrategies order
  std::size_t best = 0;               // fewest elements; ties the first
  std::vector<std::string> left_out;  // strategies a group brought in that cannot plan these
};

// Runs the objects strategies among `keys` (from ExpandStrategies) that plan this kind of
// record. A strategy named explicitly in `requested` (the selection as given) that cannot
// (an offsets strategy, or an objects strategy TensorFlow Lite has no multidimensional
// variant of) is a UsageError naming the ones that can; brought in by a group ("all",
// "objects") it is left out.
TextureRuns RunTextureStrategies(const TextureProblem& problem, std::string_view input,
                                 const std::vector<std::string>& keys,
                                 const std::vector<std::string>& requested);

// The table: a header line, one row per strategy, the best plan's objects.
std::string TextureRunsTable(std::string_view input, const TextureProblem& problem,
                             const TextureRuns& runs);

// {"input", "size_type", "tensors", "dimensions", "results": [{"mode", "strategy",
//  "elements", "objects", "object_dims", "object_ids", "plan_ms"}], "best"}.
nlohmann::ordered_json TextureRunsJson(std::string_view input, const TextureProblem& problem,
                                       const TextureRuns& runs);

// One CSV block: input,mode,strategy,elements,objects,ms.
std::string TextureRunsCsv(std::string_view input, const TextureRuns& runs, bool header);

// The plan file: {"mode": "objects", "size_type", "strategy", "total_elements",
// "objects": [[w, h], ...], "tensors": [{"index", "name", "dims", "first", "last",
// "object"}]}.
nlohmann::ordered_json TexturePlanFileJson(const TextureProblem& problem, const TextureRun& run);

}  // namespace memplan
