// libFuzzer target for the text readers: the first byte picks the reader (records JSON,
// MiniMalloc CSV, plan file), the rest is the file. One target rather than three because
// all three end in the same checks (Validate, plan, verify) and one run covers them on the
// two shared cores; seeds carry their selector byte (see README "Fuzzing").
// Only InputError may come out of a reader; anything else escaping (InternalError from a
// plan that fails verification, a crash, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/offsets.h"
#include "memplan/plan_file.h"
#include "memplan/records_io.h"

namespace {

// What `memplan plan` does next with records: validate, bound, plan cheaply, verify
// (PlanOffsets verifies and throws InternalError for a wrong plan, which must not happen).
void PlanRecords(const memplan::Problem& problem) {
  memplan::Validate(problem);
  memplan::OffsetsLowerBound(problem);
  memplan::PlanOffsets(problem, "greedy_by_size");
  // tflm_greedy is quadratic; small problems only so each input stays fast.
  if (problem.size() <= 200) memplan::PlanOffsets(problem, "tflm_greedy");
}

// What `memplan verify --plan` does with a plan file, against the records the file itself
// describes (missing fields filled in), so every value the checks read is fuzzed.
void CheckPlanFile(const memplan::PlanFile& file) {
  memplan::Problem problem;
  problem.alignment = file.alignment.value_or(1);
  bool all_named = true;
  for (std::size_t i = 0; i < file.tensors.size(); ++i) {
    const memplan::PlanFileTensor& t = file.tensors[i];
    const auto step = static_cast<memplan::Step>(i);
    problem.records.push_back({t.size.value_or(1), t.first.value_or(step), t.last.value_or(step)});
    all_named = all_named && t.name.has_value();
  }
  if (all_named)
    for (const memplan::PlanFileTensor& t : file.tensors) problem.names.push_back(*t.name);
  try {
    memplan::Validate(problem);
  } catch (const memplan::InputError&) {
    return;  // verify would reject the input before looking at the plan
  }
  memplan::CompareWithProblem(file, problem, "fuzz.json");
  if (file.mode == "objects") {
    memplan::FindObjectsViolations(file, problem);
  } else {
    memplan::FindViolations(problem, memplan::OffsetPlanOf(file, problem));
  }
  PlanRecords(problem);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0:
        PlanRecords(memplan::ParseRecordsJson(text, "fuzz.json"));
        break;
      case 1:
        PlanRecords(memplan::ParseRecordsCsv(text, "fuzz.csv"));
        break;
      default:
        CheckPlanFile(memplan::ParsePlanFile(text, "fuzz.plan.json"));
        break;
    }
  } catch (const memplan::InputError&) {
    // Rejected cleanly: what bad input should do.
  }
  return 0;
}
