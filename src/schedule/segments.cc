#include "src/schedule/segments.h"

#include <bit>

namespace memplan::schedule {

namespace {

// Reachability over the non-deferred ops: bit u of row v set when u is reachable from v
// along `edges` (succs for descendants, preds for ancestors).
std::vector<std::size_t> ReachableCounts(const TensorGraph& g,
                                         const std::vector<std::int32_t>& local, bool forward) {
  const std::size_t m = g.non_deferred.size();
  const std::size_t words = (m + 63) / 64;
  std::vector<std::uint64_t> rows(m * words, 0);
  std::vector<std::size_t> counts(m, 0);
  // File order is topological: descendants are complete when walked backwards,
  // ancestors when walked forwards.
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t i = forward ? m - 1 - k : k;
    const OpNode& op = g.ops[static_cast<std::size_t>(g.non_deferred[i])];
    std::uint64_t* row = &rows[i * words];
    for (const std::int32_t other : forward ? op.succs : op.preds) {
      const std::int32_t j = local[static_cast<std::size_t>(other)];
      if (j < 0) continue;
      const std::uint64_t* from = &rows[static_cast<std::size_t>(j) * words];
      for (std::size_t w = 0; w < words; ++w) row[w] |= from[w];
      row[static_cast<std::size_t>(j) / 64] |= std::uint64_t{1} << (j % 64);
    }
    for (std::size_t w = 0; w < words; ++w)
      counts[i] += static_cast<std::size_t>(std::popcount(row[w]));
  }
  return counts;
}

}  // namespace

Segments SplitAtCuts(const TensorGraph& g, std::size_t max_ops) {
  Segments out;
  out.segment_of.assign(g.ops.size(), -1);
  const std::size_t m = g.non_deferred.size();
  if (m == 0) return out;
  std::vector<bool> cut(m, false);
  if (m <= max_ops) {
    std::vector<std::int32_t> local(g.ops.size(), -1);
    for (std::size_t i = 0; i < m; ++i)
      local[static_cast<std::size_t>(g.non_deferred[i])] = static_cast<std::int32_t>(i);
    const auto descendants = ReachableCounts(g, local, true);
    const auto ancestors = ReachableCounts(g, local, false);
    for (std::size_t i = 0; i < m; ++i) cut[i] = descendants[i] + ancestors[i] == m - 1;
  }
  out.ops.emplace_back();
  for (std::size_t i = 0; i < m; ++i) {
    const std::int32_t v = g.non_deferred[i];
    out.ops.back().push_back(v);
    out.segment_of[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(out.ops.size() - 1);
    if (cut[i] && i + 1 < m) out.ops.emplace_back();
  }
  return out;
}

}  // namespace memplan::schedule
