// best: a portfolio. Runs many greedy variants (orders x fit rules, the peers' exact
// strategies among them) and returns the smallest plan. Deterministic: variants run in a
// fixed order, ties go to the earlier one, a variant is abandoned as soon as its arena
// reaches the best so far (it could then at most tie), and the search stops when a plan
// reaches a lower bound. Beyond kBestSmallProblem records only the near-linear variants
// run (never tflm_greedy's order or strip_packing).
#include <algorithm>
#include <functional>
#include <optional>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "src/offsets/orders.h"
#include "src/offsets/placement.h"

namespace memplan {

namespace {

using namespace offsets_internal;

// What every variant shares: the problem and its index over steps.
struct Context {
  const Problem& problem;
  const CompactSteps& steps;
  const ConflictIndex& index;
};

using OrderFn = std::function<std::vector<std::size_t>(const Context&)>;

// One placement order, tried with one or more fit rules.
struct OrderChoice {
  const char* label;      // e.g. "size"
  OrderFn order;          // the online records in placement order
  std::vector<Fit> fits;  // the rules to try with it, in this order
  bool small_only;        // only for problems up to kBestSmallProblem records
};

const char* FitLabel(Fit fit) {
  switch (fit) {
    case Fit::kBest:
      return "best fit";
    case Fit::kFirst:
      return "first fit";
    case Fit::kArena:
      return "arena best fit";
    case Fit::kTop:
      return "no gap reuse";
  }
  return "";
}

std::vector<OrderChoice> Orders() {
  std::vector<OrderChoice> out;
  out.push_back({"size",
                 [](const Context& c) { return SizeOrder(c.problem); },
                 {Fit::kBest, Fit::kFirst},
                 false});
  out.push_back({"tflm_greedy",
                 [](const Context& c) {
                   return SortOnline(c.problem, [&](std::size_t i) {
                     return OrderKey{Descending(c.problem.records[i].size), Descending(i), 0};
                   });
                 },
                 {Fit::kFirst},
                 true});
  out.push_back({"area",
                 [](const Context& c) { return AreaOrder(c.problem); },
                 {Fit::kBest, Fit::kFirst},
                 false});
  out.push_back({"size, lifetime",
                 [](const Context& c) { return SizeThenLifetimeOrder(c.problem); },
                 {Fit::kBest, Fit::kFirst},
                 false});
  out.push_back({"lifetime",
                 [](const Context& c) { return LifetimeOrder(c.problem); },
                 {Fit::kBest, Fit::kFirst},
                 false});
  out.push_back({"start",
                 [](const Context& c) { return StartOrder(c.problem); },
                 {Fit::kBest, Fit::kFirst},
                 false});
  out.push_back({"start, size",
                 [](const Context& c) { return StartThenSizeOrder(c.problem); },
                 {Fit::kBest, Fit::kFirst},
                 false});
  out.push_back({"breadth",
                 [](const Context& c) { return BreadthOrder(c.problem, c.steps, c.index); },
                 {Fit::kBest, Fit::kFirst},
                 false});
  return out;
}

// The lowest arena any plan can have: the peak of live bytes, and with an alignment the
// peak of aligned live bytes less the slack the topmost record may leave unused.
Bytes StopBound(const Problem& problem) {
  Problem raw = problem;
  raw.alignment = 1;
  const Bytes live = OffsetsLowerBound(raw);
  const Bytes aligned = OffsetsLowerBound(problem);
  const Bytes slack = problem.alignment - 1;
  return std::max(live, aligned > slack ? aligned - slack : 0);
}

}  // namespace

OffsetPlan PlanBest(const Problem& problem) {
  const CompactSteps steps = Compact(problem);
  const ConflictIndex index(steps);
  const Context context{problem, steps, index};
  const bool small = problem.size() <= kBestSmallProblem;
  const Bytes bound = StopBound(problem);

  std::optional<OffsetPlan> best;
  auto consider = [&](std::vector<Bytes> offsets, std::string detail) {
    OffsetPlan plan = MakeOffsetPlan(problem, "best", std::move(offsets));
    plan.detail = std::move(detail);
    if (!best || plan.arena_bytes < best->arena_bytes) best = std::move(plan);
  };
  auto done = [&] { return best && best->arena_bytes <= bound; };

  Placer placer(problem, steps, index);
  for (const OrderChoice& choice : Orders()) {
    if (done()) break;
    if (choice.small_only && !small) continue;
    const std::vector<std::size_t> order = choice.order(context);
    for (Fit fit : choice.fits) {
      if (done()) break;
      placer.Reset(fit != Fit::kArena);
      bool beaten = false;
      for (std::size_t r : order) {
        placer.Place(r, fit);
        if (best && placer.ArenaSoFar() >= best->arena_bytes) {
          beaten = true;
          break;
        }
      }
      if (!beaten)
        consider(placer.offsets(), std::string(choice.label) + " order, " + FitLabel(fit));
    }
  }
  if (small && !done()) {
    OffsetPlan strip = PlanStripPacking(problem);
    consider(std::move(strip.offsets), "strip_packing");
  }
  if (!best) consider(PlanNaive(problem).offsets, "naive");  // only with no online records
  return std::move(*best);
}

}  // namespace memplan
