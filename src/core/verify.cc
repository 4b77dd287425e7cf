#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

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
    const std::size_t n = problem_.records.size();
    std::vector<std::size_t> by_first, by_last;
    for (std::size_t i = 0; i < n; ++i) {
      if (problem_.records[i].size == 0) continue;  // takes no space
      by_first.push_back(i);
    }
    by_last = by_first;
    std::sort(by_first.begin(), by_first.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(problem_.records[a].first, a) < std::pair(problem_.records[b].first, b);
    });
    std::sort(by_last.begin(), by_last.end(), [&](std::size_t a, std::size_t b) {
      return std::pair(problem_.records[a].last, a) < std::pair(problem_.records[b].last, b);
    });
    std::size_t next_release = 0;
    for (std::size_t i : by_first) {
      const Step t = problem_.records[i].first;
      while (next_release < by_last.size() && problem_.records[by_last[next_release]].last < t)
        Release(by_last[next_release++]);
      Admit(i);
      if (out_.size() >= limit_) return;
    }
  }

 private:
  Bytes Begin(std::size_t i) const { return plan_.offsets[i]; }
  Bytes End(std::size_t i) const { return plan_.offsets[i] + problem_.records[i].size; }

  void Report(std::size_t a, std::size_t b) {
    if (out_.size() >= limit_) return;
    out_.push_back(
        {fmt::format("overlap: {} and {} are alive at the same step", Range(a), Range(b))});
  }
  std::string Range(std::size_t i) const { return memplan::Range(problem_, plan_, i); }

  // Reports every online live record overlapping [begin, end) via offset neighbours.
  void CheckOnline(std::size_t i) {
    const Bytes begin = Begin(i), end = End(i);
    auto it = online_.lower_bound({begin, 0});
    // The successor starts at or after begin: overlaps when it starts before end.
    for (auto s = it; s != online_.end() && s->first < end; ++s) Report(s->second, i);
    if (it != online_.begin()) {
      auto p = std::prev(it);
      if (End(p->second) > begin) Report(p->second, i);
    }
  }

  void Admit(std::size_t i) {
    const bool fixed = problem_.IsFixed(i);
    CheckOnline(i);
    if (!fixed) {
      for (const auto& [key, j] : fixed_)
        if (key < End(i) && End(j) > Begin(i)) Report(j, i);
      online_.insert({Begin(i), i});
    } else {
      fixed_.insert({Begin(i), i});
    }
  }

  void Release(std::size_t i) {
    if (problem_.IsFixed(i))
      fixed_.erase({Begin(i), i});
    else
      online_.erase({Begin(i), i});
  }

  const Problem& problem_;
  const OffsetPlan& plan_;
  std::vector<Violation>& out_;
  std::size_t limit_;
  std::set<std::pair<Bytes, std::size_t>> online_;  // (offset, record) of live online records
  std::set<std::pair<Bytes, std::size_t>> fixed_;   // (offset, record) of live fixed records
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
  const auto violations = FindViolations(problem, plan, 5);
  if (violations.empty()) return;
  std::string message = fmt::format("strategy '{}' produced an invalid plan:", plan.strategy);
  for (const Violation& v : violations) message += "\n  " + v.message;
  throw InternalError(message);
}

}  // namespace memplan
