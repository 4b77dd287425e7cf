// In-place rule sets and the record transform, on graphs built by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/inplace.h"
#include "memplan/offsets.h"
#include "tests/schedule_graphs.h"

namespace memplan {
namespace {

using testing::SimpleRecords;
using testing::SubgraphBuilder;

std::vector<std::string> OpsOf(const InPlaceRuleSet& set, ShareKind kind) {
  std::vector<std::string> ops;
  for (const InPlaceRule& r : set.rules)
    if (r.kind == kind && !r.op.empty() && std::isupper(static_cast<unsigned char>(r.op[1])))
      ops.push_back(r.op);
  return ops;
}

TEST(InPlaceRules, BuiltinSetsAreSortedNamedAndExplained) {
  std::vector<std::string> names;
  for (const InPlaceRuleSet& set : InPlaceRuleSets()) {
    names.push_back(set.name);
    EXPECT_FALSE(set.summary.empty()) << set.name;
    EXPECT_TRUE(
        std::is_sorted(set.rules.begin(), set.rules.end(),
                       [](const InPlaceRule& a, const InPlaceRule& b) { return a.op < b.op; }))
        << set.name;
    for (const InPlaceRule& r : set.rules) {
      EXPECT_FALSE(r.why.empty()) << set.name << " " << r.op;
      EXPECT_NE(r.inputs, 0u) << set.name << " " << r.op;
      EXPECT_EQ(set.Find(r.op), &r);
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"none", "tflite", "tflm", "all"}));
  EXPECT_TRUE(InPlaceRuleSetNamed("none").empty());
  EXPECT_THROW(InPlaceRuleSetNamed("fast"), UsageError);
  EXPECT_EQ(FindInPlaceRuleSet("fast"), nullptr);
}

TEST(InPlaceRules, TfliteIsExactlyTheKernelsThatDeclareAFlag) {
  const InPlaceRuleSet& set = InPlaceRuleSetNamed("tflite");
  EXPECT_TRUE(set.single_consumer);
  auto overwrite = OpsOf(set, ShareKind::kOverwrite);
  auto alias = OpsOf(set, ShareKind::kAlias);
  std::sort(overwrite.begin(), overwrite.end());
  std::sort(alias.begin(), alias.end());
  EXPECT_EQ(overwrite, (std::vector<std::string>{"ADD", "DIV", "DYNAMIC_UPDATE_SLICE", "MUL",
                                                 "SOFTMAX", "SUB"}));
  EXPECT_EQ(alias, (std::vector<std::string>{"BITCAST", "EXPAND_DIMS", "RESHAPE", "SQUEEZE"}));
  EXPECT_EQ(set.Find("ADD")->inputs, 3u);
  EXPECT_EQ(set.Find("SOFTMAX")->inputs, 1u);
  EXPECT_EQ(set.Find("RELU"), nullptr);
  EXPECT_EQ(set.Find("CONCATENATION"), nullptr);
}

TEST(InPlaceRules, TflmLeavesSqueezeOutAndKeepsSoftmax) {
  const InPlaceRuleSet& set = InPlaceRuleSetNamed("tflm");
  EXPECT_FALSE(set.single_consumer);
  EXPECT_EQ(set.Find("SQUEEZE"), nullptr);
  EXPECT_EQ(set.Find("BITCAST"), nullptr);
  ASSERT_NE(set.Find("RESHAPE"), nullptr);
  EXPECT_EQ(set.Find("RESHAPE")->kind, ShareKind::kAlias);
  EXPECT_EQ(set.Find("EXPAND_DIMS")->kind, ShareKind::kAlias);
  EXPECT_EQ(set.Find("SOFTMAX")->kind, ShareKind::kOverwrite);
  EXPECT_EQ(set.Find("RELU")->kind, ShareKind::kOverwrite);
  EXPECT_EQ(set.Find("DYNAMIC_UPDATE_SLICE")->kind, ShareKind::kOverwrite);
  EXPECT_EQ(set.Find("CONV_2D"), nullptr);
  EXPECT_EQ(set.Find("DEPTHWISE_CONV_2D"), nullptr);
  const InPlaceRuleSet without = WithoutOps(set, {"SOFTMAX"});
  EXPECT_EQ(without.name, "tflm-SOFTMAX");
  EXPECT_EQ(without.Find("SOFTMAX"), nullptr);
  EXPECT_NE(without.Find("RELU"), nullptr);
}

TEST(InPlaceRules, AllCoversTfliteAndTflm) {
  const InPlaceRuleSet& all = InPlaceRuleSetNamed("all");
  for (const char* name : {"tflite", "tflm"})
    for (const InPlaceRule& r : InPlaceRuleSetNamed(name).rules) {
      const InPlaceRule* mine = all.Find(r.op);
      ASSERT_NE(mine, nullptr) << name << " " << r.op;
      EXPECT_EQ(mine->kind, r.kind) << r.op;
    }
  for (const char* op : {"BatchNormalization", "Relu", "Flatten", "Squeeze", "Unsqueeze",
                         "Identity", "Dropout", "SQUEEZE", "L2_NORMALIZATION"})
    EXPECT_NE(all.Find(op), nullptr) << op;
  EXPECT_EQ(all.Find("CONCATENATION"), nullptr);
  EXPECT_EQ(all.Find("Concat"), nullptr);
}

// in -> CONV -> a -> RELU -> b -> RESHAPE -> c -> SOFTMAX -> d -> CONV -> out
struct Chain {
  SubgraphBuilder b;
  std::int32_t in, a, bt, c, d, out;
  Chain() {
    in = b.Tensor("in", 64);
    a = b.Tensor("a", 64);
    bt = b.Tensor("b", 64);
    c = b.Tensor("c", 64);
    d = b.Tensor("d", 64);
    out = b.Tensor("out", 32);
    const std::int32_t w = b.Constant("w", 16);
    b.Op("CONV_2D", {in, w}, {a});
    b.Op("RELU", {a}, {bt});
    b.Op("RESHAPE", {bt}, {c});
    b.Op("SOFTMAX", {c}, {d});
    b.Op("CONV_2D", {d, w}, {out});
    b.Inputs({in});
    b.Outputs({out});
  }
};

TEST(InPlace, ChainsCollapseToOneRoot) {
  Chain g;
  const auto shares = FindShares(g.b.graph(), 0, InPlaceRuleSetNamed("all"));
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_EQ(shares[0].output, g.bt);
  EXPECT_EQ(shares[0].input, g.a);
  EXPECT_EQ(shares[0].kind, ShareKind::kOverwrite);
  EXPECT_EQ(shares[1].output, g.c);
  EXPECT_EQ(shares[1].kind, ShareKind::kAlias);
  EXPECT_EQ(shares[1].root, g.a);
  EXPECT_EQ(shares[2].output, g.d);
  EXPECT_EQ(shares[2].input, g.c);
  EXPECT_EQ(shares[2].root, g.a);

  const GraphRecords records = SimpleRecords(g.b.graph());
  const InPlaceRecords merged = ApplyInPlace(g.b.graph(), records, InPlaceRuleSetNamed("all"));
  ASSERT_EQ(merged.problem.size(), 3u);  // in, the a..d buffer, out
  const std::size_t buffer = merged.buffer_of[1];
  for (std::size_t i = 1; i <= 4; ++i) EXPECT_EQ(merged.buffer_of[i], buffer);
  EXPECT_EQ(merged.problem.records[buffer], (UsageRecord{64, 1, 5}));
  EXPECT_EQ(merged.origins[buffer].tensor, g.a);
  EXPECT_EQ(merged.problem.NameOf(buffer), "a");
  EXPECT_EQ(OffsetsLowerBound(records.problem), 128u);
  EXPECT_EQ(OffsetsLowerBound(merged.problem), 128u);  // the convolutions hold in+a, d+out

  // tflite: RELU declares nothing, so only the alias and SOFTMAX share.
  const InPlaceRecords tfl = ApplyInPlace(g.b.graph(), records, InPlaceRuleSetNamed("tflite"));
  EXPECT_EQ(tfl.problem.size(), 4u);
  EXPECT_EQ(tfl.buffer_of[2], tfl.buffer_of[3]);
  EXPECT_EQ(tfl.buffer_of[3], tfl.buffer_of[4]);
  EXPECT_NE(tfl.buffer_of[1], tfl.buffer_of[2]);
  // none: nothing changes.
  const InPlaceRecords none = ApplyInPlace(g.b.graph(), records, InPlaceRuleSetNamed("none"));
  EXPECT_EQ(none.problem.records, records.problem.records);
  EXPECT_TRUE(none.shares.empty());
}

// x = CONV(in); y = ADD(x, in2); z = MUL(x, y); out = CONV(z)
struct TwoReaders {
  SubgraphBuilder b;
  std::int32_t in, in2, x, y, z, out;
  std::int32_t add, mul;
  TwoReaders() {
    in = b.Tensor("in", 64);
    in2 = b.Tensor("in2", 64);
    x = b.Tensor("x", 64);
    y = b.Tensor("y", 64);
    z = b.Tensor("z", 64);
    out = b.Tensor("out", 64);
    const std::int32_t w = b.Constant("w", 8);
    b.Op("CONV_2D", {in, w}, {x});
    add = b.Op("ADD", {x, in2}, {y});
    mul = b.Op("MUL", {x, y}, {z});
    b.Op("CONV_2D", {z, w}, {out});
    b.Inputs({in, in2});
    b.Outputs({out});
  }
};

TEST(InPlace, TfliteNeedsOneReaderInTheWholeGraph) {
  TwoReaders g;
  // ADD: x is read twice, in2 is a graph input. MUL: x read twice; y read once: shares y.
  const auto shares = FindShares(g.b.graph(), 0, InPlaceRuleSetNamed("tflite"));
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_EQ(shares[0].op, g.mul);
  EXPECT_EQ(shares[0].input, g.y);
}

TEST(InPlace, OtherSetsNeedTheLastReaderOfTheInput) {
  TwoReaders g;
  // tflm: ADD is not x's last reader; MUL is, and x comes first among its inputs.
  const auto shares = FindShares(g.b.graph(), 0, InPlaceRuleSetNamed("tflm"));
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_EQ(shares[0].op, g.mul);
  EXPECT_EQ(shares[0].input, g.x);
  EXPECT_EQ(shares[0].kind, ShareKind::kOverwrite);
}

TEST(InPlace, LastReaderDependsOnTheOrder) {
  // x feeds RELU and CONV; the RELU may overwrite x only if the CONV ran first.
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 64), x = b.Tensor("x", 64), r = b.Tensor("r", 64),
                     c = b.Tensor("c", 64);
  const std::int32_t w = b.Constant("w", 8);
  b.Op("CONV_2D", {in, w}, {x});
  const std::int32_t relu = b.Op("RELU", {x}, {r});
  b.Op("CONV_2D", {x, w}, {c});
  b.Inputs({in});
  b.Outputs({r, c});
  // r is a graph output: never shared.
  EXPECT_TRUE(FindShares(b.graph(), 0, InPlaceRuleSetNamed("all")).empty());
  const std::int32_t out = b.Tensor("out", 64);
  b.Op("CONV_2D", {r, w}, {out});
  b.Outputs({out, c});
  EXPECT_TRUE(FindShares(b.graph(), 0, InPlaceRuleSetNamed("all")).empty());
  const std::vector<std::int32_t> conv_first = {0, 2, 1, 3};
  const auto shares = FindShares(b.graph(), 0, InPlaceRuleSetNamed("all"), conv_first);
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_EQ(shares[0].op, relu);
  EXPECT_EQ(shares[0].input, x);
  // An order that is not topological is refused.
  const std::vector<std::int32_t> bad = {1, 0, 2, 3};
  EXPECT_THROW(FindShares(b.graph(), 0, InPlaceRuleSetNamed("all"), bad), InputError);
}

