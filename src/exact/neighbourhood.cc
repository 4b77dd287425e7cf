#include "src/exact/neighbourhood.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/exact.h"
#include "memplan/offsets.h"

namespace memplan::exact {

namespace {

using Clock = std::chrono::steady_clock;

// Nodes a window question gets at first; it doubles after every pass in which no window
// fitted, up to the largest.
constexpr std::uint64_t kFirstWindowNodes = 8000;
constexpr std::uint64_t kLargestWindowNodes = std::uint64_t{1} << 20;

// The shapes of the windows, smallest first (small windows are quick to settle, larger
// ones can move more): how many records of the top band a window frees beside those
// that must move (every record above the target), and how many live around its centre
// (0: those live at the centre step only).
struct Shape {
  std::size_t band;
  std::size_t around;
};
constexpr std::array<Shape, 4> kShapes = {{{0, 300}, {0, 800}, {300, 800}, {0, 1600}}};

// Centres tried per window shape: the sections of highest load, one per stretch of time.
constexpr std::size_t kCentres = 1;

// Targets below the arena, as quarters of the gap to the bound: a quarter less first
// (the easiest question that still gains), then deeper; the bound itself last.
constexpr std::array<Bytes, 4> kTargetQuarters = {1, 2, 3, 4};

// Greedy re-placements tried on a window before the exact search (cheap, and often
// enough when the window is large).
constexpr std::array<std::string_view, 3> kGreedy = {"greedy_by_size", "greedy_by_breadth",
                                                     "xla_temporal"};

bool Verbose() {
  static const bool verbose = std::getenv("MEMPLAN_LNS_TRACE") != nullptr;
  return verbose;
}

// Load per section of time (maximal runs of steps where the same records are live).
struct Timeline {
  std::vector<Step> points;  // section s covers steps [points[s], points[s + 1])
  std::vector<Bytes> load;   // bytes live in each section
};

Timeline MakeTimeline(const Problem& problem) {
  Timeline t;
  for (const UsageRecord& r : problem.records) {
    if (r.size == 0) continue;
    t.points.push_back(r.first);
    t.points.push_back(r.last + 1);
  }
  std::sort(t.points.begin(), t.points.end());
  t.points.erase(std::unique(t.points.begin(), t.points.end()), t.points.end());
  const std::size_t sections = t.points.empty() ? 0 : t.points.size() - 1;
  std::vector<std::int64_t> delta(sections + 1, 0);
  auto section_of = [&](Step step) {
    return static_cast<std::size_t>(std::lower_bound(t.points.begin(), t.points.end(), step) -
                                    t.points.begin());
  };
  for (const UsageRecord& r : problem.records) {
    if (r.size == 0) continue;
    delta[section_of(r.first)] += static_cast<std::int64_t>(r.size);
    delta[section_of(r.last + 1)] -= static_cast<std::int64_t>(r.size);
  }
  std::int64_t live = 0;
  for (std::size_t s = 0; s < sections; ++s) {
    live += delta[s];
    t.load.push_back(static_cast<Bytes>(live));
  }
  return t;
}

// The centres of the windows: the first step of the sections of highest load, skipping
// sections within `spread` steps of a centre already chosen.
std::vector<Step> Centres(const Timeline& t, std::size_t count, Step spread) {
  std::vector<std::size_t> order(t.load.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return t.load[a] > t.load[b]; });
  std::vector<Step> centres;
  for (std::size_t s : order) {
    if (centres.size() == count) break;
    const Step step = t.points[s];
    bool near = false;
    for (Step c : centres) near = near || std::llabs(c - step) <= spread;
    if (!near) centres.push_back(step);
  }
  return centres;
}

class Improver {
 public:
  Improver(const Problem& problem, OffsetPlan start, Bytes bound,
           const NeighbourhoodOptions& options)
      : problem_(problem), options_(options), bound_(bound), timeline_(MakeTimeline(problem)) {
    result_.plan = std::move(start);
    for (const UsageRecord& r : problem.records) last_step_ = std::max(last_step_, r.last);
  }

