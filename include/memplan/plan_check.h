#pragma once
// A plan file (as include/memplan/plan_report.h writes it) checked against the input it was
// made for, as `memplan verify` checks it: the same records (index, name, size, lifetime),
// then every placement; a plan of a variant (outputs in place, a new operator order) against
// the variant rebuilt from the model.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/plan.h"
#include "memplan/workload.h"

namespace memplan {

struct PlanFileCheck {
  std::string key;                     // "offsets/best[inplace=tflm]"; "?" for no strategy
  std::string mode;                    // "offsets" or "objects"
  std::vector<Violation> differences;  // where the file does not describe the records
  std::vector<Violation> violations;   // where the plan does not fit (messages name the file)
  std::size_t tensors = 0;             // records checked
  Bytes alignment = 0;                 // the alignment checked
  std::size_t objects = 0;             // objects mode: shared objects
  Bytes total_bytes = 0;               // objects mode: their bytes
  Bytes arena_bytes = 0;               // offsets mode: the plan's arena
  Bytes lower_bound = 0;               // offsets mode: of the records (a variant's own)
};

// Checks `text`, the plan file `source`, against `workload` (its label names it), with
// `align` or else the alignment the file was made with; at most `limit` differences or
// violations. `intermediates_only`: the accounting a variant is rebuilt in. The violations
// are only looked for when there are no differences. InputError for a malformed file or an
// unknown variant.
PlanFileCheck CheckPlanFile(Workload workload, std::string_view text, const std::string& source,
                            std::optional<Bytes> align, bool intermediates_only, std::size_t limit);

}  // namespace memplan
