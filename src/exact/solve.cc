// The decision question (FitsInCapacity), the anytime minimizer (SolveExact)
// and the "exact" offsets strategy.
#include <algorithm>
#include <thread>

#include "memplan/bounds.h"
#include "memplan/exact.h"
#include "memplan/offsets.h"
#include "src/exact/components.h"
#include "src/exact/instance.h"
#include "src/exact/neighbourhood.h"
#include "src/exact/portfolio.h"

namespace memplan {

namespace {

using Clock = std::chrono::steady_clock;

// Beyond this many free records the search is not tried (its nodes cost O(n log
// n) and its recursion is n deep); the heuristic plan stands.
constexpr std::size_t kMaxSearchRecords = 3000;

// Nodes a decision question first spends on the load bound itself.
constexpr std::uint64_t kTightFirstNodes = 8000;

// Search nodes the "exact" strategy may spend (about a second on a few hundred
// records).
constexpr std::uint64_t kStrategyNodeLimit = 200000;

// Set while SolveExact runs on this thread, so a heuristic portfolio that
// includes "exact" does not start the solver again from inside it.
thread_local bool solving = false;

Clock::duration ToDuration(std::chrono::duration<double> d) {
  return std::chrono::duration_cast<Clock::duration>(d);
}

std::size_t FreeRecords(const Problem& problem) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (problem.records[i].size > 0 && !problem.IsFixed(i)) ++n;
  return n;
}

// Offsets of every record from the search's units (zero-size records at 0).
std::vector<Bytes> ToOffsets(const Problem& problem, const exact::Instance& in,
                             const std::vector<exact::Units>& starts) {
  std::vector<Bytes> offsets(problem.size(), 0);
  for (std::size_t i = 0; i < problem.size(); ++i)
    if (problem.IsFixed(i)) offsets[i] = *problem.fixed_offsets[i];
  for (std::size_t b = 0; b < in.buffers(); ++b) offsets[in.record[b]] = starts[b] * in.unit;
  return offsets;
}

// The best plan of the heuristic strategies: "best" when there is one, else the
// smallest of all the others.
OffsetPlan HeuristicStart(const Problem& problem) {
  if (FindOffsetStrategy("best")) return PlanOffsets(problem, "best");
  std::optional<OffsetPlan> best;
  for (const OffsetStrategy& s : OffsetStrategies()) {
    if (s.name == "exact") continue;
    OffsetPlan plan = PlanOffsets(problem, s.name);
    if (!best || plan.arena_bytes < best->arena_bytes) best = std::move(plan);
  }
  return *best;
}

// One decision question on an already built instance.
FitResult Decide(const Problem& problem, const exact::Instance& in, Bytes capacity,
                 Clock::time_point deadline, std::uint64_t node_limit, unsigned threads) {
  FitResult result;
  const exact::PortfolioAnswer answer =
      exact::RunPortfolio(in, capacity / in.unit, threads, deadline, node_limit);
  result.nodes = answer.nodes;
  switch (answer.kind) {
    case exact::PortfolioAnswer::Kind::kFound: {
      result.answer = FitAnswer::kYes;
      result.offsets = ToOffsets(problem, in, answer.offsets);
      VerifyOrThrow(problem, MakeOffsetPlan(problem, "exact", result.offsets));
      break;
    }
    case exact::PortfolioAnswer::Kind::kExhausted:
      result.answer = FitAnswer::kNo;
      break;
    case exact::PortfolioAnswer::Kind::kUnknown:
      result.answer = FitAnswer::kUnknown;
      break;
  }
  return result;
}

// Rounds up to a multiple of `unit`.
Bytes RoundUp(Bytes value, Bytes unit) {
  return (value + unit - 1) / unit * unit;
}

}  // namespace

ExactResult SolveExact(const Problem& problem, const ExactOptions& options);

