#pragma once
// Large-neighbourhood search: improves a plan too large for one exact search by freeing
// a window of its records at a time (every record that reaches above the target
// capacity, plus the records live in a span of time around a step of high load) and
// asking the exact search whether the window fits below that capacity with every other
// record kept where it is (a fixed obstacle). A window that fits lowers the arena; the
// plan is verified before it is accepted, so every intermediate plan is valid and none is
// above the start. docs/exact.md describes the window choice.
#include <chrono>
#include <cstdint>
#include <functional>

#include "memplan/plan.h"
#include "memplan/problem.h"

namespace memplan::exact {

struct NeighbourhoodOptions {
  // When to stop (the exact solver's deadline).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Search nodes over all windows; 0 = no limit. A node limit makes the result a pure
  // function of the input; otherwise it depends on how many windows the time allows.
  std::uint64_t node_limit = 0;
  // Threads of each window's portfolio (0: one).
  unsigned threads = 1;
  // Called after every window: the best arena so far, the nodes spent, the windows asked.
  std::function<void(Bytes best_bytes, std::uint64_t nodes, std::uint64_t windows)> progress;
};

struct NeighbourhoodResult {
  OffsetPlan plan;             // never above the start; verified
  std::uint64_t nodes = 0;     // search nodes over all windows
  std::uint64_t windows = 0;   // windows asked
  std::uint64_t accepted = 0;  // windows that lowered the arena
};

// Lowers `start` (a verified plan of `problem`) towards `bound` (a proven lower bound)
// until the bound is reached, the deadline passes or the node limit is spent.
NeighbourhoodResult ImproveByNeighbourhoods(const Problem& problem, OffsetPlan start, Bytes bound,
                                            const NeighbourhoodOptions& options);

}  // namespace memplan::exact
