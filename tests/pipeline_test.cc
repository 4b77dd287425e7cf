// The pipeline as a library user calls it (include/memplan/pipeline.h): strategy
// selections, runs on a workload, variants; and the typed strategy tables it reads.
#include <gtest/gtest.h>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/offsets.h"
#include "memplan/pipeline.h"

namespace memplan {
namespace {

Workload SmallWorkload() {
  Workload w;
  w.label = "small";
  w.kind = "records";
  w.problem.records = {{100, 0, 1}, {60, 1, 2}, {100, 2, 3}, {20, 0, 3}, {40, 3, 4}};
  w.problem.alignment = 4;
  return w;
}

TEST(Pipeline, GroupsExpandToEveryStrategyOfTheTables) {
  const std::vector<std::string> keys = ExpandStrategies({"offsets"});
  EXPECT_EQ(keys.size(), OffsetStrategies().size());
  // "exact" is registered from above the offsets area and listed last.
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys.back(), "offsets/exact");
  EXPECT_EQ(ExpandStrategies({"greedy_by_size"}),
            (std::vector<std::string>{"offsets/greedy_by_size"}));
  EXPECT_EQ(ExpandStrategies({"equality"}), (std::vector<std::string>{"objects/equality"}));
  EXPECT_THROW(ExpandStrategies({"offsets/nosuch"}), UsageError);
}

TEST(Pipeline, RunsAreVerifiedAndTheBestIsTheSmallest) {
  const Workload w = SmallWorkload();
  const Runs runs = RunStrategies(w, ExpandStrategies({"all"}));
  ASSERT_EQ(runs.runs.size(), OffsetStrategies().size() + ObjectStrategies().size());
  EXPECT_EQ(runs.lower_bound_bytes, OffsetsLowerBound(w.problem));
  for (const StrategyRun& run : runs.runs) {
    SCOPED_TRACE(run.Key());
    EXPECT_GE(run.bytes, runs.runs[runs.best].bytes);
    if (run.offsets) EXPECT_TRUE(FindViolations(w.problem, *run.offsets, 1).empty());
    if (run.objects) EXPECT_TRUE(FindObjectViolations(w.problem, *run.objects, 1).empty());
  }
  EXPECT_EQ(runs.runs[runs.best].mode, "offsets");
}

TEST(Pipeline, TablesCarryReuseAndGroupLimits) {
  EXPECT_NE(FindOffsetStrategy("best")->reuse, nullptr);
  EXPECT_EQ(FindOffsetStrategy("greedy_by_size")->reuse, nullptr);
  EXPECT_NE(FindObjectStrategy("best")->reuse, nullptr);
  EXPECT_NE(FindObjectStrategy("greedy_best")->reuse, nullptr);
  EXPECT_EQ(FindObjectStrategy("min_cost_flow")->group_limit, 10000u);
  for (const OffsetStrategy& s : OffsetStrategies()) EXPECT_EQ(s.group_limit, 0u) << s.name;
}

TEST(Pipeline, VariantsNeedAModelAndNameNoFlag) {
  const Workload w = SmallWorkload();
  EXPECT_TRUE(BuildVariants(w, {}).list.empty());
  try {
    BuildVariants(w, {"tflm", false, false});
    FAIL() << "records have no operators";
  } catch (const UsageError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("need a model"), std::string::npos) << message;
    EXPECT_EQ(message.find("--"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace memplan
