// The report library: TFLM's PrintMemoryPlan text, the SVG and HTML memory maps, and
// the helpers they share.
#include <gtest/gtest.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/html.h"
#include "memplan/memory_map.h"
#include "memplan/offsets.h"
#include "memplan/svg.h"
#include "memplan/table.h"
#include "memplan/tflm_print.h"
#include "src/report/axis.h"
#include "src/report/xml_text.h"
#include "tests/test_support.h"
#include "tests/xml_check.h"

namespace memplan {
namespace {

Problem Records(std::vector<UsageRecord> records) {
  Problem p;
  p.records = std::move(records);
  return p;
}

Workload WorkloadOf(Problem problem, std::string label = "test") {
  Workload w;
  w.label = std::move(label);
  w.kind = "records";
  w.problem = std::move(problem);
  return w;
}

// TestGreedyMedium, as printed in the reference "TFLM PrintMemoryPlan" (docs/testing.md; format
// exact).
TEST(TflmPrint, GreedyMediumMatchesTheReference) {
  const Problem p = Records({{10, 0, 1}, {20, 1, 2}, {30, 2, 3}, {40, 3, 4}, {50, 0, 1}});
  const std::string expected =
      "0 (id=0): size=10, offset=50, first_used=0 last_used=1\n"
      "1 (id=1): size=20, offset=70, first_used=1 last_used=2\n"
      "2 (id=2): size=30, offset=40, first_used=2 last_used=3\n"
      "3 (id=3): size=40, offset=0, first_used=3 last_used=4\n"
      "4 (id=4): size=50, offset=0, first_used=0 last_used=1\n"
      "   0: 44444444444444444444444444444444444444444444000000000........................... "
      "(1k)\n"
      "   1: 44444444444444444444444444444444444444444444000000000.........111111111111111111 "
      "(1k)\n"
      "   2: ...................................222222222222222222222222222111111111111111111 "
      "(1k)\n"
      "   3: 33333333333333333333333333333333333222222222222222222222222222.................. "
      "(1k)\n"
      "   4: 33333333333333333333333333333333333............................................. "
      "(1k)\n";
  EXPECT_EQ(TflmMemoryPlanText(p, {50, 70, 40, 0, 0}), expected);
}

// Hand-checked: arena under 80 bytes (one column per byte), single-scope buffers as
// '*', a column written twice as '!'.
// Once the tflm_greedy strategy is registered, its plan prints the reference text too.
TEST(TflmPrint, TflmGreedyPlanPrintsTheReference) {
  if (!FindOffsetStrategy("tflm_greedy")) GTEST_SKIP() << "no tflm_greedy strategy yet";
  const Problem p = Records({{10, 0, 1}, {20, 1, 2}, {30, 2, 3}, {40, 3, 4}, {50, 0, 1}});
  const std::string text = TflmMemoryPlanText(p, PlanOffsets(p, "tflm_greedy").offsets);
  EXPECT_TRUE(text.starts_with("0 (id=0): size=10, offset=50, first_used=0 last_used=1\n"));
  EXPECT_NE(text.find("   2: ...................................222222222222222222222222222"
                      "111111111111111111 (1k)\n"),
            std::string::npos)
      << text;
}

TEST(TflmPrint, SmallArenaStarsAndCollisions) {
  const Problem p = Records({{20, 0, 0}, {10, 0, 1}, {10, 1, 1}});
  const std::string expected =
      "* (id=0): size=20, offset=0, first_used=0 last_used=0\n"
      "1 (id=1): size=10, offset=20, first_used=0 last_used=1\n"
      "* (id=2): size=10, offset=25, first_used=1 last_used=1\n"
      "   0: ********************1111111111.................................................. "
      "(1k)\n"
      "   1: ....................11111!!!!!*****............................................. "
      "(1k)\n";
  EXPECT_EQ(TflmMemoryPlanText(p, {0, 20, 25}), expected);
}

// Hand-checked: scale = the arena (1025 B), so 300 B take 300*80/1025 = 23 columns; a
// step with nothing live prints "(0k)"; 1025 live bytes round up to 2k.
TEST(TflmPrint, ScaledColumnsAndKibRounding) {
  const Problem p = Records({{1025, 0, 1}, {300, 3, 4}});
  const std::string full(80, '0');
  const std::string expected =
      "0 (id=0): size=1025, offset=0, first_used=0 last_used=1\n"
      "1 (id=1): size=300, offset=0, first_used=3 last_used=4\n"
      "   0: " +
      full +
      " (2k)\n"
      "   1: " +
      full +
      " (2k)\n"
      "   2: " +
      std::string(80, '.') +
      " (0k)\n"
      "   3: 11111111111111111111111" +
      std::string(57, '.') +
      " (1k)\n"
      "   4: 11111111111111111111111" +
      std::string(57, '.') + " (1k)\n";
  EXPECT_EQ(TflmMemoryPlanText(p, {0, 0}), expected);
}

TEST(TflmPrint, OrdinalCharacters) {
  EXPECT_EQ(TflmOrdinalCharacter(0), '0');
  EXPECT_EQ(TflmOrdinalCharacter(9), '9');
  EXPECT_EQ(TflmOrdinalCharacter(10), 'a');
  EXPECT_EQ(TflmOrdinalCharacter(35), 'z');
  EXPECT_EQ(TflmOrdinalCharacter(36), 'A');
  EXPECT_EQ(TflmOrdinalCharacter(61), 'Z');
  EXPECT_EQ(TflmOrdinalCharacter(62), '0');
  EXPECT_EQ(TflmOrdinalCharacter(72), 'a');
}

TEST(TflmPrint, EmptyPlanPrintsOneEmptyStep) {
  // TFLM loops t = 0..max_time with max_time starting at 0.
  EXPECT_EQ(TflmMemoryPlanText(Problem{}, {}), "   0: " + std::string(80, '.') + " (0k)\n");
}

TEST(HumanBytes, Units) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(1048576), "1 MiB");
  EXPECT_EQ(HumanBytes(27591112), "26.31 MiB");
}

