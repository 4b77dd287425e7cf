// Peak live bytes of an order, the op-local bound and the order search, on graphs built
// by hand and on random DAGs checked against every topological order.
#include <gtest/gtest.h>

#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/schedule.h"
#include "tests/schedule_graphs.h"

namespace memplan {
namespace {

using testing::AllTopologicalOrders;
using testing::RandomDag;
using testing::SimpleRecords;
using testing::SubgraphBuilder;

// Two branches from one input, each a big intermediate shrinking to a small result,
// joined at the end. File order interleaves the branches (breadth first).
Graph Branches() {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 10);
  const std::int32_t a1 = b.Tensor("a1", 100), b1 = b.Tensor("b1", 100);
  const std::int32_t a2 = b.Tensor("a2", 5), b2 = b.Tensor("b2", 5);
  const std::int32_t out = b.Tensor("out", 10);
  const std::int32_t w = b.Constant("w", 4);
  b.Op("CONV_2D", {in, w}, {a1});
  b.Op("CONV_2D", {in, w}, {b1});
  b.Op("CONV_2D", {a1, w}, {a2});
  b.Op("CONV_2D", {b1, w}, {b2});
  b.Op("CONCATENATION", {a2, b2}, {out});
  b.Inputs({in});
  b.Outputs({out});
  return b.graph();
}

TEST(PeakLiveBytes, FollowsTheScopesOfTheOrder) {
  const Graph g = Branches();
  // Steps: 0 in=10; 1 in+a1=110; 2 in+a1+b1=210; 3 a1+b1+a2=205; 4 b1+a2+b2=110; 5 15+10.
  EXPECT_EQ(PeakLiveBytes(g, 0, {}), 210u);
  const std::vector<std::int32_t> depth_first = {0, 2, 1, 3, 4};
  EXPECT_EQ(PeakLiveBytes(g, 0, depth_first), 115u);
  EXPECT_EQ(OpLocalBound(g, 0), 110u);
  // The same figure as the fixed-order lower bound of the records.
  EXPECT_EQ(OffsetsLowerBound(SimpleRecords(g).problem), 210u);
  const std::vector<std::int32_t> bad = {2, 0, 1, 3, 4};
  EXPECT_THROW(PeakLiveBytes(g, 0, bad), InputError);
  const std::vector<std::int32_t> short_order = {0, 1};
  EXPECT_THROW(PeakLiveBytes(g, 0, short_order), InputError);
}

TEST(OrderSearch, FindsTheDepthFirstOrderAndProvesIt) {
  const Graph g = Branches();
  const OrderSearchResult r = SearchOperatorOrder(g);
  ASSERT_EQ(r.subgraphs.size(), 1u);
  const SubgraphOrder& s = r.subgraphs[0];
  EXPECT_EQ(s.file_order_peak, 210u);
  EXPECT_EQ(s.peak, 115u);
  EXPECT_TRUE(s.changed);
  EXPECT_TRUE(s.proven_optimal);
  EXPECT_TRUE(r.proven_optimal);
  EXPECT_EQ(PeakLiveBytes(g, 0, s.order), 115u);
  const Graph reordered = ReorderOperators(g, r);
  EXPECT_EQ(PeakLiveBytes(reordered, 0, {}), 115u);
  EXPECT_EQ(OffsetsLowerBound(SimpleRecords(reordered).problem), 115u);
  EXPECT_EQ(reordered.subgraphs[0].tensors.size(), g.subgraphs[0].tensors.size());
}

TEST(OrderSearch, KeepsTheFileOrderWhenTheBoundProvesIt) {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 8), x = b.Tensor("x", 64), out = b.Tensor("out", 8);
  const std::int32_t w = b.Constant("w", 4);
  b.Op("CONV_2D", {in, w}, {x});
  b.Op("CONV_2D", {x, w}, {out});
  b.Inputs({in});
  b.Outputs({out});
  const OrderSearchResult r = SearchOperatorOrder(b.graph());
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(r.proven_optimal);
  EXPECT_EQ(r.subgraphs[0].order, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(r.subgraphs[0].method, "file order (op-local bound)");
  EXPECT_EQ(r.subgraphs[0].states, 0u);
}

TEST(OrderSearch, WeightOnlyOpsMoveNextToTheirReader) {
  // Float16 weights expanded up front (as some converters emit them) stay alive through
  // the whole graph; right before their reader they cost nothing extra.
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 16);
  const std::int32_t w16 = b.Constant("w16", 50), wf = b.Tensor("wf", 100);
  const std::int32_t x = b.Tensor("x", 200), y = b.Tensor("y", 16), out = b.Tensor("out", 16);
  b.Op("DEQUANTIZE", {w16}, {wf});
  b.Op("CONV_2D", {in}, {x});
  b.Op("CONV_2D", {x}, {y});
  b.Op("CONV_2D", {y, wf}, {out});
  b.Inputs({in});
  b.Outputs({out});
  const Graph& g = b.graph();
  EXPECT_EQ(PeakLiveBytes(g, 0, {}), 316u);
  const OrderSearchResult r = SearchOperatorOrder(g);
  EXPECT_EQ(r.subgraphs[0].order, (std::vector<std::int32_t>{1, 2, 0, 3}));
  EXPECT_EQ(r.subgraphs[0].peak, 216u);
  EXPECT_TRUE(r.proven_optimal);
}

