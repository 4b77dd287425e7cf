#include "src/exact/preorder.h"

#include <algorithm>
#include <numeric>

namespace memplan::exact {

void RankBuffers(const Instance& in, std::string_view keys, std::span<const int> buffers,
                 std::span<const Units> section_total, std::vector<int>& rank) {
  const std::size_t n = buffers.size();
  struct Keyed {
    double w, a, t, z, c, l, u, o;
    int buffer;
  };
  std::vector<Keyed> keyed(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<std::size_t>(buffers[i]);
    Units total = 0;
    for (int s = in.lo[b]; s <= in.hi[b]; ++s)
      total = std::max(total, section_total[static_cast<std::size_t>(s)]);
    keyed[i] = {static_cast<double>(in.steps[b]),
                static_cast<double>(in.steps[b]) * static_cast<double>(in.size[b]),
                static_cast<double>(total),
                static_cast<double>(in.size[b]),
                static_cast<double>(in.hi[b] - in.lo[b] + 1),
                static_cast<double>(in.lo[b]),
                static_cast<double>(in.hi[b]),
                static_cast<double>(in.overlaps[b].size()),
                buffers[i]};
  }
  auto key = [](const Keyed& k, char letter) -> double {
    switch (letter) {
      case 'W':
        return k.w;
      case 'A':
        return k.a;
      case 'T':
        return k.t;
      case 'Z':
        return k.z;
      case 'C':
        return k.c;
      case 'L':
        return k.l;
      case 'U':
        return k.u;
      case 'O':
        return k.o;
      default:
        return 0;
    }
  };
  std::sort(keyed.begin(), keyed.end(), [&](const Keyed& a, const Keyed& b) {
    for (char letter : keys) {
      const double ka = key(a, letter), kb = key(b, letter);
      if (ka != kb) return ka > kb;
    }
    return a.buffer < b.buffer;
  });
  for (std::size_t i = 0; i < n; ++i)
    rank[static_cast<std::size_t>(keyed[i].buffer)] = static_cast<int>(i);
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