TEST(ReportText, EscapingAndEllipses) {
  EXPECT_EQ(report::XmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(report::XmlEscape("x\x01y\xffz\n"), "x?y?z\n");
  EXPECT_EQ(report::XmlEscape("µs"), "µs");
  EXPECT_EQ(report::Ellipsize("abcdefgh", 5), "abcd…");
  EXPECT_EQ(report::EllipsizeFront("net/conv_3/Relu6", 8), "…3/Relu6");
  EXPECT_EQ(report::EllipsizeFront("short", 8), "short");
  EXPECT_EQ(report::Coord(12.5), "12.5");
  EXPECT_EQ(report::Coord(3.0), "3");
  EXPECT_EQ(report::Coord(-0.001), "0");
}

TEST(ReportAxis, NiceTicksInFittingUnits) {
  auto labels = [](const std::vector<report::Tick>& ticks) {
    std::vector<std::string> out;
    for (const auto& t : ticks) out.push_back(t.label);
    return out;
  };
  EXPECT_EQ(labels(report::ByteTicks(130, 6)),
            (std::vector<std::string>{"0 B", "20 B", "40 B", "60 B", "80 B", "100 B", "120 B"}));
  EXPECT_EQ(labels(report::ByteTicks(34.0 * 1024 * 1024, 8)),
            (std::vector<std::string>{"0 MiB", "5 MiB", "10 MiB", "15 MiB", "20 MiB", "25 MiB",
                                      "30 MiB"}));
  EXPECT_EQ(labels(report::StepTicks(8, 10)).size(), 9u);
  EXPECT_EQ(labels(report::StepTicks(1499, 10)).back(), "1400");
}

struct SvgCheck {
  std::unique_ptr<testing::XmlElement> root;
  std::vector<const testing::XmlElement*> tensors;  // rect.tensor elements
};

SvgCheck ParseSvg(const std::string& svg) {
  auto parsed = testing::ParseXml(svg);
  EXPECT_TRUE(parsed.root) << parsed.error;
  SvgCheck out;
  if (!parsed.root) return out;
  out.root = std::move(parsed.root);
  for (const auto* rect : out.root->FindAll("rect")) {
    const auto cls = rect->attributes.find("class");
    if (cls != rect->attributes.end() && cls->second.starts_with("tensor"))
      out.tensors.push_back(rect);
  }
  return out;
}

TEST(Svg, OneRectanglePerNonEmptyTensorWithEscapedNames) {
  Problem p = Records({{32, 0, 1}, {0, 1, 2}, {16, 1, 3}, {8, 2, 2}});
  p.names = {"a<b&\"c'", "empty", "bad\x01utf\xff", "ok"};
  const Workload w = WorkloadOf(p, "in<put>.json");
  const OffsetPlan plan = PlanOffsets(p, "greedy_by_size");
  const std::string svg = RenderSvg(w, MapOfOffsets("offsets/greedy_by_size", plan));
  const SvgCheck check = ParseSvg(svg);
  ASSERT_TRUE(check.root);
  EXPECT_EQ(check.root->name, "svg");
  ASSERT_EQ(check.tensors.size(), 3u);
  std::vector<std::string> indices;
  for (const auto* r : check.tensors) indices.push_back(r->attributes.at("data-i"));
  EXPECT_EQ(indices, (std::vector<std::string>{"0", "2", "3"}));
  // The tooltip names the tensor exactly (decoded), sizes and lifetime.
  ASSERT_EQ(check.tensors[0]->children.size(), 1u);
  EXPECT_NE(check.tensors[0]->children[0]->text.find("a<b&\"c'"), std::string::npos);
  EXPECT_NE(check.tensors[0]->children[0]->text.find("steps 0..1"), std::string::npos);
  EXPECT_NE(svg.find("lower bound"), std::string::npos);
}

TEST(Svg, RectanglesFollowOffsetsAndSteps) {
  // Two tensors stacked at one step: the higher offset is drawn higher (smaller y), and
  // the longer lifetime is wider.
  const Problem p = Records({{100, 0, 0}, {100, 0, 1}});
  const Workload w = WorkloadOf(p);
  const SvgCheck check = ParseSvg(RenderSvg(w, MapPlan{"offsets/x", {0, 100}, 200, {}, {}}));
  ASSERT_EQ(check.tensors.size(), 2u);
  auto num = [](const testing::XmlElement* e, const char* a) {
    return std::stod(e->attributes.at(a));
  };
  EXPECT_GT(num(check.tensors[0], "y"), num(check.tensors[1], "y"));
  EXPECT_NEAR(num(check.tensors[0], "height"), num(check.tensors[1], "height"), 0.02);
  EXPECT_NEAR(num(check.tensors[1], "width"), 2 * num(check.tensors[0], "width"), 0.02);
  // The top rectangle ends where the bottom one begins.
  EXPECT_NEAR(num(check.tensors[1], "y") + num(check.tensors[1], "height"),
              num(check.tensors[0], "y"), 0.02);
}

TEST(Svg, LargeProblemsStayWellFormedAndCompact) {
  testing::RandomProblemOptions o;
  o.records = 5000;
  o.steps = 1500;
  o.max_size = 1 << 20;
  const Problem p = testing::RandomProblem(7, o);
  const Workload w = WorkloadOf(p);
  const OffsetPlan plan = PlanOffsets(p, "greedy_by_size");
  const std::string svg = RenderSvg(w, MapOfOffsets("offsets/greedy_by_size", plan));
  const SvgCheck check = ParseSvg(svg);
  ASSERT_TRUE(check.root);
  const auto non_empty = static_cast<std::size_t>(std::count_if(
      p.records.begin(), p.records.end(), [](const UsageRecord& r) { return r.size > 0; }));
  EXPECT_EQ(check.tensors.size(), non_empty);
  // Tiny rectangles go without outlines; labels only where they fit.
  std::size_t bare = 0;
  for (const auto* r : check.tensors) bare += r->attributes.at("class") == "tensor bare";
  EXPECT_GT(bare, non_empty / 2);
  std::size_t labels = 0;
  for (const auto* t : check.root->FindAll("text"))
    if (t->attributes.count("class") && t->attributes.at("class") == "label") ++labels;
  EXPECT_LT(labels, non_empty / 4);
  EXPECT_LT(svg.size(), 3u << 20);
}

TEST(Svg, ObjectGroupsShareAColour) {
  const Problem p = Records({{64, 0, 1}, {40, 2, 3}, {16, 0, 3}});
  const Workload w = WorkloadOf(p);
  // Records 0 and 1 in object 0 (base 0), record 2 in object 1 (base 64).
  const MapPlan map = MapOfObjects("objects/x", {0, 0, 1}, {64, 16}, 1);
  EXPECT_EQ(map.offsets, (std::vector<Bytes>{0, 0, 64}));
  EXPECT_EQ(map.bytes, 80u);
  const SvgCheck check = ParseSvg(RenderSvg(w, map));
  ASSERT_EQ(check.tensors.size(), 3u);
  EXPECT_EQ(check.tensors[0]->attributes.at("fill"), check.tensors[1]->attributes.at("fill"));
  EXPECT_NE(check.tensors[0]->attributes.at("fill"), check.tensors[2]->attributes.at("fill"));
}

TEST(MemoryMap, ObjectsStackWithAlignedBases) {
  const MapPlan map = MapOfObjects("objects/x", {2, 0, 1, 0}, {40, 10, 64}, 16);
  EXPECT_EQ(map.offsets, (std::vector<Bytes>{64, 0, 48, 0}));  // bases 0, 48, 64
  EXPECT_EQ(map.bytes, 128u);
  EXPECT_EQ(map.groups, (std::vector<std::size_t>{2, 0, 1, 0}));
  EXPECT_THROW(MapOfObjects("objects/x", {3}, {8}, 1), InternalError);
}

TEST(Svg, EmptyProblemStillDraws) {
  const Workload w = WorkloadOf(Records({{0, 0, 3}}));
  const SvgCheck check = ParseSvg(RenderSvg(w, MapPlan{"offsets/naive", {0}, 0, {}, {}}));
  ASSERT_TRUE(check.root);
  EXPECT_TRUE(check.tensors.empty());
}

TEST(Svg, WrongOffsetCountIsAnInternalError) {
  const Workload w = WorkloadOf(Records({{8, 0, 0}}));
  EXPECT_THROW(RenderSvg(w, MapPlan{"offsets/x", {}, 0, {}, {}}), InternalError);
}

// A two-op graph: op 0 CONV_2D reads "in" and writes "mid", op 1 RELU reads "mid"
// and writes "out".
Workload GraphWorkload() {
  Workload w;
  w.label = "graph";
  w.kind = "zoo";
  Graph g;
  g.format = "zoo";
  Subgraph s;
  for (const char* name : {"in", "mid", "out"}) {
    Tensor t;
    t.name = name;
    s.tensors.push_back(t);
  }
  Operator conv, relu;
  conv.type = "CONV_2D";
  conv.name = "conv1";
  conv.inputs = {0};
  conv.outputs = {1};
  relu.type = "RELU";
  relu.inputs = {1};
  relu.outputs = {2};
  s.ops = {conv, relu};
  s.inputs = {0};
  s.outputs = {2};
  g.subgraphs.push_back(s);
  w.graph = g;
  w.ops = 2;
  w.problem = Records({{16, 0, 1}, {32, 1, 2}, {16, 2, 2}});
  w.problem.names = {"in", "mid", "out"};
  w.origins = {{0, 0}, {0, 1}, {0, 2}};
  w.step_ops = {{-1, -1}, {0, 0}, {0, 1}};  // TFLM: inputs, then op i at step i + 1
  return w;
}

TEST(MemoryMap, OpSummariesNameProducersAndConsumers) {
  Workload w = GraphWorkload();
  const auto ops = TensorOpSummaries(w);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0], "a graph input; read by #0 CONV_2D 'conv1'");
  EXPECT_EQ(ops[1], "produced by #0 CONV_2D 'conv1'; read by #1 RELU");
  EXPECT_EQ(ops[2], "produced by #1 RELU; no consumer");
  w.graph->subgraphs[0].inputs.clear();
  EXPECT_EQ(TensorOpSummaries(w)[0], "no producer; read by #0 CONV_2D 'conv1'");
  EXPECT_EQ(TensorOpSummaries(WorkloadOf(Records({{1, 0, 0}}))), std::vector<std::string>{""});
}

