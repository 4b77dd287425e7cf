// The list of offset strategies, and PlanOffsets, the one way in that validates the
// problem and verifies the plan.
#include <array>
#include <vector>

#include "memplan/offsets.h"
#include "memplan/strategy_table.h"

namespace memplan {

namespace {

constexpr std::array kStrategies = {
    OffsetStrategy{"naive", "every record its own space, back to back", &PlanNaive},
    OffsetStrategy{"greedy_by_size", "TensorFlow Lite GPU best fit, largest first",
                   &PlanGreedyBySize},
    OffsetStrategy{"tflm_greedy",
                   "TensorFlow Lite Micro GreedyMemoryPlanner: first fit, largest first",
                   &PlanTflmGreedy},
    OffsetStrategy{"tflite_cpu", "TensorFlow Lite CPU ArenaPlanner + SimpleMemoryArena best fit",
                   &PlanTfliteCpu},
    OffsetStrategy{"greedy_in_order", "best fit in execution order (an online allocator)",
                   &PlanGreedyInOrder},
    OffsetStrategy{"greedy_by_breadth", "best fit, busiest steps' records first",
                   &PlanGreedyByBreadth},
    OffsetStrategy{"strip_packing", "skyline rectangle packing (Sekiyama et al. 2018)",
                   &PlanStripPacking},
    OffsetStrategy{"xla_spatial", "XLA heap order: size, then lifetime; best fit", &PlanXlaSpatial},
    OffsetStrategy{"xla_temporal", "XLA heap order: lifetime, then size; best fit",
                   &PlanXlaTemporal},
    OffsetStrategy{"tvm_greedy", "TVM USMP greedy by size, no gap reuse", &PlanTvmGreedy},
    OffsetStrategy{"best", "the smallest of many orders x fits, stops at the lower bound",
                   &PlanBest, &PlanBestReusing},
};

// The strategies of this area, then those registered from areas above it (the exact
// solver's). Built on first use, so registration during static initialization works in
// any order of translation units.
std::vector<OffsetStrategy>& Table() {
  static std::vector<OffsetStrategy> table(kStrategies.begin(), kStrategies.end());
  return table;
}

}  // namespace

std::span<const OffsetStrategy> OffsetStrategies() {
  return Table();
}

const OffsetStrategy* FindOffsetStrategy(std::string_view name) {
  return FindInTable(OffsetStrategies(), name);
}

void RegisterOffsetStrategy(const OffsetStrategy& strategy) {
  if (!FindOffsetStrategy(strategy.name)) Table().push_back(strategy);
}

OffsetPlan PlanOffsets(const Problem& problem, std::string_view name) {
  return PlanOffsets(problem, name, {});
}

OffsetPlan PlanOffsets(const Problem& problem, std::string_view name,
                       std::span<const OffsetPlan> known) {
  const OffsetStrategy& strategy = StrategyNamed(OffsetStrategies(), "offsets", name);
  Validate(problem);
  OffsetPlan plan = RunStrategy(strategy, problem, known, [&](const OffsetPlan& known_plan) {
    return known_plan.offsets.size() == problem.size() &&
           FindViolations(problem, known_plan, 1).empty();
  });
  VerifyOrThrow(problem, plan);
  return plan;
}

}  // namespace memplan
