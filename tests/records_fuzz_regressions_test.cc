// Inputs fuzz/records_readers_fuzz.cc found to crash the text readers or what runs after
// them (Validate, the lower bound, planning, verification), kept as regressions. Each must
// end in an InputError naming the file and where in it; under the sanitizer build
// (scripts/test) undefined behaviour fails the test too.
#include <gtest/gtest.h>

#include <string>

#include "memplan/error.h"
#include "memplan/plan_file.h"
#include "memplan/records_io.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

// A number JSON allows but a double cannot hold: nlohmann reports it as out_of_range,
// not parse_error, so it escaped the readers and terminated memplan.
TEST(RecordsFuzzRegressions, OverflowingNumberInPlanFile) {
  const std::string e = testing::ErrorMessage<InputError>([] {
    ParsePlanFile("{\"mode\": \"offsets\",\n \"arena_bytes\": 60e21120, \"tensors\": []}",
                  "p.json");
  });
  EXPECT_NE(e.find("p.json:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("malformed JSON: number overflow parsing '60e21120'"), std::string::npos) << e;
}

TEST(RecordsFuzzRegressions, OverflowingNumberInRecordsJson) {
  const std::string e = testing::ErrorMessage<InputError>(
      [] { ParseRecordsJson("{\"records\": [[1e999, 0, 1]]}", "r.json"); });
  EXPECT_NE(e.find("r.json:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("number overflow"), std::string::npos) << e;
}

// upper = INT64_MIN: the reader computed the inclusive last step as upper - 1 before
// checking the lifetime (signed overflow; without the sanitizer it wrapped to INT64_MAX
// and the record was accepted as living forever).
TEST(RecordsFuzzRegressions, CsvUpperAtInt64Min) {
  const std::string e = testing::ErrorMessage<InputError>(
      [] { ParseRecordsCsv("id,lower,upper,size\na,0,-9223372036854775808,1\n", "m.csv"); });
  EXPECT_NE(e.find("m.csv:2:3: lifetime [0, -9223372036854775808) is empty or negative"),
            std::string::npos)
      << e;
}

// A last step of INT64_MAX passed Validate, then the lower bound (and the sweeps of
// several strategies) computed last + 1: signed overflow. Steps now stop below 2^62.
TEST(RecordsFuzzRegressions, LastStepNearInt64Max) {
  const std::string e = testing::ErrorMessage<InputError>(
      [] { ParseRecordsJson("{\"records\": [[1, 0, 9223372036854775807]]}", "r.json"); });
  EXPECT_NE(e.find("r.json: record 0"), std::string::npos) << e;
  EXPECT_NE(e.find("last step 9223372036854775807 is too large"), std::string::npos) << e;
  const std::string csv = testing::ErrorMessage<InputError>(
      [] { ParseRecordsCsv("id,lower,end,size\na,0,4611686018427387904,1\n", "m.csv"); });
  EXPECT_NE(csv.find("m.csv: record 0 'a'"), std::string::npos) << csv;
  EXPECT_NE(csv.find("too large"), std::string::npos) << csv;
  // 2^62 - 1 is still a step.
  EXPECT_EQ(ParseRecordsJson("{\"records\": [[1, 0, 4611686018427387903]]}", "r.json").size(), 1u);
}

}  // namespace
}  // namespace memplan