TEST(MemoryMap, StepLabelsNameTheOpAtEachStep) {
  const auto labels = StepLabels(GraphWorkload());
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[0].type, "inputs");
  EXPECT_EQ(labels[1].type, "CONV_2D");
  EXPECT_EQ(labels[1].detail, "#0 CONV_2D 'conv1'");
  EXPECT_EQ(labels[2].detail, "#1 RELU");
  EXPECT_TRUE(StepLabels(WorkloadOf(Records({{1, 0, 0}}))).empty());
}

TEST(MemoryMap, LiveBytesChangesAreSparseAndAligned) {
  Problem p = Records({{10, 0, 1}, {20, 1, 2}, {5, 5, 5}, {0, 3, 3}});
  p.alignment = 16;
  const std::vector<std::pair<Step, Bytes>> expected = {{0, 16}, {1, 48}, {2, 32},
                                                        {3, 0},  {5, 16}, {6, 0}};
  EXPECT_EQ(LiveBytesChanges(p), expected);
  // Huge steps cost nothing: only the changes are listed.
  EXPECT_EQ(LiveBytesChanges(Records({{8, Step{1} << 60, Step{1} << 61}})).size(), 2u);
  EXPECT_TRUE(LiveBytesChanges(Records({})).empty());
}

double Attr(const testing::XmlElement* e, const char* name) {
  return std::stod(e->attributes.at(name));
}