  NeighbourhoodResult Run() {
    std::uint64_t window_nodes = kFirstWindowNodes;
    while (result_.plan.arena_bytes > bound_ && !OutOfBudget()) {
      cut_short_ = false;
      if (Pass(window_nodes)) continue;
      // The windows depend only on the plan, so a pass that changed nothing gives the
      // same answers again unless a search was cut short and can get more nodes.
      if (!cut_short_ || window_nodes == kLargestWindowNodes) break;
      window_nodes = std::min(window_nodes * 2, kLargestWindowNodes);
    }
    return std::move(result_);
  }

 private:
  bool OutOfBudget() const {
    return Clock::now() >= options_.deadline ||
           (options_.node_limit && result_.nodes >= options_.node_limit);
  }

  // One pass over targets, window shapes and centres; true when a window lowered the arena.
  bool Pass(std::uint64_t window_nodes) {
    asked_.clear();
    const Bytes arena = result_.plan.arena_bytes;
    const std::vector<Step> centres =
        Centres(timeline_, kCentres, std::max<Step>(1, (last_step_ + 1) / 64));
    for (Bytes quarters : kTargetQuarters) {
      const Bytes capacity =
          quarters == 4 ? bound_ : std::min(arena - 1, arena - (arena - bound_) / 4 * quarters);
      if (capacity >= arena || capacity < bound_) continue;
      for (const Shape& shape : kShapes)
        for (Step centre : centres) {
          if (OutOfBudget()) return false;
          if (Ask(capacity, centre, shape, window_nodes)) return true;
        }
    }
    return false;
  }

  // The records of a window: every record that reaches above `cut` and the records live
  // within `half` steps of `centre`.
  std::vector<std::size_t> Window(Bytes cut, Step centre, Step half) const {
    std::vector<std::size_t> free;
    const std::vector<Bytes>& offsets = result_.plan.offsets;
    for (std::size_t i = 0; i < problem_.size(); ++i) {
      const UsageRecord& r = problem_.records[i];
      if (r.size == 0 || problem_.IsFixed(i)) continue;
      if (offsets[i] + r.size > cut || (r.first <= centre + half && r.last >= centre - half))
        free.push_back(i);
    }
    return free;
  }

  // The window of `shape` around `centre` for a target `capacity`: the band's cut is the
  // highest one that frees `shape.band` records besides those above the capacity; then the
  // widest span of time that frees at most `shape.around` more (at least the centre step).
  std::vector<std::size_t> WindowOf(Bytes capacity, Step centre, const Shape& shape) const {
    std::vector<Bytes> ends;
    std::size_t above = 0;
    for (std::size_t i = 0; i < problem_.size(); ++i) {
      const UsageRecord& r = problem_.records[i];
      if (r.size == 0 || problem_.IsFixed(i)) continue;
      const Bytes end = result_.plan.offsets[i] + r.size;
      ends.push_back(end);
      if (end > capacity) ++above;
    }
    Bytes cut = capacity;
    const std::size_t want = std::min(ends.size(), above + shape.band);
    if (want > above) {
      std::nth_element(ends.begin(), ends.begin() + static_cast<std::ptrdiff_t>(want - 1),
                       ends.end(), std::greater<>());
      cut = std::min(capacity, ends[want - 1] - 1);
    }
    const std::size_t base = Window(cut, centre, 0).size();
    Step lo = 0, hi = last_step_ + 1;
    while (lo < hi) {
      const Step mid = lo + (hi - lo + 1) / 2;
      if (Window(cut, centre, mid).size() <= base + shape.around)
        lo = mid;
      else
        hi = mid - 1;
    }
    return Window(cut, centre, lo);
  }

