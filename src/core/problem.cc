#include "memplan/problem.h"

#include <fmt/format.h>

#include <limits>

#include "memplan/error.h"

namespace memplan {

bool Problem::HasFixed() const {
  for (const auto& f : fixed_offsets)
    if (f) return true;
  return false;
}

std::string Problem::NameOf(std::size_t i) const {
  if (i < names.size() && !names[i].empty()) return names[i];
  return fmt::format("#{}", i);
}

std::string Problem::Describe(std::size_t i) const {
  const UsageRecord& r = records[i];
  return fmt::format("record {} '{}' ({} B, steps {}..{})", i, NameOf(i), r.size, r.first, r.last);
}

void Validate(const Problem& problem) {
  if (problem.alignment == 0) throw InputError("alignment must be at least 1, got 0");
  if (problem.alignment > (Bytes{1} << 40))
    throw InputError(fmt::format("alignment {} is absurdly large", problem.alignment));
  if (!problem.fixed_offsets.empty() && problem.fixed_offsets.size() != problem.records.size())
    throw InputError(fmt::format("{} fixed offsets given for {} records",
                                 problem.fixed_offsets.size(), problem.records.size()));
  if (!problem.names.empty() && problem.names.size() != problem.records.size())
    throw InputError(
        fmt::format("{} names given for {} records", problem.names.size(), problem.records.size()));

  // Every arena position must stay representable: Σ aligned sizes plus the largest
  // fixed end must fit in 64 bits, so no strategy can overflow while stacking records.
  constexpr Bytes kMax = std::numeric_limits<Bytes>::max();
  constexpr Step kMaxStep = Step{1} << 62;
  Bytes total = 0;
  for (std::size_t i = 0; i < problem.records.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    if (r.first < 0)
      throw InputError(fmt::format("{}: first step {} is negative", problem.Describe(i), r.first));
    if (r.first > r.last)
      throw InputError(fmt::format("{}: first step {} is after last step {}", problem.Describe(i),
                                   r.first, r.last));
    // Sweeps and bounds step to last + 1; 2^62 keeps that (and step differences) in range.
    if (r.last >= kMaxStep)
      throw InputError(
          fmt::format("{}: last step {} is too large (limit 2^62)", problem.Describe(i), r.last));
    const Bytes slack = problem.alignment - 1;
    if (r.size > kMax / 4 || total > kMax / 4 - r.size - slack)
      throw InputError(fmt::format(
          "{}: sizes overflow: the records' total exceeds 2^62 bytes, no arena can hold them",
          problem.Describe(i)));
    total += r.size + slack;
    if (problem.IsFixed(i)) {
      const Bytes off = *problem.fixed_offsets[i];
      if (!IsAligned(off, problem.alignment))
        throw InputError(fmt::format("{}: fixed offset {} is not a multiple of the alignment {}",
                                     problem.Describe(i), off, problem.alignment));
      if (off > kMax / 4)
        throw InputError(
            fmt::format("{}: fixed offset {} is absurdly large", problem.Describe(i), off));
    }
  }
}

}  // namespace memplan