namespace {

// Too many records for one search: when the problem splits into time
// components, each is minimized on its own (small ones by the search, with an
// even share of what is left of the budget) and the plans are combined. Keeps
// `best` when the combination is not smaller; the largest proven component
// bound is a bound of the whole.
void SolveComponents(const Problem& problem, const ExactOptions& options, Clock::time_point started,
                     OffsetPlan& best, Bytes& bound) {
  const std::vector<std::vector<std::size_t>> components = exact::TimeComponents(problem);
  if (components.size() < 2) return;
  const Clock::time_point deadline = started + ToDuration(options.time_limit);
  // Components are disjoint in time, so the heuristic plan restricted to one is
  // a plan of it: components left when the time is up keep their part of it.
  std::vector<Bytes> offsets = best.offsets;
  Bytes component_bound = 0;
  for (std::size_t c = 0; c < components.size(); ++c) {
    if (Clock::now() >= deadline) break;
    const Problem sub = exact::SubProblem(problem, components[c]);
    ExactOptions sub_options;
    const auto left = std::max(Clock::duration::zero(), deadline - Clock::now());
    sub_options.time_limit = left / static_cast<long>(components.size() - c);
    sub_options.node_limit = options.node_limit / components.size();
    if (options.node_limit)
      sub_options.node_limit = std::max<std::uint64_t>(sub_options.node_limit, 1);
    sub_options.threads = options.threads;
    // The components are searched as problems of their own (not as nested
    // calls).
    solving = false;
    const ExactResult r = SolveExact(sub, sub_options);
    solving = true;
    // The component's part of the heuristic plan may be the smaller one.
    Bytes kept = 0;
    for (std::size_t i : components[c])
      if (problem.records[i].size > 0)
        kept = std::max(kept, best.offsets[i] + problem.records[i].size);
    if (r.plan->arena_bytes < kept)
      for (std::size_t k = 0; k < components[c].size(); ++k)
        offsets[components[c][k]] = r.plan->offsets[k];
    component_bound = std::max(component_bound, r.bound_bytes);
  }
  OffsetPlan combined = MakeOffsetPlan(problem, "exact", offsets);
  VerifyOrThrow(problem, combined);
  if (combined.arena_bytes < best.arena_bytes) best = std::move(combined);
  bound = std::max(bound, std::min(component_bound, best.arena_bytes));
}

}  // namespace

FitResult FitsInCapacity(const Problem& problem, Bytes capacity, const FitOptions& options) {
  Validate(problem);
  const Clock::time_point deadline = Clock::now() + ToDuration(options.time_limit);
  if (capacity < ExactLowerBound(problem)) return {FitAnswer::kNo, {}, 0};
  if (FreeRecords(problem) > kMaxSearchRecords) {
    const OffsetPlan plan = PlanOffsets(problem, "greedy_by_size");
    if (plan.arena_bytes <= capacity) return {FitAnswer::kYes, plan.offsets, 0};
    return {FitAnswer::kUnknown, {}, 0};
  }
  const exact::Instance in = exact::BuildInstance(problem);
  // A plan at the load bound fits any larger capacity, and the tighter question
  // is often far quicker to answer (its section bounds prune harder): ask it
  // first, briefly.
  const Bytes tight = RoundUp(ExactLowerBound(problem), in.unit);
  std::uint64_t spent = 0;
  if (tight < capacity) {
    std::uint64_t limit = kTightFirstNodes;
    if (options.node_limit) limit = std::min(limit, options.node_limit / 2);
    FitResult first = Decide(problem, in, tight, deadline, limit, options.threads);
    if (first.answer == FitAnswer::kYes) return first;
    spent = first.nodes;
  }
  std::uint64_t limit = 0;
  if (options.node_limit) limit = options.node_limit > spent ? options.node_limit - spent : 1;
  FitResult result = Decide(problem, in, capacity, deadline, limit, options.threads);
  result.nodes += spent;
  return result;
}

namespace {

// Decision mode: only whether options.capacity fits.
ExactResult DecideCapacity(const Problem& problem, const ExactOptions& options, Bytes load) {
  ExactResult result;
  const FitResult fit =
      FitsInCapacity(problem, *options.capacity,
                     FitOptions{options.time_limit, options.node_limit, options.threads});
  result.nodes = fit.nodes;
  result.bound_bytes = load;
  if (fit.answer == FitAnswer::kYes) {
    result.plan = MakeOffsetPlan(problem, "exact", fit.offsets);
    result.status = result.plan->arena_bytes <= load ? ExactStatus::kOptimal : ExactStatus::kGap;
  } else if (fit.answer == FitAnswer::kNo) {
    result.status = ExactStatus::kInfeasible;
    result.bound_bytes = std::max(load, *options.capacity + 1);
  }
  return result;
}

// Too many records for one search: the time components, then windows of the
// plan with what is left of the budget. Returns the search nodes the windows
// spent.
std::uint64_t ImproveLargeProblem(const Problem& problem, const ExactOptions& options,
                                  Clock::time_point started, Clock::time_point deadline,
                                  OffsetPlan& best, Bytes& bound) {
  SolveComponents(problem, options, started, best, bound);
  if (best.arena_bytes <= bound) return 0;
  exact::NeighbourhoodOptions lns;
  lns.deadline = deadline;
  lns.node_limit = options.node_limit;
  lns.threads = options.threads;
  if (options.progress)
    lns.progress = [&](Bytes best_bytes, std::uint64_t nodes, std::uint64_t windows) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
      options.progress({best_bytes, bound, 0, nodes, elapsed, windows});
    };
  exact::NeighbourhoodResult improved =
      exact::ImproveByNeighbourhoods(problem, std::move(best), bound, lns);
  best = std::move(improved.plan);
  return improved.nodes;
}