TEST(Svg, ObjectsPlanIsOneLanePerObject) {
  const Problem p = Records({{64, 0, 1}, {40, 2, 3}, {16, 0, 3}});
  const Workload w = WorkloadOf(p);
  // Records 0 and 1 share object 0 (64 B); record 2 is alone in object 1 (16 B).
  const MapPlan map = MapOfObjects("objects/x", {0, 0, 1}, {64, 16}, 1);
  EXPECT_EQ(map.object_sizes, (std::vector<Bytes>{64, 16}));
  const std::string svg = RenderSvg(w, map);
  const SvgCheck check = ParseSvg(svg);
  ASSERT_EQ(check.tensors.size(), 3u);
  const auto bottom = [](const testing::XmlElement* e) { return Attr(e, "y") + Attr(e, "height"); };
  // One lane per object: records of one object end on the same line, the next object's
  // lane lies below it.
  EXPECT_NEAR(bottom(check.tensors[0]), bottom(check.tensors[1]), 0.02);
  EXPECT_GT(Attr(check.tensors[2], "y"), bottom(check.tensors[0]));
  // A bar is as tall as its share of the object: 40 of 64 bytes; a record as large as
  // its object fills as much of its lane as the largest of object 0 does.
  EXPECT_NEAR(Attr(check.tensors[1], "height") / Attr(check.tensors[0], "height"), 40.0 / 64.0,
              0.01);
  EXPECT_NEAR(Attr(check.tensors[2], "height"), Attr(check.tensors[0], "height"), 0.02);
  // Lanes are labelled by object; there is no arena axis.
  for (const char* s : {">#0<", ">#1<", "shared objects (2, one lane each)", "object #0 (64 B)"})
    EXPECT_NE(svg.find(s), std::string::npos) << s;
  EXPECT_EQ(svg.find("offset in the arena"), std::string::npos);
  // The panel states the objects' own floor: Σ positional maximums = 64 + 16.
  const std::size_t bound = svg.find(">objects bound<");
  ASSERT_NE(bound, std::string::npos);
  EXPECT_NE(svg.find(">80 B<", bound), std::string::npos);
}

