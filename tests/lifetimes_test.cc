// TFLM's AllocationInfoBuilder lifetimes (tflm_allocation_info.json, micro_allocator_test
// graphs) and the intermediates-only accounting, on graphs written to .tflite and read
// back, so every test goes file -> reader -> Graph -> records.
#include <gtest/gtest.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/offsets.h"
#include "tests/graph_builder.h"
#include "tests/test_support.h"
#include "tests/tflite_roundtrip.h"

namespace memplan {
namespace {

using testing::GraphBuilder;
using testing::ThroughTflite;
using Lifetimes = std::vector<std::pair<Step, Step>>;

Lifetimes FirstLast(const std::vector<TensorLifetime>& lifetimes) {
  Lifetimes out;
  for (const TensorLifetime& l : lifetimes) out.emplace_back(l.first, l.last);
  return out;
}

std::vector<bool> NeedsAllocating(const std::vector<TensorLifetime>& lifetimes) {
  std::vector<bool> out;
  for (const TensorLifetime& l : lifetimes) out.push_back(l.needs_allocating);
  return out;
}

Lifetimes TflmOf(const Graph& g) {
  return FirstLast(TflmLifetimes(ThroughTflite(g).graph));
}

// TestSingleSubgraph (SimpleMockModel): input t0 int32[1], constant t1, two ops both
// reading (t0, t1), outputs t2 and t3.
Graph SimpleMockModel() {
  GraphBuilder b;
  const auto t0 = b.Typed("t0", DataType::kInt32, {1});
  const auto t1 = b.Constant("t1", 1);
  const auto t2 = b.Typed("t2", DataType::kInt32, {1});
  const auto t3 = b.Typed("t3", DataType::kInt32, {1});
  b.Inputs({t0}).Outputs({t2, t3});
  b.Op("CUSTOM", {t0, t1}, {t2}).Op("CUSTOM", {t0, t1}, {t3});
  return b.Build();
}

// IF over a then (ADD) and an else (MUL, or nothing) subgraph.
Graph ModelWithIf(bool empty_else) {
  GraphBuilder b;
  const auto cond = b.Typed("cond", DataType::kBool, {1});
  const auto a = b.Typed("a", DataType::kFloat32, {1, 2});
  const auto c = b.Typed("b", DataType::kFloat32, {1, 2});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 2});
  b.Inputs({cond, a, c}).Outputs({out}).Op("IF", {cond, a, c}, {out}, {1, 2});
  for (int branch = 1; branch <= 2; ++branch) {
    b.NextSubgraph();
    const auto x = b.Typed("x", DataType::kFloat32, {1, 2});
    const auto y = b.Typed("y", DataType::kFloat32, {1, 2});
    const auto z = b.Typed("z", DataType::kFloat32, {1, 2});
    b.Inputs({x, y}).Outputs({z});
    if (branch == 1 || !empty_else) b.Op(branch == 1 ? "ADD" : "MUL", {x, y}, {z});
  }
  return b.Build();
}

TEST(TflmLifetimes, SingleSubgraph) {
  EXPECT_EQ(TflmOf(SimpleMockModel()), (Lifetimes{{0, 2}, {-1, 2}, {1, 2}, {2, 2}}));
}

TEST(TflmLifetimes, SingleSubgraphWithEmptyIntermediate) {
  GraphBuilder b;
  const auto t0 = b.Tensor("t0", 3), t1 = b.Tensor("t1", 3);
  const auto t2 = b.Typed("t2", DataType::kInt32, {1});
  const auto t3 = b.Typed("t3", DataType::kFloat32, {0});
  b.Inputs({t0}).Outputs({t1, t2}).Op("CUSTOM", {t0}, {t1, t2}, {}, {t3});
  const auto lifetimes = TflmLifetimes(ThroughTflite(b.Build()).graph);
  EXPECT_EQ(FirstLast(lifetimes), (Lifetimes{{0, 1}, {1, 1}, {1, 1}, {-1, -1}}));
  EXPECT_EQ(NeedsAllocating(lifetimes), (std::vector<bool>{true, true, true, false}));
}

TEST(TflmLifetimes, IfStepsIntoBothBranches) {
  EXPECT_EQ(
      TflmOf(ModelWithIf(false)),
      (Lifetimes{{0, 5}, {0, 5}, {0, 5}, {1, 5}, {2, 3}, {2, 3}, {3, 3}, {4, 5}, {4, 5}, {5, 5}}));
}

TEST(TflmLifetimes, IfWithEmptyElseBranch) {
  EXPECT_EQ(
      TflmOf(ModelWithIf(true)),
      (Lifetimes{{0, 4}, {0, 4}, {0, 4}, {1, 4}, {2, 3}, {2, 3}, {3, 3}, {4, 4}, {4, 4}, {4, 4}}));
}