TEST(InPlace, EqualBytesPickTheFullShapeOperandAndSkipScalars) {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 64), small = b.Tensor("bias", 16), big = b.Tensor("x", 64),
                     sum = b.Tensor("sum", 64), s4 = b.Tensor("s4", 4), t4 = b.Tensor("t4", 4),
                     u4 = b.Tensor("u4", 4), out = b.Tensor("out", 64);
  const std::int32_t w = b.Constant("w", 8);
  b.Op("CONV_2D", {in, w}, {small});
  b.Op("CONV_2D", {in, w}, {big});
  b.Op("ADD", {small, big}, {sum});  // input 0 is the broadcast one: share input 1
  b.Op("CONV_2D", {sum, w}, {s4});
  b.Op("RELU", {s4}, {t4});  // 4 bytes: TensorFlow Lite's scalar guard
  b.Op("CONV_2D", {t4, w}, {u4});
  b.Op("CONV_2D", {u4, w}, {out});
  b.Inputs({in});
  b.Outputs({out});
  const auto shares = FindShares(b.graph(), 0, InPlaceRuleSetNamed("all"));
  ASSERT_EQ(shares.size(), 1u);
  EXPECT_EQ(shares[0].input, big);
  EXPECT_EQ(shares[0].output, sum);
}

TEST(InPlace, TflmAliasesExpandDimsButNotSqueeze) {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 64), x = b.Tensor("x", 64), sq = b.Tensor("sq", 64),
                     ex = b.Tensor("ex", 64), out = b.Tensor("out", 64);
  const std::int32_t w = b.Constant("w", 8);
  b.Op("CONV_2D", {in, w}, {x});
  b.Op("SQUEEZE", {x}, {sq});
  b.Op("EXPAND_DIMS", {sq}, {ex});
  b.Op("CONV_2D", {ex, w}, {out});
  b.Inputs({in});
  b.Outputs({out});
  const auto tflm = FindShares(b.graph(), 0, InPlaceRuleSetNamed("tflm"));
  ASSERT_EQ(tflm.size(), 1u);
  EXPECT_EQ(tflm[0].output, ex);
  EXPECT_EQ(tflm[0].kind, ShareKind::kAlias);
  EXPECT_EQ(FindShares(b.graph(), 0, InPlaceRuleSetNamed("tflite")).size(), 2u);
}