TEST(Svg, LanesNeedASizeForEveryObject) {
  const Workload w = WorkloadOf(Records({{8, 0, 0}, {8, 1, 1}}));
  EXPECT_THROW(RenderSvg(w, MapPlan{"objects/x", {0, 0}, 8, {0, 5}, {8}}), InternalError);
  EXPECT_THROW(RenderSvg(w, MapPlan{"objects/x", {0, 0}, 8, {}, {8}}), InternalError);
}

TEST(Svg, LiveBytesCurveAndOpNamesUnderTheMap) {
  const Workload w = GraphWorkload();
  const std::string svg =
      RenderSvg(w, MapOfOffsets("offsets/naive", PlanOffsets(w.problem, "naive")));
  const SvgCheck check = ParseSvg(svg);
  ASSERT_TRUE(check.root);
  std::vector<std::string> ops, titles;
  for (const auto* t : check.root->FindAll("text"))
    if (t->attributes.count("class") && t->attributes.at("class") == "op") {
      ops.push_back(t->text);
      ASSERT_EQ(t->children.size(), 1u);  // the long label as a tooltip
      titles.push_back(t->children[0]->text);
    }
  EXPECT_EQ(ops, (std::vector<std::string>{"inputs", "CONV_2D", "RELU"}));
  ASSERT_EQ(titles.size(), 3u);
  EXPECT_EQ(titles[1], "step 1: #0 CONV_2D 'conv1'");
  // The curve: a step path through the live bytes (16, 48, 48 at steps 0..2), and the
  // lower bound (48 B) drawn on it.
  std::size_t paths = 0;
  for (const auto* g : check.root->FindAll("g"))
    if (g->attributes.count("class") && g->attributes.at("class") == "curve")
      paths += g->FindAll("path").size();
  EXPECT_EQ(paths, 1u);
  EXPECT_NE(svg.find("lower bound 48 B"), std::string::npos);
  EXPECT_NE(svg.find("live bytes"), std::string::npos);
  // Records without a graph have a curve but no op names.
  const std::string plain = RenderSvg(
      WorkloadOf(w.problem), MapOfOffsets("offsets/naive", PlanOffsets(w.problem, "naive")));
  EXPECT_NE(plain.find("class=\"curve\""), std::string::npos);
  EXPECT_EQ(plain.find("class=\"op\""), std::string::npos);
}

