#pragma once
// The exact offsets solver: a branch and bound over canonical placements that answers
// "does everything fit in C bytes?" with a plan, a proof that nothing fits, or
// "unknown" at a limit; and an anytime minimizer built on it that returns the best
// plan found together with the best proven lower bound.
//
// Determinism: the search runs a fixed portfolio of orderings in rounds of a fixed
// number of nodes; the answer is the one of the member that needs the fewest nodes
// (ties: the first member). The thread count only changes how fast the rounds go,
// never the answer. Only a time limit that cuts a search short depends on the machine.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "memplan/plan.h"

namespace memplan {

// The answer to one decision question.
enum class FitAnswer {
  kYes,      // a plan fits the capacity (offsets given)
  kNo,       // proven: no plan fits (the search was exhausted)
  kUnknown,  // a time or node limit stopped the search first
};

// Limits and resources of one decision question.
struct FitOptions {
  // Wall-clock budget of this question; zero or negative answers at once.
  std::chrono::duration<double> time_limit = std::chrono::seconds(10);
  // Search nodes summed over the portfolio members; 0 = no node limit. Unlike the
  // time limit, a node limit keeps the answer independent of the machine.
  std::uint64_t node_limit = 0;
  // Threads for the portfolio; 0 = as many as the hardware has (at most the members).
  unsigned threads = 0;
};

// What a decision question found.
struct FitResult {
  FitAnswer answer = FitAnswer::kUnknown;
  std::vector<Bytes> offsets;  // one per record when the answer is kYes, else empty
  std::uint64_t nodes = 0;     // search nodes over all portfolio members
};

// Does every record fit in `capacity` bytes (max(offset + size) <= capacity), with
// offsets multiples of problem.alignment and fixed offsets kept? Validates the problem
// (InputError) and verifies a kYes plan before returning it.
FitResult FitsInCapacity(const Problem& problem, Bytes capacity, const FitOptions& options = {});

// Where the anytime minimization stands, for progress displays.
struct ExactProgress {
  Bytes best_bytes = 0;     // arena of the best plan so far
  Bytes bound_bytes = 0;    // best proven lower bound so far
  Bytes probing_bytes = 0;  // capacity of the question being asked next (0: done)
  std::uint64_t nodes = 0;  // search nodes so far
  double elapsed_s = 0;     // seconds since SolveExact started
  // Windows the large-neighbourhood search has asked (0: it is not running).
  std::uint64_t windows = 0;
};

struct ExactOptions {
  // Total wall-clock budget (the command's --time-limit).
  std::chrono::duration<double> time_limit = std::chrono::seconds(10);
  // Budget of one capacity question; 0 = adaptive: the load bound gets a quarter of the
  // total, the other questions start at a 32nd (0.05 to 0.25 s; of the node limit when
  // one is given) that doubles after each pass over the range of capacities.
  std::chrono::duration<double> per_probe_limit = std::chrono::seconds(0);
  // Total search nodes over all questions; 0 = no node limit (see FitOptions).
  std::uint64_t node_limit = 0;
  // Decision mode: answer only whether this capacity fits (no minimization).
  std::optional<Bytes> capacity;
  // Threads for the portfolio; 0 = as many as the hardware has.
  unsigned threads = 0;
  // Called after every capacity question (from the calling thread).
  std::function<void(const ExactProgress&)> progress;
  // The plan to start from instead of running `best` again (a caller that has already
  // planned with `best`, as the command does); it is verified first.
  std::optional<OffsetPlan> start;
};

enum class ExactStatus {
  kOptimal,     // the plan's arena equals the proven lower bound
  kGap,         // a plan, and a proven bound below its arena
  kInfeasible,  // decision mode: proven that nothing fits the capacity
  kUnknown,     // decision mode: no plan within the capacity found in time
};

struct ExactResult {
  ExactStatus status = ExactStatus::kUnknown;
  // The best plan (strategy "exact"); in decision mode only when it fits.
  std::optional<OffsetPlan> plan;
  // Best proven lower bound on the arena (at least the load bound); in decision mode
  // capacity + 1 when nothing fits.
  Bytes bound_bytes = 0;
  bool proven_optimal = false;  // status == kOptimal
  std::uint64_t nodes = 0;      // search nodes over all questions
  double elapsed_s = 0;         // wall time
};

// Minimizes the arena (or, with options.capacity, decides one capacity). Starts from
// the best heuristic plan, asks the lower bound first, then bisects between the best
// proven bound and the best plan, each question with its own budget. Problems too large
// for one search are minimized per time component when they split into several.
ExactResult SolveExact(const Problem& problem, const ExactOptions& options = {});

// A lower bound on any plan's arena that holds with alignment and fixed offsets too:
// per step, the union of the fixed records plus the aligned sizes of the others (the
// topmost record need not be padded), and the highest fixed end.
Bytes ExactLowerBound(const Problem& problem);

// The "exact" offsets strategy: SolveExact with default options.
OffsetPlan PlanExact(const Problem& problem);

}  // namespace memplan
