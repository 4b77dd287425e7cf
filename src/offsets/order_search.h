#pragma once
// A deterministic local search over placement orders, used by `best` on small problems:
// the arena's height is set by the records at its top, so placing one of them earlier
// often lets the rest pack lower.
#include <cstdint>
#include <optional>
#include <vector>

#include "src/offsets/placement.h"

namespace memplan::offsets {

// What the search found.
struct SearchResult {
  std::vector<Bytes> offsets;  // the best plan's offsets
  Bytes arena = 0;             // its arena
  std::size_t tries = 0;       // orders tried
};

// Starting from `order` placed with `fit`, repeatedly moves a record
// that reaches the top of the current plan to a pseudo-random earlier position and
// re-places everything; keeps a move when the arena does not grow. Stops after
// `budget` Placer::Reads() or as many as `runs` full placements of the order take, or
// at `bound`. Returns the best plan when it is smaller
// than the starting order's. Deterministic: a fixed-seed generator drives every choice.
std::optional<SearchResult> SearchOrders(Placer& placer, const Problem& problem,
                                         std::vector<std::size_t> order, Fit fit, Bytes bound,
                                         std::uint64_t budget, std::uint64_t runs);

}  // namespace memplan::offsets
