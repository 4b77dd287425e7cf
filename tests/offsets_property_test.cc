// Every offsets strategy on seeded random problems: plans verify, stay between the
// lower bound and the naive cost, keep fixed offsets, and are deterministic.
#include <gtest/gtest.h>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

struct Shape {
  const char* label;
  testing::RandomProblemOptions options;
};

class OffsetsProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(OffsetsProperty, PlansAreValidBoundedAndDeterministic) {
  const std::string name = GetParam();
  const Shape shapes[] = {
      {"plain", {.records = 60, .steps = 30}},
      {"aligned", {.records = 60, .steps = 30, .alignment = 16}},
      {"fixed", {.records = 60, .steps = 30, .fixed_fraction = 0.2}},
      {"fixed+aligned", {.records = 60, .steps = 30, .alignment = 8, .fixed_fraction = 0.3}},
      {"long-lived", {.records = 120, .steps = 8, .max_size = 64}},
  };
  // `best` runs many strategies plus searches; its members get the full count.
  const std::uint64_t seeds = name == "best" ? 8 : 40;
  for (const Shape& shape : shapes) {
    // The exact solver spends up to its node budget on each problem: fewer seeds.
    for (std::uint64_t seed = 1; seed <= (name == "exact" ? std::uint64_t{2} : seeds); ++seed) {
      SCOPED_TRACE(std::string(shape.label) + " seed " + std::to_string(seed));
      const Problem p = testing::RandomProblem(seed, shape.options);
      const OffsetPlan plan = PlanOffsets(p, name);  // verifies, throws if invalid
      EXPECT_GE(plan.arena_bytes + (p.alignment - 1), OffsetsLowerBound(p) - 0);
      if (!p.HasFixed()) EXPECT_LE(plan.arena_bytes, NaiveBytes(p) + p.alignment * p.size());
      for (std::size_t i = 0; i < p.size(); ++i)
        if (p.IsFixed(i)) EXPECT_EQ(plan.offsets[i], *p.fixed_offsets[i]);
      EXPECT_EQ(PlanOffsets(p, name).offsets, plan.offsets);
    }
  }
}

std::vector<std::string> AllNames() {
  std::vector<std::string> names;
  for (const OffsetStrategy& s : OffsetStrategies()) names.emplace_back(s.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(AllOffsetStrategies, OffsetsProperty, ::testing::ValuesIn(AllNames()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace memplan
