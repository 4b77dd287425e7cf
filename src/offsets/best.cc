// best: a portfolio. Runs many greedy variants (orders x fit rules), among them every
// order and fit rule of a named strategy (so best is never above one of them, at any
// size), also naive and strip_packing, on small problems searches over orders, and
// returns the smallest plan (ties: the earlier variant, in the fixed order below).
// When none reaches the lower bound, the greedy orders run again anchored at the
// heaviest step (peak_anchor.h): the records live there packed first, the rest after.
//
// Work runs on up to kMaxWorkers threads, yet the result never depends on timing: a
// variant gives up only once its arena exceeds that of a variant already finished
// (so the winner always finishes), and once a finished variant reaches the lower bound
// only the variants before it still run (one of them could tie it and would win).
// Beyond kBestSmallProblem records the variants no named strategy uses thin out (first
// fit only where tflm_greedy uses it, no searches); beyond 200,000 the area and
// start-then-size orders are left out too.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <numeric>
#include <optional>
#include <string_view>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/offsets.h"
#include "src/offsets/best_internal.h"
#include "src/offsets/order_search.h"
#include "src/offsets/orders.h"
#include "src/offsets/peak_anchor.h"
#include "src/offsets/placement.h"

namespace memplan {

namespace {

using namespace offsets;

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
  std::size_t up_to;  // runs on problems of at most this many records
  bool search_from;   // on small problems, an order search starts here
  bool run_first;     // cheap: run before the others to give them a limit early
  // The named strategy that is this order with `named_fit`, or nullptr: its plan, when
  // known, is taken instead of placing the order again.
  const char* named = nullptr;
  Fit named_fit = Fit::kSmallestGap;
  // Numbered after strip_packing's slot: variants added to the portfolio later than it
  // lose ties to it and to the earlier ones, which keeps earlier plans.
  bool late = false;
};

const char* FitLabel(Fit fit) {
  switch (fit) {
    case Fit::kSmallestGap:
      return "best fit";
    case Fit::kLowestGap:
      return "first fit";
    case Fit::kArena:
      return "arena best fit";
    case Fit::kAboveAll:
      return "no gap reuse";
  }
  return "";
}

// The greedy variants, best first on typical inputs. On large problems each costs a
// full pass over the records, so the list there keeps the cheap and the diverse ones.
std::vector<OrderChoice> Choices(std::size_t records) {
  const bool small = records <= kBestSmallProblem;
  const std::vector<Fit> fits = small ? std::vector<Fit>{Fit::kSmallestGap, Fit::kLowestGap}
                                      : std::vector<Fit>{Fit::kSmallestGap};
  constexpr std::size_t kAny = ~std::size_t{0};
  constexpr std::size_t kMedium = 200'000;
  std::vector<OrderChoice> all;
  // The named strategies' own variants run at every size (kAny).
  all.push_back(
      {"size", [](const Context& c) { return SizeOrder(c.problem); }, fits, kAny, true, false});
  all.push_back({"breadth", [](const Context& c) { return BreadthOrder(c.problem, c.steps); }, fits,
                 kAny, false, false});
  all.push_back(
      {"start", [](const Context& c) { return StartOrder(c.problem); }, fits, kAny, true, true});
  all.push_back(
      {"area", [](const Context& c) { return AreaOrder(c.problem); }, fits, kMedium, false, false});
  all.push_back({"lifetime", [](const Context& c) { return LifetimeOrder(c.problem); }, fits, kAny,
                 false, false});
  all.push_back({"size, reverse ties (tflm_greedy)",
                 [](const Context& c) { return TflmOrder(c.problem); },
                 {Fit::kLowestGap},
                 kAny,
                 false,
                 false});
  all.push_back({"size, lifetime",
                 [](const Context& c) { return SizeThenLifetimeOrder(c.problem); }, fits, kAny,
                 false, false});
  all.push_back({"start, size", [](const Context& c) { return StartThenSizeOrder(c.problem); },
                 fits, kBestSmallProblem, false, false});
  // Two orders with a fit rule of their own, numbered late (see OrderChoice::late).
  const auto add_late = [&](const char* label, std::vector<std::size_t> (*order)(const Problem&),
                            Fit fit) {
    all.push_back({label,
                   [order](const Context& c) { return order(c.problem); },
                   {fit},
                   kAny,
                   false,
                   false,
                   nullptr,
                   Fit::kSmallestGap,
                   true});
  };
  add_late("tflite_cpu", &TfliteCpuOrder, Fit::kArena);
  add_late("tvm_greedy", &TvmOrder, Fit::kAboveAll);
  // The variants that are named strategies, whose plans a caller may know already.
  const std::pair<std::string_view, const char*> named[] = {
      {"size", "greedy_by_size"},
      {"breadth", "greedy_by_breadth"},
      {"start", "greedy_in_order"},
      {"lifetime", "xla_temporal"},
      {"size, reverse ties (tflm_greedy)", "tflm_greedy"},
      {"size, lifetime", "xla_spatial"},
      {"tflite_cpu", "tflite_cpu"},
      {"tvm_greedy", "tvm_greedy"},
  };
  for (OrderChoice& c : all) {
    for (const auto& [label, strategy] : named) {
      if (c.label != label) continue;
      c.named = strategy;
      c.named_fit = c.fits.size() == 1 ? c.fits.front() : Fit::kSmallestGap;
    }
  }
  std::vector<OrderChoice> out;
  for (OrderChoice& c : all)
    if (records <= c.up_to) out.push_back(std::move(c));
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

// Work one order search may spend: as much as kSearchRuns placements of its whole order,
// and all searches together at most kSearchReads Placer::Reads (about 0.1 s of one core).
// More finds little: each search settles in a local optimum within a few hundred tries.
constexpr std::uint64_t kSearchRuns = 100;
constexpr std::uint64_t kSearchReads = 50'000'000;
// Threads for the variants; below this many records one thread is quicker.
constexpr unsigned kMaxWorkers = 4;
constexpr std::size_t kParallelFrom = 1000;

// Runs job(item, worker) for items 0..count-1 on `workers` threads (worker 0 is the
// calling thread), items handed out in order.
void ForEachItem(std::size_t count, unsigned workers,
                 const std::function<void(std::size_t, unsigned)>& job) {
  std::atomic<std::size_t> next{0};
  auto work = [&](unsigned worker) {
    for (std::size_t item; (item = next.fetch_add(1)) < count;) job(item, worker);
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < std::min<std::size_t>(workers, count); ++w)
    threads.emplace_back(work, w);
  work(0);
  for (std::thread& t : threads) t.join();
}

// Which greedy variant made a candidate: an order (its index among the choices) with a
// fit rule. Stage 3 starts its searches from the winning variants by this identity.
struct GreedyVariant {
  std::size_t choice = 0;
  Fit fit = Fit::kSmallestGap;
  friend bool operator==(const GreedyVariant&, const GreedyVariant&) = default;
};

// A finished candidate plan.
struct Candidate {
  Bytes arena = 0;             // its arena
  std::vector<Bytes> offsets;  // its offsets
  std::string detail;          // how it was made
  std::optional<GreedyVariant> from =
      std::nullopt;  // the greedy variant that made it, if one did as it is
};

// Candidates in a fixed order of slots, and the shared limits that let unfinished ones
// give up early without changing which one wins.
class Results {
 public:
  Results(std::size_t slots, Bytes bound) : slots_(slots), bound_(bound) {}

  // Candidates above `arena` cannot matter (a plan that small is known already).
  void Cap(Bytes arena) {
    std::lock_guard lock(mutex_);
    if (arena < limit_.load()) limit_.store(arena);
  }

  // Anything arriving later cannot win once its arena exceeds this.
  const std::atomic<Bytes>& Limit() const { return limit_; }
  // Slot `slot` need not run: an earlier slot already reached the bound.
  bool Settled(std::size_t slot) const { return settled_before_.load() < slot; }

  void Add(std::size_t slot, Candidate candidate) {
    std::lock_guard lock(mutex_);
    Bytes limit = limit_.load();
    if (candidate.arena < limit) limit_.store(candidate.arena);
    if (candidate.arena <= bound_ && slot < settled_before_.load()) settled_before_.store(slot);
    slots_[slot] = std::move(candidate);
  }

  // The variant of the smallest candidate among slots [0, end), the earliest on ties.
  std::optional<GreedyVariant> VariantOfBestBefore(std::size_t end) {
    std::lock_guard lock(mutex_);
    const std::optional<Candidate>* best = nullptr;
    for (std::size_t s = 0; s < end && s < slots_.size(); ++s)
      if (slots_[s] && (!best || slots_[s]->arena < (*best)->arena)) best = &slots_[s];
    return best ? (*best)->from : std::nullopt;
  }

  // The smallest candidate, the earliest on ties.
  std::optional<Candidate> Take() {
    std::optional<Candidate> best;
    for (auto& c : slots_)
      if (c && (!best || c->arena < best->arena)) best = std::move(c);
    return best;
  }

 private:
  std::mutex mutex_;
  std::vector<std::optional<Candidate>> slots_;
  const Bytes bound_;
  std::atomic<Bytes> limit_{~Bytes{0}};
  std::atomic<std::size_t> settled_before_{~std::size_t{0}};
};

// Stage 2: the greedy orders again, anchored at the heaviest step: its online records
// packed bottom-up first (in the order of `winner`'s offsets), the rest after them in
// each order with its best and first fits. Only a plan below `winner` is returned.
std::optional<Candidate> AnchoredAtPeak(const Context& context,
                                        const std::vector<OrderChoice>& choices,
                                        const Candidate& winner, Bytes bound, unsigned workers,
                                        const std::function<Placer&(unsigned)>& placer_for) {
  const Problem& problem = context.problem;
  const std::int32_t peak = HeaviestStep(problem, context.steps);
  if (peak < 0) return std::nullopt;
  // Packed in the order of the best plan's offsets, the peak keeps the winner's
  // arrangement without its holes (largest first was tried too and never won, on the
  // compiler traces or on random problems).
  const std::vector<std::size_t> anchor =
      OnlineLiveAt(problem, context.steps, peak, winner.offsets);
  if (anchor.empty()) return std::nullopt;
  std::vector<bool> anchored(problem.size(), false);
  for (std::size_t r : anchor) anchored[r] = true;
  const Step step = OriginalStep(problem, anchor);

  // One item per order (made once), its best and first fits in turn: slots numbered as
  // stage 1 numbers them, so ties go to the earlier order, then the earlier fit.
  std::vector<std::vector<Fit>> fits(choices.size());
  std::vector<std::size_t> first_slot(choices.size());
  std::size_t slots = 0;
  for (std::size_t c = 0; c < choices.size(); ++c) {
    for (Fit fit : choices[c].fits)
      if (fit == Fit::kSmallestGap || fit == Fit::kLowestGap) fits[c].push_back(fit);
    first_slot[c] = slots;
    slots += fits[c].size();
  }
  Results found(slots, bound);
  found.Cap(winner.arena);
  ForEachItem(choices.size(), workers, [&](std::size_t c, unsigned worker) {
    if (fits[c].empty() || found.Settled(first_slot[c])) return;
    std::vector<std::size_t> rest = choices[c].make(context);
    std::erase_if(rest, [&](std::size_t r) { return anchored[r]; });
    Placer& placer = placer_for(worker);
    for (std::size_t f = 0; f < fits[c].size(); ++f) {
      const std::size_t slot = first_slot[c] + f;
      if (found.Settled(slot)) break;
      if (!PlaceAnchored(placer, anchor, rest, fits[c][f], found.Limit())) continue;
      found.Add(slot, {placer.ArenaSoFar(), placer.Offsets(),
                       fmt::format("anchored at step {} ({} records by offset), then {} order, {}",
                                   step, anchor.size(), choices[c].label, FitLabel(fits[c][f]))});
    }
  });
  std::optional<Candidate> better = found.Take();
  if (better && better->arena < winner.arena) return better;
  return std::nullopt;
}

// A known plan of a named strategy, or nullptr.
const OffsetPlan* KnownPlan(std::span<const OffsetPlan> known, std::string_view strategy) {
  for (const OffsetPlan& plan : known)
    if (plan.strategy == strategy) return &plan;
  return nullptr;
}

// Stage 1's slots (the order of ties): each order's fits, strip_packing, the orders
// added later, naive.
struct GreedySlots {
  std::vector<std::size_t> first;  // slot of each choice's first fit
  std::size_t strip = 0;
  std::size_t naive = 0;
  std::size_t count = 0;
};

GreedySlots NumberGreedySlots(const std::vector<OrderChoice>& choices) {
  GreedySlots slots;
  slots.first.resize(choices.size());
  for (std::size_t c = 0; c < choices.size(); ++c) {
    if (choices[c].late) continue;
    slots.first[c] = slots.count;
    slots.count += choices[c].fits.size();
  }
  slots.strip = slots.count++;
  for (std::size_t c = 0; c < choices.size(); ++c) {
    if (!choices[c].late) continue;
    slots.first[c] = slots.count;
    slots.count += choices[c].fits.size();
  }
  slots.naive = slots.count++;
  return slots;
}

// What stage 1 leaves to stage 3: each order (small problems only) and strip_packing's
// offsets.
struct GreedyOrders {
  std::vector<std::vector<std::size_t>> orders;
  std::vector<Bytes> strip;
};

// One greedy order with its fits in turn, into its slots (a known plan of the named
// strategy it reproduces is taken instead of placing it again).
void PlaceChoice(const Context& context, const OrderChoice& choice, std::size_t item,
                 std::size_t first_slot, std::span<const OffsetPlan> known, Placer& placer,
                 Results& greedy, std::vector<std::size_t>& order) {
  const Problem& problem = context.problem;
  order = choice.make(context);
  for (std::size_t f = 0; f < choice.fits.size(); ++f) {
    const std::size_t slot = first_slot + f;
    if (greedy.Settled(slot)) break;
    const Fit fit = choice.fits[f];
    const std::string label = std::string(choice.label) + " order, " + FitLabel(fit);
    const OffsetPlan* same =
        choice.named && fit == choice.named_fit ? KnownPlan(known, choice.named) : nullptr;
    if (same) {
      greedy.Add(slot, {ArenaBytes(problem, same->offsets), same->offsets, label,
                        GreedyVariant{item, fit}});
      continue;
    }
    placer.Reset(fit != Fit::kArena);
    if (!placer.PlaceAll(order, fit, greedy.Limit())) continue;
    greedy.Add(slot, {placer.ArenaSoFar(), placer.Offsets(), label, GreedyVariant{item, fit}});
  }
}

// Stage 1: the greedy variants, one order per item, its fits in turn; then
// strip_packing and naive as two more items (they are no greedy orders).
GreedyOrders RunGreedyStage(const Context& context, const std::vector<OrderChoice>& choices,
                            const GreedySlots& slots, std::span<const OffsetPlan> known,
                            bool keep_orders, unsigned workers,
                            const std::function<Placer&(unsigned)>& placer_for, Results& greedy) {
  const Problem& problem = context.problem;
  GreedyOrders out;
  out.orders.resize(choices.size());
  // Which item runs when changes only the time taken, never the result: the cheap
  // execution order first, so its plan lets the others give up early; strip_packing
  // (slow, and unable to give up) next, beside the rest.
  std::vector<std::size_t> run_order(choices.size());
  std::iota(run_order.begin(), run_order.end(), 0);
  std::stable_partition(run_order.begin(), run_order.end(),
                        [&](std::size_t c) { return choices[c].run_first; });
  run_order.insert(run_order.begin() + 1, choices.size());
  run_order.push_back(choices.size() + 1);
  ForEachItem(run_order.size(), workers, [&](std::size_t position, unsigned worker) {
    const std::size_t item = run_order[position];
    if (item == choices.size()) {
      if (greedy.Settled(slots.strip)) return;
      const OffsetPlan* known_strip = KnownPlan(known, "strip_packing");
      out.strip = known_strip ? known_strip->offsets : PlanStripPacking(problem).offsets;
      greedy.Add(slots.strip, {ArenaBytes(problem, out.strip), out.strip, "strip_packing"});
      return;
    }
    if (item == choices.size() + 1) {
      if (greedy.Settled(slots.naive)) return;
      const OffsetPlan* known_naive = KnownPlan(known, "naive");
      std::vector<Bytes> naive = known_naive ? known_naive->offsets : PlanNaive(problem).offsets;
      greedy.Add(slots.naive, {ArenaBytes(problem, naive), std::move(naive), "naive"});
      return;
    }
    if (greedy.Settled(slots.first[item])) return;
    std::vector<std::size_t> order;
    PlaceChoice(context, choices[item], item, slots.first[item], known, placer_for(worker), greedy,
                order);
    if (keep_orders) out.orders[item] = std::move(order);
  });
  return out;
}

// Stage 3 (small problems): order searches from the winner, from the winner among the
// variants up to strip_packing (`classic`), from the diverse orders and from
// strip_packing's plan read bottom-up. The best plan found, if one was.
std::optional<Candidate> SearchFromStarts(const Context& context,
                                          const std::vector<OrderChoice>& choices,
                                          const GreedyOrders& greedy, const Candidate& winner,
                                          const std::optional<GreedyVariant>& classic, Bytes bound,
                                          unsigned workers,
                                          const std::function<Placer&(unsigned)>& placer_for) {
  const Problem& problem = context.problem;
  struct Start {
    std::vector<std::size_t> order;  // where the search starts
    Fit fit;                         // with this fit rule
    std::string label;               // its name in `detail`
  };
  std::vector<Start> starts;
  for (std::size_t c = 0; c < choices.size(); ++c) {
    for (Fit fit : choices[c].fits) {
      const std::string label = std::string(choices[c].label) + " order, " + FitLabel(fit);
      if (greedy.orders[c].empty()) continue;  // no online records
      if (winner.from == GreedyVariant{c, fit})
        starts.insert(starts.begin(), {greedy.orders[c], fit, label});
      else if (classic == GreedyVariant{c, fit})
        starts.insert(starts.begin() + (starts.empty() ? 0 : 1), {greedy.orders[c], fit, label});
      else if (choices[c].search_from)
        starts.push_back({greedy.orders[c], fit, label});
    }
  }
  std::vector<std::size_t> bottom_up = OnlineRecords(problem);
  std::stable_sort(bottom_up.begin(), bottom_up.end(),
                   [&](std::size_t a, std::size_t b) { return greedy.strip[a] < greedy.strip[b]; });
  for (Fit fit : {Fit::kLowestGap, Fit::kSmallestGap})
    starts.push_back({bottom_up, fit, std::string("strip_packing's order, ") + FitLabel(fit)});

  Results found(starts.size(), bound);
  const std::uint64_t budget = kSearchReads / starts.size();
  ForEachItem(starts.size(), workers, [&](std::size_t item, unsigned worker) {
    if (found.Settled(item)) return;
    const Start& start = starts[item];
    if (auto result = SearchOrders(placer_for(worker), problem, start.order, start.fit, bound,
                                   budget, kSearchRuns))
      found.Add(item, {result->arena, std::move(result->offsets),
                       fmt::format("{}, reordered ({} tries)", start.label, result->tries)});
  });
  return found.Take();
}

}  // namespace

namespace offsets {

OffsetPlan PlanBestWithWorkers(const Problem& problem, unsigned workers,
                               std::span<const OffsetPlan> known) {
  const CompactSteps steps = Compact(problem);
  const ConflictIndex index(steps);
  const Context context{problem, steps, index};
  const bool small = problem.size() <= kBestSmallProblem;
  const Bytes bound = StopBound(problem);
  if (problem.size() < kParallelFrom) workers = 1;
  std::vector<std::optional<Placer>> placers(workers);
  const std::function<Placer&(unsigned)> placer_for = [&](unsigned worker) -> Placer& {
    if (!placers[worker]) placers[worker].emplace(problem, steps, index);
    return *placers[worker];
  };

  const std::vector<OrderChoice> choices = Choices(problem.size());
  const GreedySlots slots = NumberGreedySlots(choices);
  Results greedy(slots.count, bound);
  const GreedyOrders orders =
      RunGreedyStage(context, choices, slots, known, small, workers, placer_for, greedy);
  // The winner among the variants up to strip_packing: stage 3 searches from it too.
  const std::optional<GreedyVariant> classic = greedy.VariantOfBestBefore(slots.strip + 1);
  std::optional<Candidate> best = greedy.Take();
  if (best->arena > bound) {
    // Stage 2 (peak_anchor.h).
    if (std::optional<Candidate> anchored =
            AnchoredAtPeak(context, choices, *best, bound, workers, placer_for))
      best = std::move(anchored);
  }
  if (small && best->arena > bound)
    if (std::optional<Candidate> better =
            SearchFromStarts(context, choices, orders, *best, classic, bound, workers, placer_for);
        better && better->arena < best->arena)
      best = std::move(better);
  OffsetPlan plan = MakeOffsetPlan(problem, "best", std::move(best->offsets));
  plan.detail = std::move(best->detail);
  return plan;
}

}  // namespace offsets

OffsetPlan PlanBest(const Problem& problem) {
  return PlanBestReusing(problem, {});
}

OffsetPlan PlanBestReusing(const Problem& problem, std::span<const OffsetPlan> known) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return offsets::PlanBestWithWorkers(problem, std::min(cores, kMaxWorkers), known);
}

}  // namespace memplan
