#include <gtest/gtest.h>

#include <string>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/plan.h"
#include "memplan/problem.h"
#include "memplan/text.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

Problem Paper() {
  Problem p;
  p.records = {{32, 0, 1}, {28, 1, 4}, {36, 2, 5}, {16, 3, 5},
               {8, 4, 5},  {64, 5, 7}, {10, 6, 8}, {40, 7, 8}};
  return p;
}

TEST(Conflicts, InclusiveIntervalsTouchingAtOneStepConflict) {
  EXPECT_TRUE(Conflicts({1, 0, 2}, {1, 2, 3}));
  EXPECT_FALSE(Conflicts({1, 0, 1}, {1, 2, 3}));
  EXPECT_TRUE(Conflicts({1, 0, 9}, {1, 3, 4}));
}

TEST(Bounds, PaperExampleBreadthsAndBound) {
  const Problem p = Paper();
  EXPECT_EQ(NaiveBytes(p), 234u);
  EXPECT_EQ(OffsetsLowerBound(p), 124u);
  EXPECT_EQ(StepBreadths(p.records), (std::vector<Bytes>{32, 60, 64, 80, 88, 124, 74, 114, 50}));
}

TEST(Bounds, AlignmentRoundsSizesUpButTheTopmost) {
  Problem p;
  p.records = {{10, 0, 1}, {20, 1, 2}};
  p.alignment = 16;
  // 10 B at 0 and 20 B at 16 end at 36: only the record below needs its padding.
  EXPECT_EQ(OffsetsLowerBound(p), 16u + 20u);
  EXPECT_EQ(NaiveBytes(p), 48u);
  OffsetPlan reached = MakeOffsetPlan(p, "by hand", {0, 16});
  EXPECT_TRUE(FindViolations(p, reached).empty());
  EXPECT_EQ(reached.arena_bytes, OffsetsLowerBound(p));
  p.records = {{10, 0, 0}};
  EXPECT_EQ(OffsetsLowerBound(p), 10u);  // one record: no padding at all
}

TEST(Bounds, OverlappingFixedRecordsCountOnce) {
  Problem p;
  p.records = {{64, 0, 3}, {64, 1, 2}, {32, 1, 1}};
  p.fixed_offsets = std::vector<std::optional<Bytes>>{0, 0, std::nullopt};
  EXPECT_EQ(OffsetsLowerBound(p), 64u + 32u);  // the fixed pair shares its bytes
}

TEST(Bounds, EmptyAndZeroSizeRecords) {
  Problem p;
  EXPECT_EQ(OffsetsLowerBound(p), 0u);
  p.records = {{0, 0, 5}, {0, 1, 1}};
  EXPECT_EQ(OffsetsLowerBound(p), 0u);
}

TEST(Validate, RejectsFirstAfterLast) {
  Problem p;
  p.records = {{4, 3, 2}};
  try {
    Validate(p);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("first step 3 is after last step 2"), std::string::npos)
        << e.what();
  }
}

TEST(Validate, RejectsNegativeStepUnalignedFixedAndOverflow) {
  Problem p;
  p.records = {{4, -1, 2}};
  EXPECT_THROW(Validate(p), InputError);

  p.records = {{4, 0, 2}};
  p.alignment = 8;
  p.fixed_offsets = {Bytes{4}};
  EXPECT_THROW(Validate(p), InputError);

  p = Problem{};
  p.records = {{~Bytes{0} / 2, 0, 1}, {~Bytes{0} / 2, 0, 1}};
  EXPECT_THROW(Validate(p), InputError);

  p = Problem{};
  p.alignment = 0;
  EXPECT_THROW(Validate(p), InputError);
}

TEST(Validate, AcceptsZeroSizeRecords) {
  Problem p;
  p.records = {{0, 0, 0}, {5, 0, 3}};
  EXPECT_NO_THROW(Validate(p));
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// Names from a corrupt file reach messages as printable text: invalid UTF-8, control codes
// and C1 controls as \xNN, valid UTF-8 kept.
TEST(PrintableText, EscapesWhatIsNotPrintableUtf8) {
  EXPECT_EQ(PrintableText("conv\x1b[2J"), "conv\\x1b[2J");
  EXPECT_EQ(PrintableText("t\xff\xfe"), "t\\xff\\xfe");
  EXPECT_EQ(PrintableText("caf\xc3\xa9 \xe2\x86\x92 ok\n\tx"), "caf\xc3\xa9 \xe2\x86\x92 ok\n\tx");
  EXPECT_EQ(PrintableText("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(PrintableText("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(PrintableText("\xc2\x9b"), "\\xc2\\x9b");           // C1 control (CSI)
  EXPECT_EQ(PrintableText("\xe2\x86"), "\\xe2\\x86");           // cut short
  EXPECT_EQ(PrintableText(std::string("a\0b", 3)), "a\\x00b");
  // Every error escapes its message when it is made.
  EXPECT_STREQ(InputError("op '\xff'").what(), "op '\\xff'");
  EXPECT_STREQ(UsageError("\x07").what(), "\\x07");
}

}  // namespace
}  // namespace memplan
