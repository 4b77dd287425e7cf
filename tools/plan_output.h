#pragma once
// What `memplan plan` prints (table, JSON, CSV) and what --out writes.
#include <nlohmann/json.hpp>
#include <string>

#include "memplan/pipeline.h"

namespace memplan::cli {

// The summary JSON of one workload: {"input", "tensors", ..., "results", "best"}.
nlohmann::ordered_json RunsJson(const Workload& workload, const Runs& runs);

// The human table of one workload, with a header line.
std::string RunsTable(const Workload& workload, const Runs& runs);

// One CSV block: a header line (when `header`) and a line per strategy.
std::string RunsCsv(const Workload& workload, const Runs& runs, bool header);

// One tensor of a plan file: index, name, subgraph and tensor (models), size, first, last;
// the caller adds where it lives ("offset" or "object").
nlohmann::ordered_json PlanTensorJson(const Workload& workload, const Problem& problem,
                                      std::size_t i);

// The plan file of one run: {"mode": "offsets", "strategy", "arena_bytes", ...} or
// {"mode": "objects", "strategy", "total_bytes", "objects": [sizes], "tensors": [...]}.
nlohmann::ordered_json PlanFileJson(const Workload& workload, const StrategyRun& run);

}  // namespace memplan::cli
