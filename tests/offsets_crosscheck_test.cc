// memplan's indexed strategies against plain O(n^2) versions written from the peers'
// descriptions: the offsets must be identical on many random problems, with alignment,
// fixed offsets, empty records and sparse steps.
#include <gtest/gtest.h>

#include <functional>

#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"
#include "tests/offsets_reference.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

struct Shape {
  const char* label;
  testing::RandomProblemOptions options;
};

// Shapes that exercise every path: dense and sparse steps (the latter renumbered),
// alignment, fixed records, many empty records, long lifetimes.
std::vector<Shape> Shapes() {
  return {
      {"plain", {.records = 80, .steps = 40}},
      {"aligned", {.records = 80, .steps = 40, .alignment = 16}},
      {"fixed", {.records = 80, .steps = 40, .fixed_fraction = 0.2}},
      {"fixed+aligned",
       {.records = 80, .steps = 30, .alignment = 8, .fixed_fraction = 0.3, .zero_fraction = 0.1}},
      {"sparse steps", {.records = 60, .steps = 3000, .alignment = 4, .fixed_fraction = 0.1}},
      {"dense", {.records = 150, .steps = 8, .max_size = 64, .zero_fraction = 0.2}},
      {"tiny sizes", {.records = 80, .steps = 20, .max_size = 3, .alignment = 2}},
  };
}

using Fn = std::function<std::vector<Bytes>(const Problem&)>;

struct Pair {
  const char* name;  // the registered strategy
  Fn reference;      // its plain version
};

class OffsetsCrossCheck : public ::testing::TestWithParam<Pair> {};

TEST_P(OffsetsCrossCheck, SameOffsetsAsThePlainVersion) {
  const Pair& pair = GetParam();
  int compared = 0;
  for (const Shape& shape : Shapes()) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      SCOPED_TRACE(std::string(shape.label) + " seed " + std::to_string(seed));
      const Problem p = testing::RandomProblem(seed, shape.options);
      ASSERT_EQ(PlanOffsets(p, pair.name).offsets, pair.reference(p));
      ++compared;
    }
  }
  EXPECT_GT(compared, 200);
}

