// The list of offset strategies, and PlanOffsets, the one way in that validates the
// problem and verifies the plan.
#include <array>
#include <vector>

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/exact.h"
#include "memplan/offsets.h"

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
                   &PlanBest},
    OffsetStrategy{"exact", "provably optimal branch and bound (10 s budget)", &PlanExact},
};

}  // namespace

std::span<const OffsetStrategy> OffsetStrategies() {
  return kStrategies;
}

const OffsetStrategy* FindOffsetStrategy(std::string_view name) {
  for (const OffsetStrategy& s : kStrategies)
    if (s.name == name) return &s;
  return nullptr;
}

OffsetPlan PlanOffsets(const Problem& problem, std::string_view name) {
  return PlanOffsets(problem, name, {});
}

OffsetPlan PlanOffsets(const Problem& problem, std::string_view name,
                       std::span<const OffsetPlan> known) {
  const OffsetStrategy* strategy = FindOffsetStrategy(name);
  if (!strategy) {
    std::string names;
    for (const OffsetStrategy& s : kStrategies) names += fmt::format(" {}", s.name);
    throw UsageError(fmt::format("unknown offsets strategy '{}'; known:{}", name, names));
  }
  Validate(problem);
  // A known plan is taken only once it checks out against this problem.
  std::vector<OffsetPlan> usable;
  for (const OffsetPlan& plan : known)
    if (plan.offsets.size() == problem.size() && FindViolations(problem, plan, 1).empty())
      usable.push_back(plan);
  OffsetPlan plan = name == "best" && !usable.empty() ? PlanBestReusing(problem, usable)
                                                      : strategy->plan(problem);
  plan.strategy = std::string(strategy->name);
  VerifyOrThrow(problem, plan);
  return plan;
}

}  // namespace memplan
