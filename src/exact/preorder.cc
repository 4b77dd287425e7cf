#include "src/exact/preorder.h"

#include <algorithm>
#include <numeric>

namespace memplan::exact {

namespace {

// Buffer b's key for one letter (see preorder.h); `total` is its T.
double KeyValue(const Instance& in, std::size_t b, Units total, char letter) {
  switch (letter) {
    case 'W':
      return static_cast<double>(in.steps[b]);
    case 'A':
      return static_cast<double>(in.steps[b]) * static_cast<double>(in.size[b]);
    case 'T':
      return static_cast<double>(total);
    case 'Z':
      return static_cast<double>(in.size[b]);
    case 'C':
      return in.hi[b] - in.lo[b] + 1;
    case 'L':
      return in.lo[b];
    case 'U':
      return in.hi[b];
    case 'O':
      return static_cast<double>(in.overlaps[b].size());
    default:
      return 0;
  }
}

}  // namespace

void RankBuffers(const Instance& in, std::string_view keys, std::span<const int> buffers,
                 std::span<const Units> section_total, std::vector<int>& rank) {
  const std::size_t n = buffers.size(), width = keys.size();
  // Row i: the keys of buffers[i], letter by letter.
  std::vector<double> values(n * width);
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::size_t>(buffers[i]);
    Units total = 0;
    if (keys.find('T') != std::string_view::npos)
      for (int s = in.lo[b]; s <= in.hi[b]; ++s)
        total = std::max(total, section_total[static_cast<std::size_t>(s)]);
    for (std::size_t k = 0; k < width; ++k) values[i * width + k] = KeyValue(in, b, total, keys[k]);
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    for (std::size_t k = 0; k < width; ++k) {
      const double vx = values[x * width + k], vy = values[y * width + k];
      if (vx != vy) return vx > vy;
    }
    return buffers[x] < buffers[y];
  });
  for (std::size_t i = 0; i < n; ++i)
    rank[static_cast<std::size_t>(buffers[order[i]])] = static_cast<int>(i);
}

std::vector<int> Preorder(const Instance& in, std::string_view keys) {
  const std::size_t n = in.buffers();
  std::vector<Units> section_total(static_cast<std::size_t>(in.sections), 0);
  for (std::size_t b = 0; b < n; ++b)
    for (int s = in.lo[b]; s <= in.hi[b]; ++s)
      section_total[static_cast<std::size_t>(s)] += in.size[b];
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::vector<int> rank(n);
  RankBuffers(in, keys, all, section_total, rank);
  return rank;
}

}  // namespace memplan::exact