  // Frees one window and asks whether it fits below `capacity` around the rest.
  bool Ask(Bytes capacity, Step centre, const Shape& shape, std::uint64_t window_nodes) {
    const auto t0 = Clock::now();
    const std::vector<std::size_t> free = WindowOf(capacity, centre, shape);
    // Shapes coincide on small problems (a window of everything): ask each once a pass.
    for (const auto& [asked_capacity, asked] : asked_)
      if (asked_capacity == capacity && asked == free) return false;
    asked_.emplace_back(capacity, free);
    Step first = last_step_, last = 0;
    std::vector<char> is_free(problem_.size(), 0);
    for (std::size_t i : free) {
      is_free[i] = 1;
      first = std::min(first, problem_.records[i].first);
      last = std::max(last, problem_.records[i].last);
    }
    // The sub-problem: the window free, every other record live in its span fixed.
    Problem sub;
    sub.alignment = problem_.alignment;
    std::vector<std::size_t> original;
    for (std::size_t i = 0; i < problem_.size(); ++i) {
      const UsageRecord& r = problem_.records[i];
      if (r.size == 0 || r.last < first || r.first > last) continue;
      original.push_back(i);
      sub.records.push_back(r);
      sub.fixed_offsets.push_back(is_free[i] ? std::nullopt
                                             : std::optional<Bytes>(result_.plan.offsets[i]));
    }
    // The cheap re-placements first: greedy orders around the fixed records.
    for (std::string_view name : kGreedy) {
      if (OutOfBudget()) return false;
      const OffsetPlan greedy = PlanOffsets(sub, name);
      if (Accept(original, is_free, greedy.offsets)) {
        if (Verbose())
          std::fprintf(stderr, "lns: %s free %zu -> %llu\n", std::string(name).c_str(), free.size(),
                       static_cast<unsigned long long>(result_.plan.arena_bytes));
        return true;
      }
    }
    if (OutOfBudget()) return false;  // the greedy orders took what was left
    FitOptions fit;
    fit.time_limit = options_.deadline == Clock::time_point::max()
                         ? std::chrono::duration<double>(1e9)
                         : std::chrono::duration<double>(options_.deadline - Clock::now());
    fit.node_limit = window_nodes;
    if (options_.node_limit)
      fit.node_limit = std::min(fit.node_limit, options_.node_limit - result_.nodes);
    fit.threads = options_.threads ? options_.threads : 1;
    const FitResult answer = FitsInCapacity(sub, capacity, fit);
    result_.nodes += answer.nodes;
    ++result_.windows;
    if (answer.answer == FitAnswer::kUnknown) cut_short_ = true;
    const bool accepted =
        answer.answer == FitAnswer::kYes && Accept(original, is_free, answer.offsets);
    if (Verbose())
      std::fprintf(stderr,
                   "lns: cap %llu centre %lld free %zu sub %zu nodes %llu/%llu answer %d -> %llu "
                   "(%.0f ms)\n",
                   static_cast<unsigned long long>(capacity), static_cast<long long>(centre),
                   free.size(), sub.size(), static_cast<unsigned long long>(answer.nodes),
                   static_cast<unsigned long long>(window_nodes), static_cast<int>(answer.answer),
                   static_cast<unsigned long long>(result_.plan.arena_bytes),
                   std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (options_.progress)
      options_.progress(result_.plan.arena_bytes, result_.nodes, result_.windows);
    return accepted;
  }

  // Takes the window's records' offsets from a plan of the sub-problem (`original` maps
  // its records to the problem's); keeps the plan when it verifies and is smaller.
  bool Accept(const std::vector<std::size_t>& original, const std::vector<char>& is_free,
              const std::vector<Bytes>& sub_offsets) {
    std::vector<Bytes> offsets = result_.plan.offsets;
    for (std::size_t k = 0; k < original.size(); ++k)
      if (is_free[original[k]]) offsets[original[k]] = sub_offsets[k];
    OffsetPlan plan = MakeOffsetPlan(problem_, result_.plan.strategy, std::move(offsets));
    if (plan.arena_bytes >= result_.plan.arena_bytes) return false;
    VerifyOrThrow(problem_, plan);
    result_.plan = std::move(plan);
    ++result_.accepted;
    return true;
  }

  const Problem& problem_;
  const NeighbourhoodOptions& options_;
  Bytes bound_;
  Timeline timeline_;
  Step last_step_ = 0;
  NeighbourhoodResult result_;
  bool cut_short_ = false;  // a window's search in this pass ran out of nodes
  // The windows asked in this pass: capacity and records.
  std::vector<std::pair<Bytes, std::vector<std::size_t>>> asked_;
};

}  // namespace

NeighbourhoodResult ImproveByNeighbourhoods(const Problem& problem, OffsetPlan start, Bytes bound,
                                            const NeighbourhoodOptions& options) {
  return Improver(problem, std::move(start), bound, options).Run();
}

}  // namespace memplan::exact
