#pragma once
// The random problem the offsets and objects benchmarks share: records shaped like a
// long network, mostly short lifetimes and a few long ones, sizes up to 1 MiB.
#include <random>

#include "memplan/problem.h"

namespace memplan::bench {

inline Problem RandomRecords(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p;
  p.records.reserve(n);
  const Step steps = static_cast<Step>(n / 2 + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const Step first = static_cast<Step>(rng() % static_cast<std::uint64_t>(steps));
    const Step span =
        rng() % 16 == 0 ? static_cast<Step>(rng() % 64) : static_cast<Step>(rng() % 4);
    p.records.push_back({1 + rng() % (1 << 20), first, first + span});
  }
  return p;
}

}  // namespace memplan::bench
