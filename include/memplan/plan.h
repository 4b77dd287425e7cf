#pragma once
// Offset plans (one arena) and their verification.

#include <string>
#include <string_view>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// An offset for every record of a problem, in record order.
struct OffsetPlan {
  std::string strategy;        // the strategy that made it, e.g. "greedy_by_size"
  std::vector<Bytes> offsets;  // offsets[i] is where record i starts in the arena
  Bytes arena_bytes = 0;       // max(offset + size) over all records, 0 for none
  std::string detail;          // how a composite strategy got it, e.g. "size order, first fit"
};

// max(offsets[i] + size_i), the bytes an arena must have to hold the plan.
Bytes ArenaBytes(const Problem& problem, const std::vector<Bytes>& offsets);

// Makes a plan from offsets, computing arena_bytes.
OffsetPlan MakeOffsetPlan(const Problem& problem, std::string strategy, std::vector<Bytes> offsets);

// One reason a plan is wrong, in words that name the records involved.
struct Violation {
  std::string message;
};

// Every way `plan` fails `problem` (up to `limit` violations): a missing offset, an
// unaligned offset, a moved fixed offset, two conflicting records whose byte ranges
// overlap (fixed records may overlap each other), or a wrong arena_bytes.
// O(n log n) plus O(live fixed records) per online record; no all-pairs scan.
std::vector<Violation> FindViolations(const Problem& problem, const OffsetPlan& plan,
                                      std::size_t limit = 100);

// Throws InternalError with the first violations when the plan is wrong.
void VerifyOrThrow(const Problem& problem, const OffsetPlan& plan);

// Throws InternalError "WHO produced an invalid plan:" with a line per violation, when
// there is any (WHO: "strategy 'naive'", "objects strategy 'equality'", ...).
void ThrowIfInvalid(std::string_view who, const std::vector<Violation>& violations);

}  // namespace memplan