TEST(OrderSearch, InPlaceRulesChangeWhatIsOptimal) {
  // x is read by a RELU and a CONV: with in-place rules the RELU should run last.
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 8), x = b.Tensor("x", 64), r = b.Tensor("r", 64),
                     c = b.Tensor("c", 8), o1 = b.Tensor("o1", 8);
  const std::int32_t w = b.Constant("w", 4);
  b.Op("CONV_2D", {in, w}, {x});
  b.Op("RELU", {x}, {r});
  b.Op("CONV_2D", {x, w}, {c});
  b.Op("CONV_2D", {r, c}, {o1});
  b.Inputs({in});
  b.Outputs({o1});
  const Graph& g = b.graph();
  const InPlaceRuleSet& all = InPlaceRuleSetNamed("all");
  EXPECT_EQ(PeakLiveBytes(g, 0, {}, nullptr), 136u);
  EXPECT_EQ(PeakLiveBytes(g, 0, {}, &all), 136u);
  OrderSearchOptions options;
  options.inplace = &all;
  const OrderSearchResult best = SearchOperatorOrder(g, options);
  EXPECT_EQ(best.subgraphs[0].order, (std::vector<std::int32_t>{0, 2, 1, 3}));
  EXPECT_EQ(best.subgraphs[0].peak, 80u);
  EXPECT_TRUE(best.proven_optimal);
  // Without in place that order gains nothing: the file order is kept.
  const OrderSearchResult plain = SearchOperatorOrder(g);
  EXPECT_FALSE(plain.changed);
  EXPECT_EQ(plain.subgraphs[0].peak, 136u);
}

// The exact search against every topological order of small random DAGs.
class RandomDags : public ::testing::TestWithParam<int> {};