// The anytime minimization: asks capacities between the best proven bound and
// the best plan, each question with its own budget, until they meet or the
// budget is spent.
class Bisection {
 public:
  Bisection(const Problem& problem, const ExactOptions& options, Clock::time_point started,
            OffsetPlan start, Bytes proven_bound)
      : best(std::move(start)),
        problem_(problem),
        options_(options),
        started_(started),
        deadline_(started + ToDuration(options.time_limit)),
        in_(exact::BuildInstance(problem)),
        unit_(in_.unit),  // every arena is a multiple of it
        fixed_budget_(options.per_probe_limit.count() > 0) {
    bound = RoundUp(proven_bound, unit_);
    // Questions start with a small budget (a 32nd of the total, at most 0.25 s,
    // so a longer total repeats a shorter one's questions before it goes
    // further; in nodes when a node limit is given so the answer stays a pure
    // function) that doubles each time the whole range has been tried: easy
    // capacities near the frontier are settled first, and the hard ones are
    // asked again with more effort. A given per_probe_limit is used as is.
    per_probe_ = fixed_budget_ ? ToDuration(options.per_probe_limit)
                               : std::clamp(ToDuration(options.time_limit) / 32,
                                            ToDuration(std::chrono::duration<double>(0.05)),
                                            ToDuration(std::chrono::duration<double>(0.25)));
    probe_nodes_ = options.node_limit ? std::max<std::uint64_t>(options.node_limit / 32, 1) : 0;
  }

  void Run() {
    // The load bound first, with 8 budgets (a quarter of the total): most
    // problems either reach it or are refuted there, and it is the tightest,
    // best pruned question.
    const unsigned bound_effort = fixed_budget_ ? 1 : 8;
    unsigned passes_to_bound = bound_effort;  // doublings until the bound is asked again
    Bytes low = bound;  // no capacity below `low` is worth asking with this budget
    if (Probe(bound, false, bound_effort) == FitAnswer::kUnknown) low = bound + unit_;
    // Then bisect between what is known not to fit (or is too hard) and the
    // best plan.
    while (bound < best.arena_bytes && !OutOfBudget()) {
      low = std::max(low, bound);
      const Bytes high = best.arena_bytes - unit_;
      if (low > high) {
        if (CanGrow()) {
          // Every capacity has been tried: try the hard ones again with twice
          // the effort, the bound itself first once the budget passes what it
          // was asked with.
          per_probe_ *= 2;
          probe_nodes_ *= 2;
          low = bound;
          passes_to_bound /= 2;
          if (passes_to_bound == 0 && Probe(bound, false) == FitAnswer::kUnknown)
            low = bound + unit_;
          // Then just below the best plan, where a plan is most likely.
          if (bound < best.arena_bytes) Probe(best.arena_bytes - unit_, false);
          continue;
        }
        // Spend the rest proving the best plan optimal.
        if (Probe(high, true) == FitAnswer::kUnknown) break;
        continue;
      }
      const Bytes mid = low + (high - low) / unit_ / 2 * unit_;
      if (Probe(mid, false) == FitAnswer::kUnknown) low = mid + unit_;
    }
    Report(0);
  }

  OffsetPlan best;          // the best plan so far
  Bytes bound = 0;          // the best proven lower bound so far
  std::uint64_t nodes = 0;  // search nodes so far

 private:
  void Report(Bytes probing) const {
    const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
    if (options_.progress) options_.progress({best.arena_bytes, bound, probing, nodes, elapsed});
  }