TEST(TflmLifetimes, WhileAndCallOnceStepIntoTheirSubgraphs) {
  GraphBuilder b;
  const auto x = b.Tensor("x", 16), y = b.Tensor("y", 16);
  b.Inputs({x}).Outputs({y}).Op("CALL_ONCE", {}, {}, {2}).Op("WHILE", {x}, {y}, {1, 2});
  for (int s = 1; s <= 2; ++s) {
    b.NextSubgraph();
    const auto in = b.Tensor("in", 16), out = b.Tensor("out", 16);
    b.Inputs({in}).Outputs({out}).Op("ABS", {in}, {out});
  }
  // op0 CALL_ONCE: scope 1, subgraph 2 at 2 (its op at 3); op1 WHILE: scope 4, cond
  // (subgraph 1) at 5 (op 6), body (subgraph 2 again) at 7 (op 8).
  EXPECT_EQ(TflmOf(b.Build()), (Lifetimes{{0, 8}, {4, 8}, {5, 6}, {6, 6}, {2, 8}, {3, 8}}));
}

TEST(TflmLifetimes, UnusedTensorsAndOutputsOfEmptyGraph) {
  GraphBuilder b;
  const auto a = b.Tensor("a", 64), c = b.Tensor("b", 64), out = b.Tensor("out", 64);
  b.Tensor("unused", 64);
  b.Inputs({a, c}).Outputs({out}).Op("CUSTOM", {a}, {out});
  const GraphRecords r = RecordsFromGraph(ThroughTflite(b.Build()).graph);
  // TFLM: [0,1] [0,0] [1,1] [-1,-1]; the planner gets -1, memplan shifts all by one.
  EXPECT_EQ(r.step_shift, 1);
  EXPECT_EQ(r.problem.records,
            (std::vector<UsageRecord>{{64, 1, 2}, {64, 1, 1}, {64, 2, 2}, {64, 0, 0}}));
}

TEST(TflmRecords, SkipConstantsVariablesAndEmptyRoundTo16) {
  GraphBuilder b;
  const auto in = b.Tensor("in", 5), w = b.Constant("w", 100), v = b.Variable("state", 40);
  const auto empty = b.Typed("empty", DataType::kFloat32, {0, 3});
  const auto out = b.Typed("out", DataType::kInt4, {3});  // 2 bytes, rounded to 16
  b.Inputs({in}).Outputs({out}).Op("SVDF", {in, w, v}, {out, empty});
  const GraphRecords r = RecordsFromGraph(ThroughTflite(b.Build()).graph);
  EXPECT_EQ(r.problem.names, (std::vector<std::string>{"in", "out"}));
  EXPECT_EQ(r.problem.records, (std::vector<UsageRecord>{{16, 0, 1}, {16, 1, 1}}));
  EXPECT_EQ(r.problem.alignment, 16u);
  EXPECT_EQ(r.ops, 1u);
  EXPECT_EQ(r.origins[1], (TensorRef{0, 4}));
}

TEST(TflmRecords, OfflineOffsetsBecomeFixedAndPlanVariables) {
  GraphBuilder b;
  const auto in = b.Tensor("in", 48), v = b.Variable("state", 32), out = b.Tensor("out", 48);
  b.Inputs({in}).Outputs({out}).Op("SVDF", {in, v}, {out});
  TfliteWriteOptions w;
  w.offline_offsets = std::vector<std::int32_t>{0, 64, -1};
  const TfliteModel m = ThroughTflite(b.Build(), w);
  ASSERT_TRUE(m.offline_plan);
  EXPECT_EQ(m.offline_plan->version, 1u);
  EXPECT_EQ(m.offline_plan->subgraphs, 1u);
  EXPECT_EQ(m.offline_plan->offsets, (std::vector<std::int32_t>{0, 64, -1}));
  const GraphRecords r = RecordsFromGraph(m.graph);
  // The variable has an offline offset, so TFLM plans it in the head.
  EXPECT_EQ(r.problem.names, (std::vector<std::string>{"in", "state", "out"}));
  EXPECT_EQ(r.problem.fixed_offsets,
            (std::vector<std::optional<Bytes>>{Bytes{0}, Bytes{64}, std::nullopt}));
  // Without the offline plan, the paper's accounting and TFLM leave the variable out.
  EXPECT_EQ(RecordsFromGraph(ThroughTflite(b.Build()).graph).problem.size(), 2u);
}

