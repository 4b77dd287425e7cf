// best: a portfolio. Runs many greedy variants (orders x fit rules, the peers' exact
// strategies among them), on small problems also strip_packing and a search over
// orders, and returns the smallest plan. Deterministic: variants run in a fixed order,
// ties go to the earlier one, a variant is abandoned as soon as its arena reaches the
// best so far (it could at most tie), and everything stops once a plan reaches a lower
// bound. Beyond kBestSmallProblem records only the near-linear greedy variants run
// (never tflm_greedy's order, strip_packing or the search).
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "src/offsets/order_search.h"
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

// One placement order, tried with one or more fit rules.
struct OrderChoice {
  const char* label;                                             // e.g. "size"
  std::function<std::vector<std::size_t>(const Context&)> make;  // the online records, in order
  std::vector<Fit> fits;                                         // rules to try, in this order
  bool small_only;   // only on problems up to kBestSmallProblem records
  bool search_from;  // on small problems, the order search starts here too
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

std::vector<OrderChoice> Choices() {
  const std::vector<Fit> both = {Fit::kBest, Fit::kFirst};
  std::vector<OrderChoice> out;
  out.push_back({"size", [](const Context& c) { return SizeOrder(c.problem); }, both, false, true});
  out.push_back({"size, reverse ties (tflm_greedy)",
                 [](const Context& c) {
                   return SortOnline(c.problem, [&](std::size_t i) {
                     const Bytes size = AlignUp(c.problem.records[i].size, c.problem.alignment);
                     return OrderKey{Descending(size), Descending(i), 0};
                   });
                 },
                 {Fit::kFirst},
                 true,
                 false});
  out.push_back({"size, lifetime",
                 [](const Context& c) { return SizeThenLifetimeOrder(c.problem); }, both, false,
                 false});
  out.push_back(
      {"area", [](const Context& c) { return AreaOrder(c.problem); }, both, false, false});
  out.push_back(
      {"lifetime", [](const Context& c) { return LifetimeOrder(c.problem); }, both, false, false});
  out.push_back(
      {"start", [](const Context& c) { return StartOrder(c.problem); }, both, false, true});
  out.push_back({"start, size", [](const Context& c) { return StartThenSizeOrder(c.problem); },
                 both, false, false});
  out.push_back({"breadth",
                 [](const Context& c) { return BreadthOrder(c.problem, c.steps, c.index); }, both,
                 false, false});
  return out;
}

// The lowest arena any plan can have: the peak of live bytes, and with an alignment the
// peak of aligned live bytes less the slack the topmost record may leave unused.
Bytes StopBound(const Problem& problem) {
  Problem raw;
  raw.records = problem.records;
  const Bytes live = OffsetsLowerBound(raw);
  const Bytes aligned = OffsetsLowerBound(problem);
  const Bytes slack = problem.alignment - 1;
  return std::max(live, aligned > slack ? aligned - slack : 0);
}

// Record placements one order search may spend per record of the problem, and all the
// searches together at most (a few tens of ms on a few hundred densely conflicting
// records, about a second on 20,000 sparse ones). More finds little: each search settles
// in a local optimum within a few hundred tries.
constexpr std::uint64_t kSearchPlacementsPerRecord = 100;
constexpr std::uint64_t kSearchPlacementsMax = 2'000'000;

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

  // Where the order search starts: the winning greedy variant and a few diverse ones.
  struct Start {
    std::vector<std::size_t> order;  // the variant's order
    Fit fit;                         // and its fit rule
    std::string label;               // its name in `detail`
  };
  std::optional<Start> winner;
  std::vector<Start> diverse;

  Placer placer(problem, steps, index);
  for (const OrderChoice& choice : Choices()) {
    if (done()) break;
    if (choice.small_only && !small) continue;
    std::vector<std::size_t> order = choice.make(context);
    for (Fit fit : choice.fits) {
      if (done()) break;
      const std::string label = std::string(choice.label) + " order, " + FitLabel(fit);
      placer.Reset(fit != Fit::kArena);
      const Bytes give_up = best ? best->arena_bytes - 1 : ~Bytes{0};
      const bool wins = placer.PlaceAll(order, fit, give_up);
      if (wins) consider(placer.Offsets(), label);
      if (small && wins) winner = Start{order, fit, label};
      if (small && choice.search_from) diverse.push_back({order, fit, label});
    }
  }
  std::vector<Start> starts;
  if (winner) starts.push_back(std::move(*winner));
  for (Start& start : diverse)
    if (starts.empty() || start.label != starts.front().label) starts.push_back(std::move(start));
  if (small && !done()) {
    // The skyline packs differently from any greedy order; its plan read bottom-up is an
    // order the search can start from too.
    std::vector<Bytes> strip = PlanStripPacking(problem).offsets;
    std::vector<std::size_t> bottom_up = OnlineRecords(problem);
    std::stable_sort(bottom_up.begin(), bottom_up.end(),
                     [&](std::size_t a, std::size_t b) { return strip[a] < strip[b]; });
    consider(std::move(strip), "strip_packing");
    for (Fit fit : {Fit::kFirst, Fit::kBest})
      starts.push_back({bottom_up, fit, std::string("strip_packing's order, ") + FitLabel(fit)});
  }
  const std::uint64_t budget =
      starts.empty() ? 0
                     : std::min<std::uint64_t>(kSearchPlacementsPerRecord * problem.size(),
                                               kSearchPlacementsMax / starts.size());
  for (const Start& start : starts) {
    if (done()) break;
    if (auto found = SearchOrders(placer, problem, start.order, start.fit, bound, budget))
      consider(std::move(found->offsets),
               fmt::format("{}, reordered ({} tries)", start.label, found->tries));
  }
  return std::move(*best);
}

}  // namespace memplan