TEST(InPlace, AnAliasedInputStillReadLaterIsNotOverwritten) {
  // x -> RESHAPE -> r; RELU(r) would overwrite x's bytes while a later op reads x.
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 64), x = b.Tensor("x", 64), r = b.Tensor("r", 64),
                     y = b.Tensor("y", 64), z = b.Tensor("z", 64), s = b.Tensor("s", 64),
                     out = b.Tensor("out", 64);
  const std::int32_t w = b.Constant("w", 8);
  b.Op("CONV_2D", {in, w}, {x});
  b.Op("RESHAPE", {x}, {r});
  b.Op("RELU", {r}, {y});
  b.Op("CONV_2D", {x, w}, {z});
  b.Op("ADD", {y, z}, {s});
  b.Op("CONV_2D", {s, w}, {out});
  b.Inputs({in});
  b.Outputs({out});
  const auto shares = FindShares(b.graph(), 0, InPlaceRuleSetNamed("all"));
  ASSERT_EQ(shares.size(), 2u);  // the alias, and ADD over y
  EXPECT_EQ(shares[0].output, r);
  EXPECT_EQ(shares[0].kind, ShareKind::kAlias);
  EXPECT_EQ(shares[1].output, s);
  EXPECT_EQ(shares[1].input, y);
  // With the reader first, the RELU may share: y then lives in x's buffer.
  const std::vector<std::int32_t> order = {0, 1, 3, 2, 4, 5};
  const auto later = FindShares(b.graph(), 0, InPlaceRuleSetNamed("all"), order);
  ASSERT_EQ(later.size(), 3u);
  EXPECT_EQ(later[1].output, y);
  EXPECT_EQ(later[1].root, x);
  EXPECT_EQ(later[2].output, s);
  EXPECT_EQ(later[2].root, x);
}