TEST(TflmRecords, NonEmptyIntermediatesAreRefusedAsTflmDoes) {
  GraphBuilder b;
  const auto in = b.Tensor("in", 8), scratch = b.Tensor("gate", 12), out = b.Tensor("out", 8);
  b.Inputs({in}).Outputs({out}).Op("UNIDIRECTIONAL_SEQUENCE_LSTM", {in}, {out}, {}, {scratch});
  const Graph g = ThroughTflite(b.Build()).graph;
  try {
    RecordsFromGraph(g);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("intermediate tensor 'gate' (#1) has 12 bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(RecordsFromGraph(g, {Accounting::kIntermediatesOnly}));
}

TEST(StepOps, TflmStepsNameTheOpOrTheSubgraphEntered) {
  GraphBuilder b;
  const auto x = b.Tensor("x", 16), y = b.Tensor("y", 16);
  b.Inputs({x}).Outputs({y}).Op("CALL_ONCE", {}, {}, {2}).Op("WHILE", {x}, {y}, {1, 2});
  for (int s = 1; s <= 2; ++s) {
    b.NextSubgraph();
    const auto in = b.Tensor("in", 16), out = b.Tensor("out", 16);
    b.Inputs({in}).Outputs({out}).Op("ABS", {in}, {out});
  }
  // The scopes of WhileAndCallOnceStepIntoTheirSubgraphs: 0 inputs, 1 CALL_ONCE, 2 enter
  // subgraph 2, 3 its ABS, 4 WHILE, 5 enter cond, 6 its ABS, 7 enter body, 8 its ABS.
  const GraphRecords r = RecordsFromGraph(ThroughTflite(b.Build()).graph);
  EXPECT_EQ(r.step_ops,
            (std::vector<StepOp>{
                {-1, -1}, {0, 0}, {2, -1}, {2, 0}, {0, 1}, {1, -1}, {1, 0}, {2, -1}, {2, 0}}));
  Step last = 0;
  for (const UsageRecord& rec : r.problem.records) last = std::max(last, rec.last);
  EXPECT_EQ(static_cast<std::size_t>(last) + 1, r.step_ops.size());
}

TEST(StepOps, ShiftedTflmStepsAndOpIndicesOfIntermediatesOnly) {
  GraphBuilder b;
  const auto a = b.Tensor("a", 64), c = b.Tensor("b", 64), out = b.Tensor("out", 64);
  b.Tensor("unused", 64);
  b.Inputs({a, c}).Outputs({out}).Op("CUSTOM", {a}, {out});
  const Graph g = ThroughTflite(b.Build()).graph;
  // Shifted by one (an unused tensor): step 0 is TFLM's -1, step 1 the inputs.
  EXPECT_EQ(RecordsFromGraph(g).step_ops, (std::vector<StepOp>{{-1, -1}, {-1, -1}, {0, 0}}));
  // Op indices: step 0 is the first op.
  EXPECT_EQ(RecordsFromGraph(g, {Accounting::kIntermediatesOnly}).step_ops,
            (std::vector<StepOp>{{0, 0}}));
}

TEST(IntermediatesOnly, ProducerToLastConsumerRawSizes) {
  GraphBuilder b;
  const auto in = b.Tensor("in", 10), w = b.Constant("w", 4);
  const auto a = b.Tensor("a", 7), c = b.Tensor("c", 9), d = b.Tensor("d", 11);
  const auto out = b.Tensor("out", 3);
  b.Inputs({in}).Outputs({out});
  b.Op("CONV_2D", {in, w}, {a})
      .Op("RELU", {a}, {c})
      .Op("ADD", {a, c}, {d})
      .Op("SOFTMAX", {d}, {out});
  const GraphRecords r =
      RecordsFromGraph(ThroughTflite(b.Build()).graph, {Accounting::kIntermediatesOnly});
  EXPECT_EQ(r.problem.names, (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(r.problem.records, (std::vector<UsageRecord>{{7, 0, 2}, {9, 1, 2}, {11, 2, 3}}));
  EXPECT_EQ(r.problem.alignment, 1u);
  EXPECT_EQ(r.ops, 4u);
}

// --- shared/conformance: every expectation of tflm_allocation_info.json -----------------

Graph GraphFromConformance(const nlohmann::json& model) {
  GraphBuilder b;
  bool first = true;
  for (const auto& sg : model["subgraphs"]) {
    if (!first) b.NextSubgraph();
    first = false;
    int k = 0;
    for (const auto& t : sg["tensors"]) {
      const std::string name = "t" + std::to_string(k++);
      if (t.value("const", false))
        b.Constant(name, t["bytes"].get<std::int64_t>());
      else
        b.Tensor(name, t["bytes"].get<std::int64_t>());
    }
    b.Inputs(sg["inputs"].get<std::vector<std::int32_t>>());
    b.Outputs(sg["outputs"].get<std::vector<std::int32_t>>());
    for (const auto& op : sg["ops"])
      b.Op(op["op"].get<std::string>(), op["inputs"].get<std::vector<std::int32_t>>(),
           op["outputs"].get<std::vector<std::int32_t>>(),
           op.value("subgraphs", std::vector<std::int32_t>{}),
           op.value("intermediates", std::vector<std::int32_t>{}));
  }
  return b.Build();
}

TEST(TflmLifetimesConformance, EveryAllocationInfoTest) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc = testing::ReadJsonFile(shared / "conformance" / "tflm_allocation_info.json");
  std::map<std::string, Graph> graphs;  // by model_builder, for the /derived cases
  int checked = 0;
  for (const auto& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    if (c.contains("model")) {
      const Graph g = ThroughTflite(GraphFromConformance(c["model"])).graph;
      graphs[c["model_builder"]] = g;
      const auto lifetimes = TflmLifetimes(g);
      EXPECT_EQ(lifetimes.size(), c["expect"]["allocation_count"].get<std::size_t>());
      EXPECT_EQ(FirstLast(lifetimes), c["expect"]["lifetimes"].get<Lifetimes>());
      if (c["expect"].contains("needs_allocating"))
        EXPECT_EQ(NeedsAllocating(lifetimes),
                  c["expect"]["needs_allocating"].get<std::vector<bool>>());
      ++checked;
    } else {
      // Derived: the planner's input, records of the needs_allocating entries in order.
      const GraphRecords r = RecordsFromGraph(graphs.at(c["model_builder"]));
      EXPECT_EQ(r.problem.records, testing::ProblemFromJson(c["records"]).records);
      const auto entries = c["planned_entries"].get<std::vector<std::size_t>>();
      ASSERT_EQ(r.origins.size(), entries.size());
      const Graph& g = graphs.at(c["model_builder"]);
      for (std::size_t k = 0; k < entries.size(); ++k) {
        std::size_t flat = 0;
        for (std::int32_t s = 0; s < r.origins[k].subgraph; ++s)
          flat += g.subgraphs[static_cast<std::size_t>(s)].tensors.size();
        EXPECT_EQ(flat + static_cast<std::size_t>(r.origins[k].tensor), entries[k]);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 10);
}

// micro_allocator_test graphs: records rebuilt with the AllocationInfoBuilder rules, and
// the offline offsets of the OfflinePlanner tests, through a real metadata entry.
TEST(TflmLifetimesConformance, AllocatorCasesWithOfflinePlans) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto doc =
      testing::ReadJsonFile(shared / "conformance" / "tflm_greedy_memory_planner.json");
  int checked = 0;
  for (const auto& c : doc["allocator_cases"]) {
    if (c.value("derived", false)) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    GraphBuilder b;
    int k = 0;
    for (const auto& bytes : c["graph"]["tensor_bytes"])
      b.Typed("t" + std::to_string(k++), DataType::kFloat32, {bytes.get<std::int64_t>() / 4});
    b.Inputs(c["graph"]["subgraph_inputs"].get<std::vector<std::int32_t>>());
    b.Outputs(c["graph"]["subgraph_outputs"].get<std::vector<std::int32_t>>());
    for (const auto& op : c["graph"]["ops"])
      b.Op("CUSTOM", op["inputs"].get<std::vector<std::int32_t>>(),
           op["outputs"].get<std::vector<std::int32_t>>());
    TfliteWriteOptions w;
    if (c.contains("fixed_offsets"))
      w.offline_offsets = c["fixed_offsets"].get<std::vector<std::int32_t>>();
    const GraphRecords r = RecordsFromGraph(ThroughTflite(b.Build(), w).graph);
    std::vector<UsageRecord> tflm = r.problem.records;
    for (UsageRecord& rec : tflm) rec.first -= r.step_shift, rec.last -= r.step_shift;
    EXPECT_EQ(tflm, testing::ProblemFromJson(c["records"]).records);
    if (c.contains("fixed_offsets")) {
      std::vector<std::optional<Bytes>> expected;
      for (const auto& f : c["fixed_offsets"])
        expected.push_back(f.get<std::int64_t>() < 0 ? std::nullopt
                                                     : std::optional<Bytes>(f.get<Bytes>()));
      if (std::none_of(expected.begin(), expected.end(), [](auto& f) { return f.has_value(); }))
        expected.clear();
      EXPECT_EQ(r.problem.fixed_offsets, expected);
    }
    // The planner's offsets, once memplan has TFLM's planner.
    if (FindOffsetStrategy("tflm_greedy")) {
      const OffsetPlan plan = PlanOffsets(r.problem, "tflm_greedy");
      EXPECT_EQ(plan.offsets,
                c["expect"]["offsets/tflm_greedy"]["offsets"].get<std::vector<Bytes>>());
    }
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

}  // namespace
}  // namespace memplan
