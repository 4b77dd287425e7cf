// Small published record sets, so memplan runs without any file.
#include "src/formats/zoo_records.h"

#include <fmt/format.h>

namespace memplan {

namespace {

struct Example {
  const char* name;
  const char* description;
  std::vector<UsageRecord> records;
};

const std::vector<Example>& Examples() {
  static const std::vector<Example> examples = {
      {"paper_example",
       "the 8-record example of Pisarchyk & Lee (greedy by size reaches 124 B)",
       {{32, 0, 1},
        {28, 1, 4},
        {36, 2, 5},
        {16, 3, 5},
        {8, 4, 5},
        {64, 5, 7},
        {10, 6, 8},
        {40, 7, 8}}},
      {"tflite_gpu_complex",
       "TensorFlow Lite GPU's ComplexRecords test (9 records, lower bound 96 B)",
       {{32, 0, 1},
        {32, 1, 4},
        {8, 2, 5},
        {16, 3, 5},
        {8, 4, 5},
        {64, 5, 7},
        {8, 6, 8},
        {8, 7, 8},
        {16, 8, 9}}},
  };
  return examples;
}

}  // namespace

std::optional<Problem> ZooRecords(std::string_view name) {
  for (const Example& e : Examples()) {
    if (name != e.name) continue;
    Problem p;
    p.records = e.records;
    for (std::size_t i = 0; i < p.records.size(); ++i) p.names.push_back(fmt::format("t{}", i));
    return p;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> ZooRecordNames() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Example& e : Examples()) out.emplace_back(e.name, e.description);
  return out;
}

}  // namespace memplan
