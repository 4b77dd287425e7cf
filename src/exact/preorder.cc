#include "src/exact/preorder.h"

#include <algorithm>
#include <numeric>

namespace memplan::exact {

std::vector<int> Preorder(const Instance& in, std::string_view keys) {
  const std::size_t n = in.buffers();
  std::vector<Units> section_total(static_cast<std::size_t>(in.sections), 0);
  for (std::size_t b = 0; b < n; ++b)
    for (int s = in.lo[b]; s <= in.hi[b]; ++s)
      section_total[static_cast<std::size_t>(s)] += in.size[b];
  std::vector<Units> total(n, 0);
  for (std::size_t b = 0; b < n; ++b)
    for (int s = in.lo[b]; s <= in.hi[b]; ++s)
      total[b] = std::max(total[b], section_total[static_cast<std::size_t>(s)]);

  auto key = [&](std::size_t b, char letter) -> double {
    switch (letter) {
      case 'W':
        return static_cast<double>(in.steps[b]);
      case 'A':
        return static_cast<double>(in.steps[b]) * static_cast<double>(in.size[b]);
      case 'T':
        return static_cast<double>(total[b]);
      case 'Z':
        return static_cast<double>(in.size[b]);
      default:
        return 0;
    }
  };
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    for (char letter : keys) {
      const double ka = key(a, letter), kb = key(b, letter);
      if (ka != kb) return ka > kb;
    }
    return false;
  });
  std::vector<int> rank(n);
  for (std::size_t i = 0; i < n; ++i) rank[order[i]] = static_cast<int>(i);
  return rank;
}

}  // namespace memplan::exact
