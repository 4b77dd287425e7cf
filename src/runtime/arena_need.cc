#include "src/runtime/arena_need.h"

#include <fmt/format.h>

#include <memory>

namespace memplan::runtime {

ArenaState ArenaState::Of(const Arena& arena) {
  return {arena.capacity(), arena.PersistentUsedBytes(), arena.reserved_head_bytes(),
          arena.alignment(), arena.two_buffers()};
}

std::optional<ArenaNeed> MeasureArenaNeed(const InterpreterState& like, const ArenaState& before) {
  Bytes size = std::max<Bytes>(Bytes{1} << 20, 2 * before.capacity);
  constexpr Bytes kLimit = Bytes{1} << 44;
  while (size <= kLimit) {
    // Uninitialized: pages the load never touches are never backed. Start and end are
    // aligned, so the layout is the one an aligned buffer of the reported size gets.
    auto memory = std::make_unique_for_overwrite<std::byte[]>(size + 2 * before.alignment);
    const auto base = reinterpret_cast<std::uintptr_t>(memory.get());
    const std::size_t skip = (before.alignment - base % before.alignment) % before.alignment;
    Arena arena(std::span<std::byte>(memory.get() + skip, size), before.alignment);
    try {
      if (before.persistent_used > 0)
        arena.AllocatePersistent(before.persistent_used, 1, ArenaAllocation::kPersistentBufferData);
      if (before.reserved_head > 0) arena.ReserveHead(before.reserved_head);
      InterpreterState state(like.graph, arena, like.kernels, like.options);
      state.preallocated = like.preallocated;
      state.Allocate();
      ArenaNeed need;
      need.total = AlignUp(arena.PeakUsedBytes(), before.alignment);
      need.persistent = arena.PersistentUsedBytes();
      need.non_persistent = AlignUp(arena.PeakNonPersistentBytes(), before.alignment);
      need.head = arena.NonPersistentUsedBytes();
      need.tail = arena.PersistentUsedBytes();
      need.temp_peak = arena.PeakTempBytes();
      return need;
    } catch (const ArenaTooSmall&) {
      size *= 4;
    }
  }
  return std::nullopt;
}

std::string ExplainArenaNeed(const InterpreterState& like, const ArenaState& before) {
  const auto measure = [&]() -> std::optional<ArenaNeed> {
    try {
      return MeasureArenaNeed(like, before);
    } catch (const std::exception&) {
      return std::nullopt;  // the model fails for another reason too; TFLM's words alone
    }
  };
  const std::optional<ArenaNeed> need = measure();
  if (!need) return {};
  if (before.two_buffers) {
    return fmt::format(
        ". The model needs {} bytes of persistent memory and {} bytes of "
        "non-persistent memory (head {} after loading, {} temporary at most)",
        need->persistent, need->non_persistent, need->head, need->temp_peak);
  }
  return fmt::format(
      ". The model needs an arena of at least {} bytes; this one has {} (after "
      "loading: head {} + tail {}; up to {} bytes of temporary memory while "
      "loading); add {} if the buffer is not {}-byte aligned",
      need->total, before.capacity, need->head, need->tail, need->temp_peak, before.alignment,
      before.alignment);
}

}  // namespace memplan::runtime

namespace memplan {

ArenaRequirement MeasureArena(const Graph& graph, const KernelRegistry& kernels,
                              const InterpreterOptions& options,
                              const Preallocations& preallocated) {
  Arena none{std::span<std::byte>{}};
  runtime::InterpreterState like(graph, none, kernels, options);
  like.preallocated = preallocated;
  const auto need = runtime::MeasureArenaNeed(like, runtime::ArenaState::Of(none));
  if (!need)
    throw InputError(fmt::format("{}: no arena up to 2^44 bytes holds this model", graph.source));
  return *need;
}

Bytes RequiredArenaBytes(const Graph& graph, const KernelRegistry& kernels,
                         const InterpreterOptions& options, const Preallocations& preallocated) {
  return MeasureArena(graph, kernels, options, preallocated).total;
}

}  // namespace memplan
