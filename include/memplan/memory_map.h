#pragma once
// What a memory map shows: one plan of a workload as rectangles (x = steps a tensor is
// alive, y = its bytes in the arena), with the totals a reader compares it against.
// The SVG and HTML renderers (svg.h, html.h) draw it. An offsets plan is drawn as
// addresses; a shared-objects plan as one lane per object (docs/command.md, "show").

#include <string>
#include <utility>
#include <vector>

#include "memplan/plan.h"
#include "memplan/workload.h"

namespace memplan {

// One plan to draw.
struct MapPlan {
  std::string key;             // "mode/strategy", e.g. "offsets/greedy_by_size"
  std::vector<Bytes> offsets;  // where record i is drawn: its offset, or its object's base
  Bytes bytes = 0;             // the plan's cost: arena bytes, or Σ object sizes
  // Empty: one colour per record. Otherwise the object of each record, so records
  // sharing an object share a colour (shared-objects plans).
  std::vector<std::size_t> groups;
  // Empty for an offsets plan. For a shared-objects plan, the size of every object: the
  // map is drawn as one lane per object, each record a bar in its object's lane.
  std::vector<Bytes> object_sizes = {};
};

// An offsets plan as a map (one colour per tensor).
MapPlan MapOfOffsets(const std::string& key, const OffsetPlan& plan);

// A shared-objects plan as a map: one lane per object, one colour per object. `offsets`
// are the objects stacked in id order (each base aligned), so the plan also reads as
// one arena (TFLM's ASCII map); `bytes` is the top of the stack (Σ object sizes at
// alignment 1). InternalError when an id has no size.
MapPlan MapOfObjects(const std::string& key, const std::vector<std::size_t>& object_of_record,
                     const std::vector<Bytes>& object_sizes, Bytes alignment);

// The figures every map states, computed once per workload.
struct MapTotals {
  Bytes lower_bound = 0;  // offsets lower bound: the peak of live bytes
  Bytes naive = 0;        // Σ sizes (aligned)
  Step steps = 0;         // max(last) + 1; 0 with no records
  std::size_t empty = 0;  // records of size 0 (not drawn)
};

MapTotals ComputeMapTotals(const Problem& problem);

// The live bytes over the steps (sizes rounded up to the alignment, as the lower bound
// counts them): (step, bytes live from that step on) at every step where the total
// changes, in step order, ending with 0 after the last step. Sparse, so any step range
// is cheap.
std::vector<std::pair<Step, Bytes>> LiveBytesChanges(const Problem& problem);

// What runs at each step, for the time axis: the op type ("CONV_2D") and a longer
// description ("#3 CONV_2D 'conv1'", with the subgraph when it is not the entry one).
struct StepLabel {
  std::string type;    // short: the op type, "inputs", or "enter subgraph N"
  std::string detail;  // long: index, type and name
};
// One label per step of workload.step_ops; empty when the workload is not a model.
std::vector<StepLabel> StepLabels(const Workload& workload);

// "producer #3 CONV_2D 'conv1'; consumers #4 ADD, #5 RELU" per record, from the
// workload's graph and origins; empty strings when the workload has no graph.
std::vector<std::string> TensorOpSummaries(const Workload& workload);

}  // namespace memplan
