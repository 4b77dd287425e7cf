#pragma once
// Offset strategies: each is a pure, deterministic function from a Problem to an
// OffsetPlan. Look them up by name; PlanOffsets runs one and verifies the result.

#include <span>
#include <string_view>

#include "memplan/plan.h"
#include "memplan/strategy_table.h"

namespace memplan {

// One entry of the table of offsets strategies.
using OffsetStrategy = StrategyEntry<OffsetPlan>;

// Every offset strategy, in the order reports list them.
std::span<const OffsetStrategy> OffsetStrategies();

// The strategy called `name`, or nullptr.
const OffsetStrategy* FindOffsetStrategy(std::string_view name);

// Adds a strategy from an area above this one (the exact solver, which itself starts from
// these strategies' plans) at the end of the list; a name already listed is kept as it is.
// Call it during static initialization only: the list is not locked.
void RegisterOffsetStrategy(const OffsetStrategy& strategy);

// Validates the problem, runs the named strategy, verifies the plan and returns it.
// Throws UsageError for an unknown name, InputError for a bad problem, InternalError
// if the strategy's plan fails verification.
OffsetPlan PlanOffsets(const Problem& problem, std::string_view name);

// The same, reusing plans already made for this problem: a strategy that runs other
// named strategies first (best runs them all) takes their plans from `known` (matched by
// OffsetPlan::strategy, each checked against the problem) instead of recomputing them.
// The result is that of PlanOffsets(problem, name) when each known plan is its
// strategy's.
OffsetPlan PlanOffsets(const Problem& problem, std::string_view name,
                       std::span<const OffsetPlan> known);

// The strategies one by one (declared here so tests and the portfolio can call them).
// Each keeps fixed offsets, places the other records clear of the fixed records they
// conflict with, and returns offsets that are multiples of the problem's alignment.
// Unless noted, each runs in O(n log n + Σ conflicts among placed records): the
// conflicting records are found through an index over steps, not by scanning all.

// Prefix sums in record order (TensorFlow Lite Micro's LinearMemoryPlanner).
OffsetPlan PlanNaive(const Problem& problem);
// TensorFlow Lite GPU best fit, largest first (docs/offsets.md, greedy_by_size).
OffsetPlan PlanGreedyBySize(const Problem& problem);
// TensorFlow Lite Micro GreedyMemoryPlanner: first fit, largest first, ties in reverse
// record order, sizes rounded up to the alignment (docs/offsets.md).
OffsetPlan PlanTflmGreedy(const Problem& problem);
// TensorFlow Lite CPU ArenaPlanner order + SimpleMemoryArena best fit (docs/offsets.md).
// Uses the problem's alignment; TensorFlow Lite's own is 64 bytes.
OffsetPlan PlanTfliteCpu(const Problem& problem);
// SimpleMemoryArena alone: Allocate calls in record order, no ArenaPlanner sort (how
// TensorFlow Lite's arena tests call it). Plan name "tflite_cpu".
OffsetPlan PlanTfliteCpuInCallOrder(const Problem& problem);
// Execution order (first step, index) with TensorFlow Lite GPU best fit (docs/offsets.md).
OffsetPlan PlanGreedyInOrder(const Problem& problem);
// Steps by breadth, each step's records largest first, best fit (docs/offsets.md).
OffsetPlan PlanGreedyByBreadth(const Problem& problem);
// Skyline rectangle packing, a reconstruction of Sekiyama et al. 2018 (docs/offsets.md).
OffsetPlan PlanStripPacking(const Problem& problem);
// XLA GlobalDecreasingSizeBestFitHeap orders on records: spatial (size, then lifetime)
// and temporal (lifetime, then size), both with best fit (docs/offsets.md).
OffsetPlan PlanXlaSpatial(const Problem& problem);
OffsetPlan PlanXlaTemporal(const Problem& problem);
// TVM USMP greedy by size: no gap reuse, each record above its highest conflict
// (docs/offsets.md).
OffsetPlan PlanTvmGreedy(const Problem& problem);
// A portfolio of the greedy strategies above and further orders x fits; returns the
// smallest plan (ties: the earlier variant), stopping early at the lower bound. The
// plan's `detail` names the winning variant. Beyond kBestSmallProblem records it keeps
// to the near-linear variants.
OffsetPlan PlanBest(const Problem& problem);
// best, taking the named strategies' plans from `known` where present (verified plans).
OffsetPlan PlanBestReusing(const Problem& problem, std::span<const OffsetPlan> known);
inline constexpr std::size_t kBestSmallProblem = 20000;

}  // namespace memplan
