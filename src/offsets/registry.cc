// The list of offset strategies, and PlanOffsets, the one way in that validates the
// problem and verifies the plan.
#include <array>

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
    OffsetStrategy{"exact", "provably optimal branch and bound (10 s budget)", &PlanExact},
};

}  // namespace

std::span<const OffsetStrategy> OffsetStrategies() { return kStrategies; }

const OffsetStrategy* FindOffsetStrategy(std::string_view name) {
  for (const OffsetStrategy& s : kStrategies)
    if (s.name == name) return &s;
  return nullptr;
}

OffsetPlan PlanOffsets(const Problem& problem, std::string_view name) {
  const OffsetStrategy* strategy = FindOffsetStrategy(name);
  if (!strategy) {
    std::string known;
    for (const OffsetStrategy& s : kStrategies) known += fmt::format(" {}", s.name);
    throw UsageError(fmt::format("unknown offsets strategy '{}'; known:{}", name, known));
  }
  Validate(problem);
  OffsetPlan plan = strategy->plan(problem);
  plan.strategy = std::string(strategy->name);
  VerifyOrThrow(problem, plan);
  return plan;
}

}  // namespace memplan