TEST_P(RandomDags, SearchMatchesBruteForce) {
  const std::vector<const InPlaceRuleSet*> sets = {nullptr, &InPlaceRuleSetNamed("tflite"),
                                                   &InPlaceRuleSetNamed("tflm"),
                                                   &InPlaceRuleSetNamed("all")};
  for (int round = 0; round < 12; ++round) {
    const std::uint64_t seed =
        static_cast<std::uint64_t>(GetParam()) * 1000 + static_cast<std::uint64_t>(round);
    const Graph g = RandomDag(seed, 3 + seed % 6);
    const auto orders = AllTopologicalOrders(g);
    ASSERT_FALSE(orders.empty());
    for (const InPlaceRuleSet* rules : sets) {
      Bytes best = ~Bytes{0};
      for (const auto& order : orders) best = std::min(best, PeakLiveBytes(g, 0, order, rules));
      OrderSearchOptions options;
      options.inplace = rules;
      const OrderSearchResult r = SearchOperatorOrder(g, options);
      const SubgraphOrder& s = r.subgraphs[0];
      const std::string what =
          "seed " + std::to_string(seed) + " rules " + (rules ? rules->name : "none");
      EXPECT_EQ(s.peak, best) << what;
      EXPECT_TRUE(s.proven_optimal) << what;
      EXPECT_EQ(PeakLiveBytes(g, 0, s.order, rules), s.peak) << what;
      EXPECT_EQ(s.file_order_peak, PeakLiveBytes(g, 0, {}, rules)) << what;
      EXPECT_LE(s.peak, s.file_order_peak) << what;
      EXPECT_GE(s.peak, s.lower_bound) << what;
      EXPECT_EQ(s.lower_bound, OpLocalBound(g, 0, rules)) << what;
      if (!s.changed) EXPECT_EQ(s.peak, s.file_order_peak) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomDags, ::testing::Range(1, 9));

TEST(OrderSearch, BeamSearchPastTheStateCapIsNeverWorseButNotProven) {
  for (std::uint64_t seed = 1; seed < 40; ++seed) {
    const Graph g = RandomDag(seed, 14);
    OrderSearchOptions options;
    options.max_states = 1;
    options.beam_width = 2;
    const OrderSearchResult r = SearchOperatorOrder(g, options);
    const SubgraphOrder& s = r.subgraphs[0];
    EXPECT_LE(s.peak, s.file_order_peak) << seed;
    EXPECT_EQ(PeakLiveBytes(g, 0, s.order), s.peak) << seed;
    const OrderSearchResult exact = SearchOperatorOrder(g);
    EXPECT_TRUE(exact.proven_optimal) << seed;
    EXPECT_LE(exact.subgraphs[0].peak, s.peak) << seed;
    if (!s.proven_optimal) EXPECT_GT(s.peak, s.lower_bound) << seed;
  }
}

TEST(OrderSearch, ProvenOrdersOfLargerRandomGraphsAreValid) {
  for (std::uint64_t seed = 100; seed < 110; ++seed) {
    const Graph g = RandomDag(seed, 30);
    const InPlaceRuleSet& all = InPlaceRuleSetNamed("all");
    OrderSearchOptions options;
    options.inplace = &all;
    options.max_states = 20000;
    const SubgraphOrder s = SearchOperatorOrder(g, options).subgraphs[0];
    EXPECT_EQ(PeakLiveBytes(g, 0, s.order, &all), s.peak) << seed;
    EXPECT_LE(s.peak, s.file_order_peak) << seed;
  }
}

TEST(OrderSearch, StatefulOpsKeepTheirOrder) {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 8);
  const std::int32_t var = b.Tensor("state", 8);
  b.sub().tensors[static_cast<std::size_t>(var)].is_variable = true;
  const std::int32_t big = b.Tensor("big", 100), read = b.Tensor("read", 8),
                     out = b.Tensor("out", 8);
  b.Op("ASSIGN_VARIABLE", {var, in}, {});
  b.Op("CONV_2D", {in}, {big});
  b.Op("READ_VARIABLE", {var}, {read});
  b.Op("ADD", {big, read}, {out});
  b.Inputs({in});
  b.Outputs({out});
  const OrderSearchResult r = SearchOperatorOrder(b.graph());
  const auto& order = r.subgraphs[0].order;
  const auto pos = [&](std::int32_t op) {
    return std::find(order.begin(), order.end(), op) - order.begin();
  };
  EXPECT_LT(pos(0), pos(2));
}

TEST(OrderSearch, EverySubgraphIsOrderedAndCalledPeaksCount) {
  Graph g = Branches();
  g.subgraphs.push_back(Branches().subgraphs[0]);
  // Subgraph 0 calls subgraph 1 from a new op at the end: its peak adds there.
  Subgraph& main = g.subgraphs[0];
  Tensor t;
  t.name = "after";
  t.type = DataType::kUInt8;
  t.shape = {10};
  t.bytes = 10;
  main.tensors.push_back(t);
  Operator call;
  call.type = "CALL";
  call.inputs = {main.outputs[0]};
  call.outputs = {static_cast<std::int32_t>(main.tensors.size() - 1)};
  call.called_subgraphs = {1};
  main.ops.push_back(call);
  main.outputs = call.outputs;
  const OrderSearchResult r = SearchOperatorOrder(g);
  ASSERT_EQ(r.subgraphs.size(), 2u);
  EXPECT_EQ(r.subgraphs[1].peak, 115u);
  EXPECT_TRUE(r.subgraphs[1].proven_optimal);
  // The call's step holds its input, its output and subgraph 1's file-order peak.
  EXPECT_EQ(r.subgraphs[0].lower_bound, 10u + 10u + 210u);
  EXPECT_FALSE(r.subgraphs[0].proven_optimal);
  EXPECT_FALSE(r.proven_optimal);
  const Graph reordered = ReorderOperators(g, r);
  EXPECT_EQ(PeakLiveBytes(reordered, 1, {}), 115u);
  EXPECT_EQ(reordered.subgraphs[0].ops.back().type, "CALL");
}

TEST(OrderSearch, OpsOutOfOrderAreAnInputError) {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 8), x = b.Tensor("x", 8), y = b.Tensor("y", 8);
  b.Op("RELU", {x}, {y});
  b.Op("RELU", {in}, {x});
  b.Inputs({in});
  b.Outputs({y});
  EXPECT_THROW(SearchOperatorOrder(b.graph()), InputError);
  EXPECT_THROW(PeakLiveBytes(b.graph(), 0, {}), InputError);
}

}  // namespace
}  // namespace memplan
