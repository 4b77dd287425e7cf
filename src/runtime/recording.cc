#include "memplan/recording.h"

#include <fmt/format.h>

namespace memplan {

std::string PrintAllocations(const Arena& arena) {
  constexpr const char* kPrefix = "[RecordingMicroAllocator]";
  std::string out;
  out += fmt::format("{} Arena allocation total {} bytes\n", kPrefix, arena.UsedBytes());
  out +=
      fmt::format("{} Arena allocation head {} bytes\n", kPrefix, arena.NonPersistentUsedBytes());
  out += fmt::format("{} Arena allocation tail {} bytes\n", kPrefix, arena.PersistentUsedBytes());
  for (int k = 0; k < static_cast<int>(ArenaAllocation::kCount); ++k) {
    const auto kind = static_cast<ArenaAllocation>(k);
    const ArenaTally& tally = arena.Tally(kind);
    if (tally.used == 0 && tally.requested == 0) continue;
    const ArenaAllocationLabel label = ArenaAllocationName(kind);
    out += fmt::format(
        "{} '{}' used {} bytes with alignment overhead (requested {} bytes for {} {})\n", kPrefix,
        label.name, tally.used, tally.requested, tally.count, label.unit);
  }
  return out;
}

std::string PrintRuntimeSummary(const Arena& arena, const Interpreter& interpreter) {
  const InterpreterStats& s = interpreter.stats();
  std::string out;
  out += fmt::format(
      "[memplan] Arena peak {} bytes including temporary memory (arena_used_bytes() reports {})\n",
      arena.PeakUsedBytes(), arena.UsedBytes());
  out += fmt::format(
      "[memplan] Temporary peak {} bytes (kernel tensor views, allocation info, planner "
      "working memory)\n",
      arena.PeakTempBytes());
  out += fmt::format(
      "[memplan] Plan '{}': {} buffers ({} tensors, {} scratch, {} offline), head {} bytes\n",
      interpreter.plan().strategy, s.planned_buffers, s.planned_buffers - s.scratch_buffers,
      s.scratch_buffers, s.offline_buffers, s.head_bytes);
  if (s.head_without_inplace > 0)
    out += fmt::format(
        "[memplan] In place: {} output{} in an input's memory; head {} bytes instead of {}\n",
        s.inplace_shares, s.inplace_shares == 1 ? "" : "s", s.head_bytes, s.head_without_inplace);
  if (s.tail_variables > 0)
    out += fmt::format("[memplan] Variables in the tail: {} tensors, {} bytes\n", s.tail_variables,
                       s.variable_bytes);
  if (s.preallocated > 0) {
    const Bytes saved = s.head_without_preallocation > s.head_bytes
                            ? s.head_without_preallocation - s.head_bytes
                            : 0;
    out += fmt::format(
        "[memplan] Preallocated {} tensor{} ({} bytes outside the arena): head {} bytes instead "
        "of {} (saved {})\n",
        s.preallocated, s.preallocated == 1 ? "" : "s", s.preallocated_bytes, s.head_bytes,
        s.head_without_preallocation, saved);
  }
  return out;
}

}  // namespace memplan
