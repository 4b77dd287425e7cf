#pragma once
// Plan files as `memplan plan --out` writes them, read back so a plan can be checked
// against its input (`memplan verify`) or drawn (`memplan show`).
//   offsets: {"mode": "offsets", "strategy", "arena_bytes", "alignment",
//             "tensors": [{"index", "name", "size", "first", "last", "offset"}, ...]}
//   objects: {"mode": "objects", ..., "tensors": [{..., "object"}], "objects": [sizes]}

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/plan.h"

namespace memplan {

// One entry of "tensors"; every field but the placement is optional and, when present,
// must agree with the input.
struct PlanFileTensor {
  std::optional<std::size_t> index;   // position in the input's records
  std::optional<std::string> name;    // the record's name as the plan was written
  std::optional<Bytes> size;          // bytes
  std::optional<Step> first, last;    // inclusive lifetime
  std::optional<Bytes> offset;        // offsets mode: where the tensor starts
  std::optional<std::size_t> object;  // objects mode: the shared object it lives in
};

struct PlanFile {
  std::string source;                   // the file, for messages
  std::string mode;                     // "offsets" or "objects"
  std::string strategy;                 // as written; may be empty
  std::optional<Bytes> arena_bytes;     // offsets mode: the claimed arena
  std::optional<Bytes> alignment;       // the alignment the plan was made with
  std::vector<PlanFileTensor> tensors;  // in record order
  std::vector<Bytes> object_sizes;      // objects mode: "objects"
};

// Parses a plan file. InputError with "source:line:column: ..." for malformed JSON and
// "source: tensors[3].offset: ..." for a missing or mistyped field.
PlanFile ParsePlanFile(std::string_view text, std::string_view source);

// Every way the plan file disagrees with `problem` (a tensor count, index, name, size
// or lifetime that differs), up to `limit` entries; empty when it describes the
// problem's records. `input` names the input in messages.
std::vector<Violation> CompareWithProblem(const PlanFile& file, const Problem& problem,
                                          std::string_view input, std::size_t limit = 100);

// The offsets of an offsets-mode file as an OffsetPlan (arena_bytes as claimed, or
// computed when the file has none). InputError for an objects-mode file.
OffsetPlan OffsetPlanOf(const PlanFile& file, const Problem& problem);

// Every way an objects-mode file fails `problem` (up to `limit`): an object id past
// "objects", a tensor larger than its object, or two conflicting tensors in one object.
// Expects CompareWithProblem to have found nothing.
std::vector<Violation> FindObjectsViolations(const PlanFile& file, const Problem& problem,
                                             std::size_t limit = 100);

}  // namespace memplan