TEST(InPlace, GraphInputsAndOutputsNeverShare) {
  SubgraphBuilder b;
  const std::int32_t in = b.Tensor("in", 64), r = b.Tensor("r", 64), out = b.Tensor("out", 64);
  b.Op("RELU", {in}, {r});
  b.Op("RESHAPE", {r}, {out});
  b.Inputs({in});
  b.Outputs({out});
  EXPECT_TRUE(FindShares(b.graph(), 0, InPlaceRuleSetNamed("all")).empty());
}

TEST(InPlace, ExpandedPlansGiveSharedTensorsTheRootOffset) {
  Chain g;
  const GraphRecords records = SimpleRecords(g.b.graph());
  const InPlaceRecords merged = ApplyInPlace(g.b.graph(), records, InPlaceRuleSetNamed("all"));
  const OffsetPlan plan = PlanOffsets(merged.problem, "greedy_by_size");
  const OffsetPlan expanded = ExpandPlan(records.problem, merged, plan);
  VerifyExpandedOrThrow(records.problem, merged, plan, expanded);
  ASSERT_EQ(expanded.offsets.size(), records.problem.size());
  for (std::size_t i = 1; i <= 4; ++i) EXPECT_EQ(expanded.offsets[i], expanded.offsets[1]);
  EXPECT_EQ(expanded.arena_bytes, plan.arena_bytes);
  EXPECT_EQ(plan.arena_bytes, 128u);
  // Not a plan for the unmerged records: the shared tensors overlap by design.
  EXPECT_FALSE(FindViolations(records.problem, expanded).empty());
  OffsetPlan moved = expanded;
  moved.offsets[3] += 64;
  EXPECT_THROW(VerifyExpandedOrThrow(records.problem, merged, plan, moved), InternalError);
}

TEST(InPlace, FixedRecordsNeverMerge) {
  Chain g;
  GraphRecords records = SimpleRecords(g.b.graph());
  records.problem.fixed_offsets.assign(records.problem.size(), std::nullopt);
  records.problem.fixed_offsets[2] = 0;  // b
  const InPlaceRecords merged = ApplyInPlace(g.b.graph(), records, InPlaceRuleSetNamed("all"));
  EXPECT_NE(merged.buffer_of[1], merged.buffer_of[2]);
  EXPECT_NE(merged.buffer_of[2], merged.buffer_of[3]);
  EXPECT_EQ(merged.buffer_of[3], merged.buffer_of[4]);
  EXPECT_EQ(merged.problem.fixed_offsets[merged.buffer_of[2]], Bytes{0});
}

}  // namespace
}  // namespace memplan
