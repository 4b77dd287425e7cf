// PrintMemoryPlan's format (docs/tflm-facts.md, the planners). TFLM computes in int; we compute the
// same columns in 128-bit arithmetic so large arenas print what the formula means
// rather than an overflowed value.
#include "memplan/tflm_print.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"

namespace memplan {

namespace {

__extension__ using Wide = unsigned __int128;

constexpr std::size_t kLineWidth = 80;

// Column of byte `address` on an 80-column line that spans `scale` bytes.
std::size_t Column(Bytes address, Bytes scale) {
  return static_cast<std::size_t>(static_cast<Wide>(address) * kLineWidth / scale);
}

}  // namespace

char TflmOrdinalCharacter(std::size_t id) {
  id %= 62;
  if (id < 10) return static_cast<char>('0' + id);
  if (id < 36) return static_cast<char>('a' + (id - 10));
  return static_cast<char>('A' + (id - 36));
}

std::string TflmMemoryPlanText(const Problem& problem, const std::vector<Bytes>& offsets) {
  const auto& records = problem.records;
  if (offsets.size() != records.size())
    throw InternalError(fmt::format("memory plan print: {} offsets for {} records", offsets.size(),
                                    records.size()));
  // Single-scope buffers (scratch buffers, subgraph outputs) print as '*'.
  auto character = [&](std::size_t i) {
    return records[i].first == records[i].last ? '*' : TflmOrdinalCharacter(i);
  };

  std::string out;
  Bytes scale = kLineWidth;
  Step max_time = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const UsageRecord& r = records[i];
    out += fmt::format("{} (id={}): size={}, offset={}, first_used={} last_used={}\n", character(i),
                       i, r.size, offsets[i], r.first, r.last);
    scale = std::max(scale, offsets[i] + r.size);
    max_time = std::max(max_time, r.last);
  }

  // Buffers ordered by first step, so each line only looks at the live ones.
  std::vector<std::size_t> order(records.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return records[a].first < records[b].first;
  });
  std::vector<std::size_t> live;
  std::size_t next = 0;
  std::string line;
  for (Step t = 0; t <= max_time; ++t) {
    while (next < order.size() && records[order[next]].first <= t) live.push_back(order[next++]);
    std::erase_if(live, [&](std::size_t i) { return records[i].last < t; });
    // A column's first writer leaves its character and any second one a '!', so the
    // order of `live` does not change the line.
    line.assign(kLineWidth, '.');
    Bytes memory_use = 0;
    for (std::size_t i : live) {
      memory_use += records[i].size;
      const std::size_t begin = Column(offsets[i], scale);
      const std::size_t end = Column(offsets[i] + records[i].size, scale);
      for (std::size_t c = begin; c < end; ++c) line[c] = line[c] == '.' ? character(i) : '!';
    }
    out += fmt::format("{:4}: {} ({}k)\n", t, line, (memory_use + 1023) / 1024);
  }
  return out;
}

}  // namespace memplan
