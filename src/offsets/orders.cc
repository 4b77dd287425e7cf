#include "src/offsets/orders.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace memplan::offsets {

std::vector<std::size_t> SizeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    return OrderKey{Descending(problem.records[i].size), 0, 0};
  });
}

std::vector<std::size_t> AreaOrder(const Problem& problem) {
  __extension__ using Wide = unsigned __int128;  // size x steps can exceed 64 bits
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    const Wide area = static_cast<Wide>(r.size) * Lifetime(r);
    return OrderKey{Descending(static_cast<std::uint64_t>(area >> 64)),
                    Descending(static_cast<std::uint64_t>(area)), Descending(r.size)};
  });
}

std::vector<std::size_t> LifetimeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    return OrderKey{Descending(Lifetime(r)), Descending(r.size), 0};
  });
}

std::vector<std::size_t> SizeThenLifetimeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    return OrderKey{Descending(r.size), Descending(Lifetime(r)), 0};
  });
}

std::vector<std::size_t> StartOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    return OrderKey{static_cast<std::uint64_t>(problem.records[i].first), 0, 0};
  });
}

std::vector<std::size_t> StartThenSizeOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    return OrderKey{static_cast<std::uint64_t>(r.first), Descending(r.size), 0};
  });
}

namespace {

// Minimum of a fixed array over any range [lo, hi]: blocks of kBlock values, a sparse
// table over the blocks' minima, and a scan of the partial blocks at the ends. O(T) space.
class RangeMinimum {
 public:
  explicit RangeMinimum(std::vector<std::uint32_t> values) : values_(std::move(values)) {
    const std::size_t blocks = (values_.size() + kBlock - 1) / kBlock;
    std::vector<std::uint32_t> level(blocks);
    for (std::size_t b = 0; b < blocks; ++b)
      level[b] = *std::min_element(values_.begin() + static_cast<std::ptrdiff_t>(b * kBlock),
                                   values_.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                         values_.size(), (b + 1) * kBlock)));
    table_.push_back(std::move(level));
    for (std::size_t width = 2; width <= blocks; width *= 2) {
      const std::vector<std::uint32_t>& below = table_.back();
      std::vector<std::uint32_t> next(blocks - width + 1);
      for (std::size_t b = 0; b < next.size(); ++b)
        next[b] = std::min(below[b], below[b + width / 2]);
      table_.push_back(std::move(next));
    }
  }

  std::uint32_t Min(std::size_t lo, std::size_t hi) const {
    const std::size_t first_block = (lo + kBlock - 1) / kBlock, end_block = (hi + 1) / kBlock;
    if (first_block >= end_block) return Scan(lo, hi + 1);  // no whole block inside
    std::uint32_t best = std::min(Scan(lo, first_block * kBlock), Scan(end_block * kBlock, hi + 1));
    const std::size_t k = static_cast<std::size_t>(std::bit_width(end_block - first_block) - 1);
    best = std::min(best, table_[k][first_block]);
    return std::min(best, table_[k][end_block - (std::size_t{1} << k)]);
  }

 private:
  static constexpr std::size_t kBlock = 32;
  std::uint32_t Scan(std::size_t from, std::size_t to) const {
    std::uint32_t best = ~std::uint32_t{0};
    for (std::size_t i = from; i < to; ++i) best = std::min(best, values_[i]);
    return best;
  }
  std::vector<std::uint32_t> values_;              // the array
  std::vector<std::vector<std::uint32_t>> table_;  // [k][b]: min of blocks b..b+2^k-1
};

}  // namespace

std::vector<std::size_t> TflmOrder(const Problem& problem) {
  return SortOnline(problem, [&](std::size_t i) {
    return OrderKey{Descending(AlignUp(problem.records[i].size, problem.alignment)), Descending(i),
                    0};
  });
}

std::vector<std::size_t> TfliteCpuOrder(const Problem& problem) {
  Step end = 0;
  for (const UsageRecord& r : problem.records) end = std::max(end, r.last);
  return SortOnline(problem, [&](std::size_t i) {
    const UsageRecord& r = problem.records[i];
    const bool whole_run = r.first == 0 && r.last == end;
    if (whole_run) return OrderKey{0, 0, 0};
    return OrderKey{1, Descending(r.size), static_cast<std::uint64_t>(r.first)};
  });
}

std::vector<std::size_t> TvmOrder(const Problem& problem) {
  const auto conflicts = ConflictCounts(problem);
  return SortOnline(problem, [&](std::size_t i) {
    return OrderKey{Descending(problem.records[i].size), Descending(conflicts[i]), 0};
  });
}

std::vector<std::size_t> BreadthOrder(const Problem& problem, const CompactSteps& steps) {
  const auto count = static_cast<std::size_t>(steps.count);
  if (count == 0) return {};  // no records
  // Live bytes per (renumbered) step; renumbering keeps the order of steps, so ties
  // between equal breadths still go to the lower step.
  const std::vector<Bytes> breadth = LiveBytes(problem, steps, 1);
  std::vector<std::uint32_t> tasks(count);
  std::iota(tasks.begin(), tasks.end(), 0);
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return breadth[a] > breadth[b]; });
  // Visiting steps in that order and listing each step's unlisted records lists a record
  // at the first-visited step of its lifetime: the one of lowest rank in it.
  std::vector<std::uint32_t> rank(count);
  for (std::size_t k = 0; k < count; ++k) rank[tasks[k]] = static_cast<std::uint32_t>(k);
  const RangeMinimum lowest(std::move(rank));
  return SortOnline(problem, [&](std::size_t i) {
    const std::uint32_t visit = lowest.Min(static_cast<std::size_t>(steps.first[i]),
                                           static_cast<std::size_t>(steps.last[i]));
    return OrderKey{visit, Descending(problem.records[i].size), 0};
  });
}

}  // namespace memplan::offsets