TEST(Html, ObjectsPlansAsLanesBesideOffsetsPlans) {
  const Workload w = GraphWorkload();
  const std::vector<MapPlan> plans = {
      MapOfOffsets("offsets/greedy_by_size", PlanOffsets(w.problem, "greedy_by_size")),
      MapOfObjects("objects/naive", {0, 1, 2}, {16, 32, 16}, 16)};
  const std::string html = RenderHtml(w, plans, 0);
  // The script gets each object's size and the object of every record, the steps' ops
  // and the live-bytes changes.
  for (const char* s : {"\"objects\":[0,1,2],\"sizes\":[16,32,16]", "\"steps\":[[\"inputs\",",
                        "[\"CONV_2D\",\"#0 CONV_2D 'conv1'\"]", "\"live\":[[0,16],[1,48],[3,0]]",
                        "shared objects (3, one lane each)", "shared objects: one lane per object",
                        "offsets: one arena", "lower bound 48 B (shared objects: 48 B)"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  // A table row per plan, linked to its map; a lifetime band per map for the search.
  std::size_t rows = 0, bands = 0;
  for (std::size_t at = html.find("<tr class=\"plan"); at != std::string::npos;
       at = html.find("<tr class=\"plan", at + 1))
    ++rows;
  for (std::size_t at = html.find("<rect class=\"life\""); at != std::string::npos;
       at = html.find("<rect class=\"life\"", at + 1))
    ++bands;
  EXPECT_EQ(rows, 2u);
  EXPECT_EQ(bands, 2u);
  EXPECT_NE(html.find("href=\"#plan=objects/naive\""), std::string::npos);
  EXPECT_NE(html.find("<input id=\"search\""), std::string::npos);
}

TEST(Html, EmbedsEveryPlanTheTensorsAndTheirOps) {
  const Workload w = GraphWorkload();
  const std::vector<MapPlan> plans = {
      MapOfOffsets("offsets/naive", PlanOffsets(w.problem, "naive")),
      MapOfOffsets("offsets/greedy_by_size", PlanOffsets(w.problem, "greedy_by_size"))};
  const std::string html = RenderHtml(w, plans, 1);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("offsets/naive"), std::string::npos);
  EXPECT_NE(html.find("offsets/greedy_by_size"), std::string::npos);
  EXPECT_NE(html.find("CONV_2D 'conv1'"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"plans\">"), std::string::npos);
  // One map per plan, the initial one visible.
  std::size_t maps = 0, hidden = 0;
  for (std::size_t at = html.find("<div class=\"map\""); at != std::string::npos;
       at = html.find("<div class=\"map\"", at + 1)) {
    ++maps;
    hidden += html.compare(at, 23, "<div class=\"map\" hidden") == 0;
  }
  EXPECT_EQ(maps, 2u);
  EXPECT_EQ(hidden, 1u);
  // Self-contained: nothing fetched from elsewhere.
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(Html, NamesCannotCloseTheScript) {
  Workload w = WorkloadOf(Records({{8, 0, 0}}));
  w.problem.names = {"</script><script>alert(1)</script>"};
  const std::string html = RenderHtml(w, {MapPlan{"offsets/naive", {0}, 8, {}, {}}}, 0);
  EXPECT_EQ(html.find("</script><script>alert"), std::string::npos);
  // Exactly one script block, closed once.
  std::size_t closes = 0;
  for (std::size_t at = html.find("</script>"); at != std::string::npos;
       at = html.find("</script>", at + 1))
    ++closes;
  EXPECT_EQ(closes, 1u);
}

}  // namespace
}  // namespace memplan
