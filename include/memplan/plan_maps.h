#pragma once
// Plans as memory maps (include/memplan/memory_map.h), as `memplan show` draws them: a run of
// the pipeline as a map, a text summary of one map against the bounds, the stage of a model
// `memplan split` wrote as a band, and texture records' plans as lanes of bytes (or of
// elements, when the records do not know their element's bytes).
#include <optional>
#include <string>
#include <vector>

#include "memplan/memory_map.h"
#include "memplan/pipeline.h"
#include "memplan/texture_runs.h"
#include "memplan/workload.h"

namespace memplan {

// An offsets plan as addresses, an objects plan as lanes laid out back to back; nullopt for
// a run without a plan.
std::optional<MapPlan> MapOfRun(const StrategyRun& run, Bytes alignment);

// "label: N tensors, S steps, ..., alignment A" and the map's arena against the lower bound
// and the naive layout (for an objects plan, its objects first).
std::string MapSummary(const Workload& workload, const MapPlan& plan);

// A model `memplan split` wrote: its stage (the ops that run patch by patch) as a band of
// steps; nothing for other workloads.
void MarkSplitStage(Workload& workload);

// Texture or shape records as records of bytes: each record's elements times the element's
// bytes when known (a model's GPU objects), else its element count; named with its dims.
Workload TextureElementsWorkload(const Workload& textures, std::string label);

// Each texture run as lanes, one per object, in the units of TextureElementsWorkload.
std::vector<MapPlan> TextureMaps(const TextureProblem& problem, const TextureRuns& runs);

}  // namespace memplan
