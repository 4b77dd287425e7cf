#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory_resource>
#include <set>
#include <utility>
#include <vector>

#include "memplan/error.h"
#include "memplan/plan.h"

namespace memplan {

Bytes ArenaBytes(const Problem& problem, const std::vector<Bytes>& offsets) {
  Bytes arena = 0;
  for (std::size_t i = 0; i < problem.records.size(); ++i)
    arena = std::max(arena, offsets[i] + problem.records[i].size);
  return arena;
}

OffsetPlan MakeOffsetPlan(const Problem& problem, std::string strategy,
                          std::vector<Bytes> offsets) {
  OffsetPlan plan;
  plan.strategy = std::move(strategy);
  plan.offsets = std::move(offsets);
  plan.arena_bytes = ArenaBytes(problem, plan.offsets);
  return plan;
}

namespace {

std::string Range(const Problem& problem, const OffsetPlan& plan, std::size_t i) {
  return fmt::format("{} at bytes [{}, {})", problem.Describe(i), plan.offsets[i],
                     plan.offsets[i] + problem.records[i].size);
}

// Live records during a sweep over the steps, keyed by offset. Online records never
// overlap one another in a valid plan, so checking a newcomer against its neighbours
// in offset order finds any overlap among them; fixed records may overlap each other
// and are kept apart and scanned.
class OverlapSweep {
 public:
  OverlapSweep(const Problem& problem, const OffsetPlan& plan, std::vector<Violation>& out,
               std::size_t limit)
      : problem_(problem), plan_(plan), out_(out), limit_(limit) {}

  void Run() {
    // Each event carries the record's byte range, so the sweep reads only its two sorted
    // arrays and never chases records in index order (cache misses at a million).
    std::vector<Event> by_first, by_last;
    by_first.reserve(problem_.records.size());
    by_last.reserve(problem_.records.size());
    for (std::size_t i = 0; i < problem_.records.size(); ++i) {
      const UsageRecord& r = problem_.records[i];
      if (r.size == 0) continue;  // takes no space
      const Live live{plan_.offsets[i], i, plan_.offsets[i] + r.size, problem_.IsFixed(i)};
      by_first.push_back({r.first, live});
      by_last.push_back({r.last, live});
    }
    SortByStep(by_first);
    SortByStep(by_last);
    std::size_t next_release = 0;
    for (const Event& e : by_first) {
      while (next_release < by_last.size() && by_last[next_release].step < e.step)
        Release(by_last[next_release++].live);
      Admit(e.live);
      if (out_.size() >= limit_) return;
    }
  }

 private:
  // A live record in offset order; `end` and `fixed` ride along for the checks.
  struct Live {
    Bytes begin;
    std::size_t record;
    Bytes end;
    bool fixed;
    bool operator<(const Live& o) const {
      return std::pair(begin, record) < std::pair(o.begin, o.record);
    }
  };
  struct Event {
    Step step;  // first step (admit) or last step (release)
    Live live;
  };

  // Orders events by (step, record). Events are built in record order, so a stable
  // counting sort over the steps gives that order in O(n + steps) when steps are dense
  // (operator indices, as in every model); sparse steps fall back to a comparison sort.
  static void SortByStep(std::vector<Event>& events) {
    if (events.empty()) return;
    const auto [lo, hi] =
        std::minmax_element(events.begin(), events.end(),
                            [](const Event& a, const Event& b) { return a.step < b.step; });
    const Step low = lo->step;
    const auto span = static_cast<std::uint64_t>(hi->step) - static_cast<std::uint64_t>(low);
    if (span > 4 * static_cast<std::uint64_t>(events.size()) + 1024) {
      std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        return std::pair(a.step, a.live.record) < std::pair(b.step, b.live.record);
      });
      return;
    }
    std::vector<std::size_t> start(span + 2, 0);
    for (const Event& e : events) ++start[static_cast<std::size_t>(e.step - low) + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    std::vector<Event> sorted(events.size());
    for (const Event& e : events) sorted[start[static_cast<std::size_t>(e.step - low)]++] = e;
    events.swap(sorted);
  }