INSTANTIATE_TEST_SUITE_P(Strategies, OffsetsCrossCheck,
                         ::testing::Values(Pair{"greedy_by_size", &reference::GreedyBySize},
                                           Pair{"tflm_greedy", &reference::TflmGreedy},
                                           Pair{"tflite_cpu", &reference::TfliteCpu},
                                           Pair{"greedy_in_order", &reference::GreedyInOrder},
                                           Pair{"greedy_by_breadth", &reference::GreedyByBreadth},
                                           Pair{"xla_spatial", &reference::XlaSpatial},
                                           Pair{"xla_temporal", &reference::XlaTemporal},
                                           Pair{"tvm_greedy", &reference::TvmGreedy},
                                           Pair{"strip_packing", &reference::StripPacking}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// Each fit rule of the placer beside the reference walk's rule that means the same.
constexpr std::pair<offsets::Fit, reference::Rule> kFitRules[] = {
    {offsets::Fit::kSmallestGap, reference::Rule::kSmallestGap},
    {offsets::Fit::kLowestGap, reference::Rule::kLowestGap},
    {offsets::Fit::kArena, reference::Rule::kArena},
    {offsets::Fit::kAboveAll, reference::Rule::kAboveAll},
};

// Every way of finding conflicting records (index, list, tree) under every fit rule.
TEST(OffsetsEngines, BothEnginesMatchThePlainWalk) {
  using namespace offsets;
  const auto& rules = kFitRules;
  for (const Shape& shape : Shapes()) {
    for (std::uint64_t seed = 1; seed <= 15; ++seed) {
      SCOPED_TRACE(std::string(shape.label) + " seed " + std::to_string(seed));
      const Problem p = testing::RandomProblem(seed, shape.options);
      const CompactSteps steps = Compact(p);
      const ConflictIndex index(steps);
      for (const auto& order : {SizeOrder(p), StartOrder(p), LifetimeOrder(p)}) {
        for (const auto& [fit, rule] : rules) {
          const auto expected = reference::PlaceByWalking(p, order, rule);
          for (Engine engine : {Engine::kIndex, Engine::kList, Engine::kTree}) {
            Placer placer(p, steps, index, fit != Fit::kArena, engine);
            ASSERT_TRUE(placer.PlaceAll(order, fit));
            ASSERT_EQ(placer.Offsets(), expected)
                << "fit " << static_cast<int>(fit) << " engine " << static_cast<int>(engine);
          }
        }
      }
    }
  }
}

// The tree engine on problems where each record conflicts with hundreds of others (the
// shape of compiler traces), every fit rule, alignment, fixed and empty records: the
// same offsets as the plain walk.
TEST(OffsetsEngines, TreeMatchesThePlainWalkWhenDense) {
  using namespace offsets;
  const auto& rules = kFitRules;
  const testing::RandomProblemOptions shapes[] = {
      {.records = 1500, .steps = 200, .max_size = 5000, .alignment = 1},
      {.records = 1200, .steps = 120, .max_size = 300, .alignment = 16, .zero_fraction = 0.1},
      {.records = 1000, .steps = 300, .alignment = 8, .fixed_fraction = 0.05},
      {.records = 800, .steps = 50000, .max_size = 40, .alignment = 4},
  };
  int shape_number = 0;
  for (const auto& options : shapes) {
    ++shape_number;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE("shape " + std::to_string(shape_number) + " seed " + std::to_string(seed));
      const Problem p = testing::RandomProblem(seed, options);
      const CompactSteps steps = Compact(p);
      const ConflictIndex index(steps);
      for (const auto& order : {SizeOrder(p), StartOrder(p)}) {
        for (const auto& [fit, rule] : rules) {
          Placer placer(p, steps, index, fit != Fit::kArena, Engine::kTree);
          ASSERT_TRUE(placer.PlaceAll(order, fit));
          ASSERT_EQ(placer.Offsets(), reference::PlaceByWalking(p, order, rule))
              << "fit " << static_cast<int>(fit);
        }
      }
    }
  }
}

// One tree placer reused across fit rules of both kinds (as `best` does): Reset makes
// it keep ends the way the next rule reads them.
TEST(OffsetsEngines, TreePlacerReusedAcrossRules) {
  using namespace offsets;
  const Problem p = testing::RandomProblem(7, {.records = 600, .steps = 60, .alignment = 8});
  const CompactSteps steps = Compact(p);
  const ConflictIndex index(steps);
  Placer placer(p, steps, index, true, Engine::kTree);
  const auto order = SizeOrder(p);
  for (const auto& [fit, rule] : {std::pair{Fit::kArena, reference::Rule::kArena},
                                  std::pair{Fit::kSmallestGap, reference::Rule::kSmallestGap},
                                  std::pair{Fit::kArena, reference::Rule::kArena},
                                  std::pair{Fit::kAboveAll, reference::Rule::kAboveAll}}) {
    placer.Reset(fit != Fit::kArena);
    ASSERT_TRUE(placer.PlaceAll(order, fit));
    ASSERT_EQ(placer.Offsets(), reference::PlaceByWalking(p, order, rule));
  }
}

// Renumbering sparse steps keeps every conflict and the order of steps.
TEST(OffsetsEngines, CompactKeepsConflicts) {
  using namespace offsets;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Problem p = testing::RandomProblem(seed, {.records = 50, .steps = 100000});
    const CompactSteps steps = Compact(p);
    ASSERT_LT(steps.count, 4 * 50 + 2);
    for (std::size_t i = 0; i < p.size(); ++i) {
      for (std::size_t j = 0; j < p.size(); ++j) {
        const bool compact = steps.first[i] <= steps.last[j] && steps.first[j] <= steps.last[i];
        ASSERT_EQ(compact, Conflicts(p.records[i], p.records[j])) << i << " " << j;
        ASSERT_EQ(steps.first[i] < steps.first[j], p.records[i].first < p.records[j].first);
      }
    }
  }
}

}  // namespace
}  // namespace memplan
