#include <gtest/gtest.h>

#include <fstream>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

TEST(RecordsJson, ReadsAllFields) {
  const Problem p = ParseRecordsJson(
      R"({"records": [[16, 0, 1], [8, 1, 2]], "alignment": 8, "fixed_offsets": [-1, 16],
          "names": ["x", "y"]})",
      "t.json");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.records[0], (UsageRecord{16, 0, 1}));
  EXPECT_EQ(p.alignment, 8u);
  EXPECT_FALSE(p.IsFixed(0));
  EXPECT_EQ(*p.fixed_offsets[1], 16u);
  EXPECT_EQ(p.NameOf(1), "y");
}

TEST(RecordsJson, MalformedGivesLineAndColumn) {
  const std::string e = testing::ErrorMessage<InputError>(
      [] { ParseRecordsJson("{\"records\": [\n  [1, 2, 3],,\n]}", "bad.json"); });
  EXPECT_NE(e.find("bad.json:2:"), std::string::npos) << e;
}

TEST(RecordsJson, BadValuesAreNamed) {
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsJson(R"({"records": [[-5, 0, 1]]})", "n.json");
            }).find("records[0]: size -5 is negative"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsJson(R"({"records": [[5, 3, 1]]})", "n.json");
            }).find("first step 3 is after last step 1"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsJson(R"({"records": [[5, 0]]})", "n.json");
            }).find("expected [size, first, last]"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsJson(R"({"records": [[18446744073709551615, 0, 1], [9, 0, 1]]})",
                               "o.json");
            }).find("overflow"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsJson(R"({"records": [[8, 0, 1]], "alignment": 8, "fixed_offsets": [3]})",
                               "f.json");
            }).find("not a multiple of the alignment"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsJson(R"([1, 2])", "a.json");
            }).find("a.json"),
            std::string::npos);
}

TEST(RecordsCsv, MiniMallocHalfOpenLifetimes) {
  const Problem p = ParseRecordsCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", "x.csv");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.records[0], (UsageRecord{4, 0, 2}));
  EXPECT_EQ(p.records[1], (UsageRecord{4, 3, 8}));
  EXPECT_EQ(p.NameOf(0), "b1");
}

TEST(RecordsCsv, OptionalAlignmentAndOffsetColumnsAndCrLf) {
  const Problem p = ParseRecordsCsv(
      "id,lower,upper,size,alignment,offset\r\na,0,3,4,4,8\r\nb,1,2,4,4,-1\r\n", "x.csv");
  EXPECT_EQ(p.alignment, 4u);
  EXPECT_EQ(*p.fixed_offsets[0], 8u);
  EXPECT_FALSE(p.IsFixed(1));
}

TEST(RecordsCsv, ErrorsNameLineAndColumn) {
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsCsv("id,lower,upper,size\na,0,3,x4\n", "c.csv");
            }).find("c.csv:2:7: size 'x4' is not an integer"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsCsv("id,lower,upper,size\na,3,3,4\n", "c.csv");
            }).find("c.csv:2:3: lifetime [3, 3) is empty"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsCsv("id,lower,size\n", "c.csv");
            }).find("'upper'"),
            std::string::npos);
  EXPECT_NE(
      testing::ErrorMessage<InputError>([] { ParseRecordsCsv("", "c.csv"); }).find("empty CSV"),
      std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsCsv("id,lower,upper,size\na,0,3\n", "c.csv");
            }).find("expected 4 fields"),
            std::string::npos);
  EXPECT_NE(testing::ErrorMessage<InputError>([] {
              ParseRecordsCsv("id,lower,upper,size\na,0,3,-4\n", "c.csv");
            }).find("negative"),
            std::string::npos);
}

TEST(RecordsCsv, RoundTripsThroughFormat) {
  const Problem p = ParseRecordsCsv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", "x.csv");
  const Problem q = ParseRecordsCsv(FormatRecordsCsv(p), "y.csv");
  EXPECT_EQ(p.records, q.records);
  EXPECT_EQ(p.names, q.names);
}

TEST(Files, AtomicWriteReplacesAndLeavesNoTemporary) {
  const auto dir = testing::TempDir();
  const auto path = dir / "out.json";
  WriteFileAtomically(path, "one");
  WriteFileAtomically(path, "two");
  EXPECT_EQ(ReadFileBytes(path), "two");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
  EXPECT_THROW(ReadFileBytes(dir / "missing.json"), InputError);
  EXPECT_THROW(WriteFileAtomically(dir / "no" / "such" / "dir.json", "x"), InputError);
}

}  // namespace
}  // namespace memplan