  void Report(std::size_t a, std::size_t b) {
    if (out_.size() >= limit_) return;
    out_.push_back(
        {fmt::format("overlap: {} and {} are alive at the same step", Range(a), Range(b))});
  }
  std::string Range(std::size_t i) const { return memplan::Range(problem_, plan_, i); }

  // Reports every online live record overlapping the newcomer via offset neighbours.
  void CheckOnline(const Live& x) {
    auto it = online_.lower_bound({x.begin, 0, 0, false});
    // The successor starts at or after begin: overlaps when it starts before end.
    for (auto s = it; s != online_.end() && s->begin < x.end; ++s) Report(s->record, x.record);
    if (it != online_.begin()) {
      auto p = std::prev(it);
      if (p->end > x.begin) Report(p->record, x.record);
    }
  }

  void Admit(const Live& x) {
    CheckOnline(x);
    if (!x.fixed) {
      for (const Live& f : fixed_)
        if (f.begin < x.end && f.end > x.begin) Report(f.record, x.record);
      online_.insert(x);
    } else {
      fixed_.insert(x);
    }
  }

  void Release(const Live& x) { (x.fixed ? fixed_ : online_).erase(x); }

  const Problem& problem_;
  const OffsetPlan& plan_;
  std::vector<Violation>& out_;
  std::size_t limit_;
  // Tree nodes come from a pool that recycles released nodes: far fewer calls to the
  // allocator and better locality than one heap node per live record.
  std::pmr::unsynchronized_pool_resource pool_;
  std::pmr::set<Live> online_{&pool_};  // live online records
  std::pmr::set<Live> fixed_{&pool_};   // live fixed records
};

}  // namespace

std::vector<Violation> FindViolations(const Problem& problem, const OffsetPlan& plan,
                                      std::size_t limit) {
  std::vector<Violation> out;
  const std::size_t n = problem.records.size();
  if (plan.offsets.size() != n) {
    out.push_back({fmt::format("the plan has {} offsets for {} records", plan.offsets.size(), n)});
    return out;
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (plan.offsets[i] > std::numeric_limits<Bytes>::max() / 2 - problem.records[i].size) {
      out.push_back({fmt::format("out of range: {} starts at offset {}", problem.Describe(i),
                                 plan.offsets[i])});
      return out;
    }
  }
  for (std::size_t i = 0; i < n && out.size() < limit; ++i) {
    if (plan.offsets[i] % problem.alignment != 0)
      out.push_back({fmt::format("unaligned: {} is not a multiple of the alignment {}",
                                 Range(problem, plan, i), problem.alignment)});
    if (problem.IsFixed(i) && *problem.fixed_offsets[i] != plan.offsets[i])
      out.push_back({fmt::format("moved: {} must stay at its fixed offset {}",
                                 Range(problem, plan, i), *problem.fixed_offsets[i])});
  }
  if (out.size() < limit) OverlapSweep(problem, plan, out, limit).Run();
  const Bytes arena = ArenaBytes(problem, plan.offsets);
  if (out.size() < limit && arena != plan.arena_bytes)
    out.push_back({fmt::format("the plan claims an arena of {} B but its records need {} B",
                               plan.arena_bytes, arena)});
  return out;
}

void VerifyOrThrow(const Problem& problem, const OffsetPlan& plan) {
  ThrowIfInvalid(fmt::format("strategy '{}'", plan.strategy), FindViolations(problem, plan, 5));
}

void ThrowIfInvalid(std::string_view who, const std::vector<Violation>& violations) {
  if (violations.empty()) return;
  std::string message = fmt::format("{} produced an invalid plan:", who);
  for (const Violation& v : violations) message += "\n  " + v.message;
  throw InternalError(message);
}

}  // namespace memplan
