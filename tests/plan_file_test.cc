// Reading plan files back and comparing them with their input.
#include <gtest/gtest.h>

#include "memplan/error.h"
#include "memplan/plan_file.h"

namespace memplan {
namespace {

Problem Paper() {
  Problem p;
  p.records = {{32, 0, 1}, {28, 1, 4}, {36, 2, 5}, {16, 3, 5},
               {8, 4, 5},  {64, 5, 7}, {10, 6, 8}, {40, 7, 8}};
  for (int i = 0; i < 8; ++i) p.names.push_back("t" + std::to_string(i));
  return p;
}

std::string OffsetsFile(const std::vector<Bytes>& offsets) {
  const Problem p = Paper();
  std::string tensors;
  for (std::size_t i = 0; i < p.size(); ++i)
    tensors += (i ? ",\n" : "") + std::string("{\"index\": ") + std::to_string(i) +
               ", \"name\": \"t" + std::to_string(i) +
               "\", \"size\": " + std::to_string(p.records[i].size) +
               ", \"first\": " + std::to_string(p.records[i].first) +
               ", \"last\": " + std::to_string(p.records[i].last) +
               ", \"offset\": " + std::to_string(offsets[i]) + "}";
  return "{\"mode\": \"offsets\", \"strategy\": \"hand\", \"alignment\": 1,\n\"tensors\": [\n" +
         tensors + "]}";
}

const std::vector<Bytes> kBest = {0, 32, 64, 100, 116, 0, 104, 64};

TEST(PlanFile, ReadsAnOffsetsPlanThatVerifies) {
  const PlanFile f = ParsePlanFile(OffsetsFile(kBest), "p.json");
  EXPECT_EQ(f.mode, "offsets");
  EXPECT_EQ(f.strategy, "hand");
  ASSERT_EQ(f.tensors.size(), 8u);
  EXPECT_EQ(f.tensors[3].offset, 100u);
  EXPECT_TRUE(CompareWithProblem(f, Paper(), "zoo:paper_example").empty());
  const OffsetPlan plan = OffsetPlanOf(f, Paper());
  EXPECT_EQ(plan.arena_bytes, 124u);  // computed: the file claims none
  EXPECT_TRUE(FindViolations(Paper(), plan).empty());
}

TEST(PlanFile, MalformedJsonGivesLineAndColumn) {
  try {
    ParsePlanFile("{\"mode\": \"offsets\",\n \"tensors\": [1,]}", "p.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("p.json:2:")) << e.what();
  }
}

TEST(PlanFile, MissingAndMistypedFieldsAreNamed) {
  auto message = [](const std::string& text) {
    try {
      ParsePlanFile(text, "p.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("[]"), "p.json: expected a plan object {\"mode\": ..., \"tensors\": [...]}");
  EXPECT_EQ(message("{\"tensors\": []}"),
            "p.json: mode: missing; expected \"offsets\" or \"objects\"");
  EXPECT_EQ(message("{\"mode\": \"offsets\", \"tensors\": [{\"size\": 4}]}"),
            "p.json: tensors[0]: missing \"offset\"");
  EXPECT_EQ(message("{\"mode\": \"offsets\", \"tensors\": [{\"offset\": -4}]}"),
            "p.json: tensors[0].offset: -4 is negative");
  EXPECT_EQ(message("{\"mode\": \"offsets\", \"tensors\": [{\"offset\": \"x\"}]}"),
            "p.json: tensors[0].offset: expected a non-negative integer, got \"x\"");
  EXPECT_EQ(message("{\"mode\": \"objects\", \"tensors\": []}"),
            "p.json: objects: missing; an objects plan lists its object sizes");
  EXPECT_EQ(message("{\"mode\": \"offsets\", \"alignment\": 2199023255552, \"tensors\": []}"),
            "p.json: alignment: 2199023255552 is absurdly large (limit 2^40)");
}

TEST(PlanFile, DifferencesFromTheInputAreListed) {
  std::string text = OffsetsFile(kBest);
  text.replace(text.find("\"size\": 36"), 10, "\"size\": 37");
  text.replace(text.find("\"last\": 8"), 9, "\"last\": 9");
  const auto diffs = CompareWithProblem(ParsePlanFile(text, "p.json"), Paper(), "in.json");
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0].message,
            "p.json: tensors[2] ('t2'): the size is 37 B in the plan but 36 B in in.json");
  EXPECT_EQ(diffs[1].message,
            "p.json: tensors[6] ('t6'): the lifetime is 6..9 in the plan but 6..8 in in.json");
  Problem fewer = Paper();
  fewer.records.pop_back();
  fewer.names.pop_back();
  EXPECT_EQ(CompareWithProblem(ParsePlanFile(OffsetsFile(kBest), "p.json"), fewer, "in.json")
                .at(0)
                .message,
            "p.json lists 8 tensors but in.json has 7 records");
}

TEST(PlanFile, BrokenOffsetsNameBothTensors) {
  std::vector<Bytes> broken = kBest;
  broken[2] = 40;  // t2 now overlaps t1 (32..60)
  const PlanFile f = ParsePlanFile(OffsetsFile(broken), "p.json");
  const auto v = FindViolations(Paper(), OffsetPlanOf(f, Paper()));
  ASSERT_FALSE(v.empty());
  EXPECT_NE(v[0].message.find("'t1'"), std::string::npos) << v[0].message;
  EXPECT_NE(v[0].message.find("'t2'"), std::string::npos) << v[0].message;
}

std::string ObjectsFile(const std::vector<int>& ids, const std::string& sizes) {
  std::string tensors;
  for (std::size_t i = 0; i < ids.size(); ++i)
    tensors += (i ? "," : "") + std::string("{\"object\": ") + std::to_string(ids[i]) + "}";
  return "{\"mode\": \"objects\", \"strategy\": \"hand\", \"objects\": " + sizes +
         ", \"tensors\": [" + tensors + "]}";
}

TEST(PlanFile, ObjectsPlans) {
  // The reference "worked example" (docs/testing.md): greedy_by_size objects ids [1,0,1,2,3,0,2,1],
  // sizes [64,40,16,8].
  const PlanFile good =
      ParsePlanFile(ObjectsFile({1, 0, 1, 2, 3, 0, 2, 1}, "[64, 40, 16, 8]"), "o");
  EXPECT_TRUE(CompareWithProblem(good, Paper(), "in").empty());
  EXPECT_TRUE(FindObjectsViolations(good, Paper()).empty());
  EXPECT_THROW(OffsetPlanOf(good, Paper()), InputError);

  // t7 (7..8) moved into object 0 with t5 (5..7): they share step 7.
  const auto shared = FindObjectsViolations(
      ParsePlanFile(ObjectsFile({1, 0, 1, 2, 3, 0, 2, 0}, "[64, 40, 16, 8]"), "o"), Paper());
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_NE(shared[0].message.find("'t5'"), std::string::npos);
  EXPECT_NE(shared[0].message.find("'t7'"), std::string::npos);

  // Object 2 shrunk below t3's 16 bytes; object 9 does not exist.
  const auto small = FindObjectsViolations(
      ParsePlanFile(ObjectsFile({1, 0, 1, 2, 3, 0, 9, 1}, "[64, 40, 15, 8]"), "o"), Paper());
  ASSERT_EQ(small.size(), 2u);
  EXPECT_NE(small[0].message.find("too small: record 3 't3'"), std::string::npos);
  EXPECT_NE(small[1].message.find("object 9 but the plan has 4 objects"), std::string::npos);
}

}  // namespace
}  // namespace memplan
