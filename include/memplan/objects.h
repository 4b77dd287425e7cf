#pragma once
// Shared-objects plans (GPU buffers): every record is assigned to an object; records in
// one object must never be alive at the same step; an object is as large as its largest
// record. The cost is the sum of object sizes. TensorFlow Lite's GPU delegates plan
// buffers this way because a GPU buffer cannot be sub-allocated everywhere.
//
// Each strategy is a pure, deterministic function from a Problem to an ObjectPlan. Look
// them up by name; PlanObjects runs one and verifies the result.
//
// Alignment: with alignment A every object size is a multiple of A (records count with
// their size rounded up to A), so objects laid out back to back (ObjectsToOffsetPlan)
// keep every offset aligned. Fixed offsets have no meaning for objects: PlanObjects
// refuses problems that have them.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/plan.h"
#include "memplan/problem.h"
#include "memplan/strategy_table.h"

namespace memplan {

// The index of an object in a plan; objects are numbered in creation order.
using ObjectId = std::size_t;

// An object for every record of a problem.
struct ObjectPlan {
  std::string strategy;              // the strategy that made it, e.g. "greedy_by_size"
  std::vector<ObjectId> object_ids;  // object_ids[i] is the object of record i
  std::vector<Bytes> object_sizes;   // object_sizes[k] is the size of object k
  Bytes total_bytes = 0;             // Σ object_sizes, unused objects included
};

// The bytes record i needs in an object: its size rounded up to the alignment.
Bytes ObjectBytes(const Problem& problem, std::size_t i);

// Makes a plan from ids and sizes, computing total_bytes.
ObjectPlan MakeObjectPlan(std::string strategy, std::vector<ObjectId> object_ids,
                          std::vector<Bytes> object_sizes);

// Makes a plan from ids alone: ids are renumbered densely in order of first use by
// record index, and each object is exactly as large as its largest record (aligned).
ObjectPlan ObjectPlanFromIds(const Problem& problem, std::string strategy,
                             const std::vector<ObjectId>& object_ids);

// Every way `plan` fails `problem` (up to `limit` violations): a missing or unknown
// object id, an object smaller than one of its records, an object size that is not a
// multiple of the alignment, two conflicting records sharing an object (named both),
// or a wrong total. O(n log n): each object's records are checked in step order.
std::vector<Violation> FindObjectViolations(const Problem& problem, const ObjectPlan& plan,
                                            std::size_t limit = 100);

// Throws InternalError with the first violations when the plan is wrong.
void VerifyObjectsOrThrow(const Problem& problem, const ObjectPlan& plan);

// One entry of the table of shared-objects strategies.
using ObjectStrategy = StrategyEntry<ObjectPlan>;

// Every shared-objects strategy, in the order reports list them: TensorFlow Lite GPU's
// (its enum order), then memplan's own `best` and `exact`.
std::span<const ObjectStrategy> ObjectStrategies();

// The strategy called `name`, or nullptr.
const ObjectStrategy* FindObjectStrategy(std::string_view name);

// Validates the problem, runs the named strategy, verifies the plan and returns it.
// Throws UsageError for an unknown name or a problem with fixed offsets, InputError for
// a bad problem, InternalError if the strategy's plan fails verification.
ObjectPlan PlanObjects(const Problem& problem, std::string_view name);

// The same, reusing plans already made for this problem: greedy_best and best, which run
// other named strategies first, take their plans from `known` (matched by
// ObjectPlan::strategy, each verified against the problem) instead of recomputing them.
// The result is that of PlanObjects(problem, name) when each known plan is its
// strategy's.
ObjectPlan PlanObjects(const Problem& problem, std::string_view name,
                       std::span<const ObjectPlan> known);

// The strategies one by one (declared so tests, benchmarks and `best` can call them).
// They expect a validated problem; fixed offsets are ignored.
ObjectPlan PlanObjectsNaive(const Problem& problem);
ObjectPlan PlanObjectsEquality(const Problem& problem);
ObjectPlan PlanObjectsGreedyInOrder(const Problem& problem);
ObjectPlan PlanObjectsGreedyByBreadth(const Problem& problem);
ObjectPlan PlanObjectsGreedyBySize(const Problem& problem);
ObjectPlan PlanObjectsGreedyBest(const Problem& problem);
ObjectPlan PlanObjectsMinCostFlow(const Problem& problem);
ObjectPlan PlanObjectsBest(const Problem& problem);
// greedy_best and best taking the strategies they run first from `known` where present
// (verified plans).
ObjectPlan PlanObjectsGreedyBestReusing(const Problem& problem, std::span<const ObjectPlan> known);
ObjectPlan PlanObjectsBestReusing(const Problem& problem, std::span<const ObjectPlan> known);
ObjectPlan PlanObjectsExact(const Problem& problem);

// objects/exact: best, then an exact branch and bound over the records in step order
// for a smaller total, stopped after `node_limit` nodes (so the answer is a pure
// function). Finishing proves the plan optimal; problems above 2,000 records keep best.
struct ObjectsExactResult {
  ObjectPlan plan;              // verified, strategy "exact"
  bool proven_optimal = false;  // no plan totals less (plan total == bound_bytes)
  Bytes bound_bytes = 0;        // best proven lower bound on the total
  std::uint64_t nodes = 0;      // search nodes spent
  // Why optimality stays open when it does ("" when proven): the search's node budget ran
  // out, or the problem is too large for the search to run.
  std::string open_reason;
};
inline constexpr std::uint64_t kObjectsExactNodeLimit = 200000;
// `best`: objects/best's plan when the caller has it (verified again), else it is made.
ObjectsExactResult SolveObjectsExact(const Problem& problem,
                                     std::uint64_t node_limit = kObjectsExactNodeLimit,
                                     const ObjectPlan* best = nullptr);

// Objects laid out back to back in id order (TensorFlow Lite's ObjectsToOffsets): the
// offset of a record is the sum of the sizes of the objects with smaller ids.
struct ObjectsLayout {
  std::vector<Bytes> offsets;  // offsets[i]: where record i's object starts
  Bytes total_bytes = 0;       // Σ object sizes (unused objects included)
};
ObjectsLayout LayOutObjects(const std::vector<ObjectId>& object_ids,
                            const std::vector<Bytes>& object_sizes);

// An objects plan as a verified offsets plan of the same problem (strategy
// "objects_to_offsets(NAME)"). Its arena_bytes is max(offset + size) <= total_bytes.
OffsetPlan ObjectsToOffsetPlan(const Problem& problem, const ObjectPlan& plan);

}  // namespace memplan
