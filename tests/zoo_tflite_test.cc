// The built-in models are TensorFlow Lite graphs: every operator is a TFLite builtin, and
// written as a .tflite model and read back they give the same records.
#include <gtest/gtest.h>

#include "memplan/lifetimes.h"
#include "memplan/tflite.h"
#include "memplan/zoo.h"

namespace memplan {
namespace {

TEST(ZooTflite, EveryOperatorIsABuiltin) {
  for (const ZooModel& m : ZooModels()) {
    const Graph g = m.build();
    EXPECT_NO_THROW(ValidateGraph(g)) << m.name;
    for (const Operator& op : g.subgraphs[0].ops)
      EXPECT_TRUE(BuiltinOperatorCode(op.type).has_value()) << m.name << ": " << op.type;
  }
}

// Constants are written as zero-filled buffers; a 1-element shape keeps the files small
// (constants are never planned, so the records do not change).
Graph WithTinyConstants(Graph g) {
  for (Tensor& t : g.subgraphs[0].tensors) {
    if (!t.is_constant) continue;
    t.shape = {1};
    t.bytes = TensorBytes(t.type, 1);
  }
  return g;
}

TEST(ZooTflite, RoundTripKeepsTheRecords) {
  for (const ZooModel& m : ZooModels()) {
    SCOPED_TRACE(std::string(m.name));
    const Graph built = m.build();
    const TfliteModel read = ParseTflite(WriteTflite(WithTinyConstants(built)), m.name);
    for (const Accounting a : {Accounting::kTflm, Accounting::kIntermediatesOnly}) {
      const GraphRecords want = RecordsFromGraph(built, {a});
      const GraphRecords got = RecordsFromGraph(read.graph, {a});
      EXPECT_EQ(got.ops, want.ops);
      EXPECT_EQ(got.problem.records, want.problem.records);
      EXPECT_EQ(got.problem.names, want.problem.names);
    }
  }
}

}  // namespace
}  // namespace memplan