  // Asks one capacity; updates the best plan and the bound. Returns the answer.
  // `effort` scales the current budget; `last` lifts it.
  FitAnswer Probe(Bytes capacity, bool last, unsigned effort = 1) {
    Report(capacity);
    std::uint64_t limit = 0;
    if (options_.node_limit) {
      if (nodes >= options_.node_limit) return FitAnswer::kUnknown;
      limit = options_.node_limit - nodes;
      if (!last) limit = std::min(limit, probe_nodes_ * effort);
    }
    Clock::time_point probe_deadline = deadline_;
    if (!last && !options_.node_limit)
      probe_deadline = std::min(deadline_, Clock::now() + per_probe_ * effort);
    const FitResult fit = Decide(problem_, in_, capacity, probe_deadline, limit, options_.threads);
    nodes += fit.nodes;
    if (fit.answer == FitAnswer::kYes) {
      OffsetPlan plan = MakeOffsetPlan(problem_, "exact", fit.offsets);
      if (plan.arena_bytes < best.arena_bytes) best = std::move(plan);
    } else if (fit.answer == FitAnswer::kNo) {
      bound = std::max(bound, capacity + unit_);
    }
    return fit.answer;
  }

  bool OutOfBudget() const {
    return Clock::now() >= deadline_ || (options_.node_limit && nodes >= options_.node_limit);
  }

  // Would a doubled budget still leave room for a few questions?
  bool CanGrow() const {
    if (fixed_budget_) return false;
    if (options_.node_limit) return nodes + 4 * probe_nodes_ < options_.node_limit;
    return Clock::now() + 4 * per_probe_ < deadline_;
  }

  const Problem& problem_;
  const ExactOptions& options_;
  const Clock::time_point started_;
  const Clock::time_point deadline_;
  const exact::Instance in_;
  const Bytes unit_;
  const bool fixed_budget_;
  Clock::duration per_probe_{};
  std::uint64_t probe_nodes_ = 0;
};

}  // namespace

ExactResult SolveExact(const Problem& problem, const ExactOptions& options) {
  Validate(problem);
  const Clock::time_point started = Clock::now();
  const Clock::time_point deadline = started + ToDuration(options.time_limit);
  const Bytes load = ExactLowerBound(problem);
  auto finish = [&](ExactResult r) {
    r.elapsed_s = std::chrono::duration<double>(Clock::now() - started).count();
    r.proven_optimal = r.status == ExactStatus::kOptimal;
    return r;
  };
  if (options.capacity) return finish(DecideCapacity(problem, options, load));

  const bool nested = solving;
  solving = true;
  struct Reset {
    bool previous;
    ~Reset() { solving = previous; }
  } reset{nested};
  OffsetPlan best = nested          ? PlanOffsets(problem, "greedy_by_size")
                    : options.start ? *options.start
                                    : HeuristicStart(problem);
  if (options.start) VerifyOrThrow(problem, best);
  best.strategy = "exact";
  Bytes bound = load;
  ExactResult result;
  if (!nested && best.arena_bytes > bound && FreeRecords(problem) > kMaxSearchRecords)
    result.nodes = ImproveLargeProblem(problem, options, started, deadline, best, bound);
  if (nested || best.arena_bytes <= bound || FreeRecords(problem) > kMaxSearchRecords) {
    result.status = best.arena_bytes <= bound ? ExactStatus::kOptimal : ExactStatus::kGap;
    result.bound_bytes = std::min(bound, best.arena_bytes);
    result.plan = std::move(best);
    return finish(std::move(result));
  }

  Bisection search(problem, options, started, std::move(best), bound);
  search.Run();
  result.nodes = search.nodes;
  result.bound_bytes = std::min(search.bound, search.best.arena_bytes);
  result.status =
      search.best.arena_bytes <= result.bound_bytes ? ExactStatus::kOptimal : ExactStatus::kGap;
  VerifyOrThrow(problem, search.best);
  result.plan = std::move(search.best);
  return finish(std::move(result));
}

OffsetPlan PlanExact(const Problem& problem) {
  // A node budget rather than only a clock keeps the strategy a pure function:
  // the same problem gets the same plan on any machine (the clock is a safety
  // net).
  ExactOptions options;
  options.node_limit = kStrategyNodeLimit;
  return *SolveExact(problem, options).plan;
}

}  // namespace memplan
