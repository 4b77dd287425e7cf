// The reference "peers' results" (docs/testing.md): every offset strategy's arena on the
// public example records. The greedy peers' values are also in shared/conformance; strip_packing,
// the XLA orders and TVM's no-gap greedy are checked only here.
#include <gtest/gtest.h>

#include <map>

#include "memplan/bounds.h"
#include "memplan/offsets.h"

namespace memplan {
namespace {

Problem Records(std::vector<UsageRecord> records) {
  Problem p;
  p.records = std::move(records);
  return p;
}

// The person detection model of TFLM's greedy planner test.
Problem PersonDetection() {
  return Records({{9216, 0, 29},  {3, 28, 29},    {256, 27, 28},  {2304, 26, 27}, {2304, 25, 26},
                  {2304, 24, 25}, {1152, 23, 24}, {4608, 22, 23}, {4608, 21, 22}, {4608, 20, 21},
                  {4608, 19, 20}, {4608, 18, 19}, {4608, 17, 18}, {4608, 16, 17}, {4608, 15, 16},
                  {4608, 14, 15}, {4608, 13, 14}, {4608, 12, 13}, {2304, 11, 12}, {9216, 10, 11},
                  {9216, 9, 10},  {9216, 8, 9},   {4608, 7, 8},   {18432, 6, 7},  {18432, 5, 6},
                  {18432, 4, 5},  {9216, 3, 4},   {36864, 2, 3},  {18432, 1, 2},  {18432, 0, 1}});
}

struct Row {
  const char* label;                    // the records' name in the table
  Problem problem;                      // the records
  std::map<std::string, Bytes> arenas;  // strategy -> arena
};

TEST(OffsetsTable, PublicExamples) {
  const Row rows[] = {
      {"ChainRecords",
       Records({{16, 0, 1}, {8, 1, 2}, {64, 2, 3}, {32, 3, 4}, {8, 4, 5}}),
       {{"greedy_by_size", 96},
        {"tflm_greedy", 96},
        {"tflite_cpu", 96},
        {"greedy_in_order", 120},
        {"greedy_by_breadth", 96},
        {"strip_packing", 96},
        {"tvm_greedy", 104}}},
      {"ComplexRecords",
       Records({{32, 0, 1},
                {32, 1, 4},
                {8, 2, 5},
                {16, 3, 5},
                {8, 4, 5},
                {64, 5, 7},
                {8, 6, 8},
                {8, 7, 8},
                {16, 8, 9}}),
       {{"greedy_by_size", 96},
        {"tflm_greedy", 96},
        {"tflite_cpu", 96},
        {"greedy_in_order", 96},
        {"greedy_by_breadth", 96},
        {"strip_packing", 96},
        {"tvm_greedy", 96}}},
      {"8-record example",
       Records({{32, 0, 1},
                {28, 1, 4},
                {36, 2, 5},
                {16, 3, 5},
                {8, 4, 5},
                {64, 5, 7},
                {10, 6, 8},
                {40, 7, 8}}),
       {{"greedy_by_size", 124},
        {"tflm_greedy", 124},
        {"tflite_cpu", 124},
        {"greedy_in_order", 160},
        {"greedy_by_breadth", 124},
        {"strip_packing", 138},
        {"tvm_greedy", 152},
        {"xla_spatial", 124},
        {"xla_temporal", 140}}},
      {"TestGreedyMedium",
       Records({{10, 0, 1}, {20, 1, 2}, {30, 2, 3}, {40, 3, 4}, {50, 0, 1}}),
       {{"greedy_by_size", 90},
        {"tflm_greedy", 90},
        {"tflite_cpu", 90},
        {"greedy_in_order", 80},
        {"greedy_by_breadth", 100},
        {"strip_packing", 90},
        {"tvm_greedy", 100}}},
      {"TestPersonDetectionModel",
       PersonDetection(),
       {{"greedy_by_size", 64512},
        {"tflm_greedy", 64512},
        {"tflite_cpu", 64512},
        {"greedy_in_order", 82944},
        {"greedy_by_breadth", 64512},
        {"strip_packing", 64512},
        {"tvm_greedy", 135936}}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.label);
    for (const auto& [strategy, arena] : row.arenas)
      EXPECT_EQ(PlanOffsets(row.problem, strategy).arena_bytes, arena) << strategy;
    // `best` is never worse than any of them and never below the bound.
    const Bytes best = PlanOffsets(row.problem, "best").arena_bytes;
    for (const auto& [strategy, arena] : row.arenas) EXPECT_LE(best, arena) << strategy;
    EXPECT_GE(best, OffsetsLowerBound(row.problem));
  }
}

}  // namespace
}  // namespace memplan
