// SearchOperatorOrder: the op-local bound, cheap candidates, then the exact search per
// segment, never returning an order worse than the file's.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "memplan/error.h"
#include "memplan/schedule.h"
#include "src/schedule/candidates.h"
#include "src/schedule/dp_search.h"
#include "src/schedule/segments.h"
#include "src/schedule/simulate.h"
#include "src/schedule/tensor_graph.h"

namespace memplan {

namespace {

using schedule::TensorGraph;
using Clock = std::chrono::steady_clock;

std::string SubgraphLabel(const Graph& graph, std::size_t s) {
  return fmt::format("{}: subgraph {}", graph.source, s);
}

// Bytes an op that calls subgraphs adds at its step: the largest file-order peak among
// the subgraphs it calls (their tensors are alive while it runs). Memoised per subgraph;
// a call cycle counts nothing.
class CalledPeaks {
 public:
  CalledPeaks(const Graph& graph, const OrderSearchOptions& options)
      : graph_(graph),
        options_(options),
        peak_(graph.subgraphs.size()),
        state_(graph.subgraphs.size(), 0) {}

  std::vector<Bytes> ExtraOf(std::size_t s) {
    const Subgraph& sg = graph_.subgraphs[s];
    std::vector<Bytes> extra(sg.ops.size(), 0);
    for (std::size_t i = 0; i < sg.ops.size(); ++i)
      for (const std::int32_t c : sg.ops[i].called_subgraphs)
        if (c >= 0 && static_cast<std::size_t>(c) < graph_.subgraphs.size())
          extra[i] = std::max(extra[i], PeakOf(static_cast<std::size_t>(c)));
    return extra;
  }

 private:
  Bytes PeakOf(std::size_t s) {
    if (state_[s] == 2) return peak_[s];
    if (state_[s] == 1) return 0;
    state_[s] = 1;
    const std::vector<Bytes> extra = ExtraOf(s);
    const TensorGraph g = schedule::BuildTensorGraph(
        graph_, s, options_.inplace, options_.size_alignment, extra, options_.plan_entry_io);
    std::vector<std::int32_t> order(g.ops.size());
    std::iota(order.begin(), order.end(), 0);
    peak_[s] = schedule::Simulate(g, order).peak;
    state_[s] = 2;
    return peak_[s];
  }
  const Graph& graph_;
  const OrderSearchOptions& options_;
  std::vector<Bytes> peak_;
  std::vector<int> state_;  // 0 unseen, 1 in progress, 2 done
};

// Per segment: the peak of each op step of an expanded order that falls in it.
std::vector<Bytes> SegmentPeaks(const schedule::Segments& segs,
                                const std::vector<std::int32_t>& expanded,
                                const schedule::Simulation& sim) {
  std::vector<Bytes> peaks(segs.ops.size(), 0);
  // A deferred op runs right before the op it feeds: it belongs to that op's segment.
  std::int32_t current = -1;
  for (std::size_t pos = expanded.size(); pos-- > 0;) {
    const std::int32_t seg = segs.segment_of[static_cast<std::size_t>(expanded[pos])];
    if (seg >= 0) current = seg;
    if (current >= 0)
      peaks[static_cast<std::size_t>(current)] =
          std::max(peaks[static_cast<std::size_t>(current)], sim.steps[pos]);
  }
  return peaks;
}

// The ops of each segment in the order they appear in `order`.
std::vector<std::vector<std::int32_t>> SplitOrder(const schedule::Segments& segs,
                                                  const std::vector<std::int32_t>& order) {
  std::vector<std::vector<std::int32_t>> parts(segs.ops.size());
  for (const std::int32_t v : order) {
    const std::int32_t seg = segs.segment_of[static_cast<std::size_t>(v)];
    if (seg >= 0) parts[static_cast<std::size_t>(seg)].push_back(v);
  }
  return parts;
}

struct Candidate {
  std::string name;                 // "file", "list", ...
  std::vector<std::int32_t> order;  // non-deferred ops
};

// Per segment, the best order found so far and how; and what the file order says of the
// bytes alive when each segment starts.
struct SegmentBests {
  std::vector<Bytes> peak;
  std::vector<std::vector<std::int32_t>> order;
  std::vector<std::string> how;
  std::vector<Bytes> live_before;
  Bytes step0 = 0;

  explicit SegmentBests(std::size_t n_segs)
      : peak(n_segs, ~Bytes{0}), order(n_segs), how(n_segs), live_before(n_segs, 0) {}
  void Take(std::size_t k, Bytes new_peak, std::vector<std::int32_t> new_order,
            std::string new_how) {
    peak[k] = new_peak, order[k] = std::move(new_order), how[k] = std::move(new_how);
  }
};

// What is alive when a segment starts does not depend on the order: take it from the
// file order (`expanded`, simulated as `sim`), after the previous segment's cut.
void TakeLiveBefore(const TensorGraph& g, const schedule::Segments& segs,
                    const std::vector<std::int32_t>& expanded, const schedule::Simulation& sim,
                    SegmentBests& bests) {
  bests.step0 = sim.step0;
  std::vector<std::size_t> position(g.ops.size(), 0);
  for (std::size_t pos = 0; pos < expanded.size(); ++pos)
    position[static_cast<std::size_t>(expanded[pos])] = pos;
  for (const std::int32_t b : g.initial) {
    const schedule::Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
    if (!buffer.readers.empty() || buffer.pinned) bests.live_before[0] += buffer.size;
  }
  for (std::size_t k = 1; k < segs.ops.size(); ++k)
    bests.live_before[k] =
        sim.live_after[position[static_cast<std::size_t>(segs.ops[k - 1].back())]];
}

// The cheap candidate orders, each segment keeping the best of them.
SegmentBests BestOfCandidates(const TensorGraph& g, const schedule::Segments& segs) {
  const std::vector<Candidate> candidates = {
      {"file order", g.non_deferred},
      {"list", schedule::ListOrder(g)},
      {"depth-first by need", schedule::DepthFirstOrder(g, true)},
      {"depth-first", schedule::DepthFirstOrder(g, false)}};
  SegmentBests bests(segs.ops.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const std::vector<std::int32_t> expanded = schedule::ExpandDeferred(g, candidates[c].order);
    const schedule::Simulation sim = schedule::Simulate(g, expanded);
    const std::vector<Bytes> peaks = SegmentPeaks(segs, expanded, sim);
    auto parts = SplitOrder(segs, candidates[c].order);
    for (std::size_t k = 0; k < segs.ops.size(); ++k)
      if (peaks[k] < bests.peak[k])
        bests.Take(k, peaks[k], std::move(parts[k]), candidates[c].name);
    if (c == 0) TakeLiveBefore(g, segs, expanded, sim, bests);
  }
  return bests;
}

// Searches the segments, highest peak first, that may decide the peak: a beam search,
// then the exact search under the beam's result. Returns the floor no order goes below:
// the op-local bound, the first step, and every segment's proven optimum.
Bytes SearchSegments(const TensorGraph& g, const schedule::Segments& segs,
                     const OrderSearchOptions& options, std::optional<Clock::time_point> deadline,
                     Bytes lower_bound, SegmentBests& bests, std::size_t& states) {
  Bytes floor = std::max(lower_bound, bests.step0);
  std::vector<std::size_t> by_peak(segs.ops.size());
  std::iota(by_peak.begin(), by_peak.end(), std::size_t{0});
  std::stable_sort(by_peak.begin(), by_peak.end(),
                   [&](std::size_t a, std::size_t b) { return bests.peak[a] > bests.peak[b]; });
  for (const std::size_t k : by_peak) {
    if (bests.peak[k] <= floor) continue;  // cannot decide the peak
    schedule::SegmentTask task{segs.ops[k], segs.segment_of, static_cast<std::int32_t>(k),
                               bests.live_before[k], bests.peak[k]};
    // A beam search first: cheap, and its result is a tighter budget for the exact one.
    schedule::SegmentResult r = schedule::SearchSegment(
        g, task, {0, std::nullopt, std::max<std::size_t>(options.beam_width, 1)});
    if (r.found) bests.Take(k, r.peak, std::move(r.order), "beam search");
    if (bests.peak[k] <= floor) continue;
    task.budget = bests.peak[k];
    r = schedule::SearchSegment(g, task, {options.max_states, deadline, 0});
    states += r.states;
    if (!r.completed) continue;  // not proven: the floor stays
    if (r.found) bests.Take(k, r.peak, std::move(r.order), "exact search");
    floor = std::max(floor, bests.peak[k]);
  }
  return floor;
}

// Joins the segments' best orders, checks the peak they claim, and takes the result when
// it is below the file order's.
void AdoptBestOrders(const Graph& graph, std::size_t s, const TensorGraph& g,
                     const SegmentBests& bests, const std::vector<std::int32_t>& file,
                     SubgraphOrder& out) {
  std::vector<std::int32_t> composed;
  for (const auto& part : bests.order) composed.insert(composed.end(), part.begin(), part.end());
  const std::vector<std::int32_t> expanded = schedule::ExpandDeferred(g, composed);
  schedule::CheckTopological(g, expanded, SubgraphLabel(graph, s));
  const schedule::Simulation sim = schedule::Simulate(g, expanded);
  const Bytes claimed =
      std::max(bests.step0, *std::max_element(bests.peak.begin(), bests.peak.end()));
  if (sim.peak != claimed)
    throw InternalError(
        fmt::format("{}: the order search claimed a peak of {} B, the order has {} B",
                    SubgraphLabel(graph, s), claimed, sim.peak));
  if (sim.peak >= out.peak) {
    out.method = "file order";
    return;
  }
  out.order = expanded;
  out.peak = sim.peak;
  out.changed = out.order != file;
  std::string methods;
  for (const std::string& how : bests.how)
    if (how != "file order" && methods.find(how) == std::string::npos)
      methods += (methods.empty() ? "" : ", ") + how;
  out.method = methods.empty() ? "file order, deferred weights" : methods;
}

SubgraphOrder SearchSubgraph(const Graph& graph, std::size_t s, const OrderSearchOptions& options,
                             const std::vector<Bytes>& extra) {
  const TensorGraph g = schedule::BuildTensorGraph(
      graph, s, options.inplace, options.size_alignment, extra, options.plan_entry_io);
  SubgraphOrder out;
  std::vector<std::int32_t> file(g.ops.size());
  std::iota(file.begin(), file.end(), 0);
  out.order = file;
  out.file_order_peak = out.peak = schedule::Simulate(g, file).peak;
  out.lower_bound = schedule::OpLocalBound(g);
  out.method = "file order";
  const bool calls = std::any_of(extra.begin(), extra.end(), [](Bytes b) { return b != 0; });
  if (out.peak <= out.lower_bound) {
    out.proven_optimal = !calls;
    out.method = "file order (op-local bound)";
    return out;
  }
  std::optional<Clock::time_point> deadline;
  if (options.time_budget_ms > 0)
    deadline = Clock::now() +
               std::chrono::microseconds(static_cast<std::int64_t>(options.time_budget_ms * 1000));

  const schedule::Segments segs = schedule::SplitAtCuts(g);
  out.segments = segs.ops.size();
  SegmentBests bests = BestOfCandidates(g, segs);
  const Bytes floor =
      SearchSegments(g, segs, options, deadline, out.lower_bound, bests, out.states);
  AdoptBestOrders(graph, s, g, bests, file, out);
  // Every segment above the floor was either searched exhaustively (raising the floor
  // to its optimum) or left to the beam search.
  out.proven_optimal = !calls && out.peak <= floor;
  if (out.proven_optimal && !out.changed) out.method += " (exact search)";
  return out;
}

}  // namespace

OrderSearchResult SearchOperatorOrder(const Graph& graph, const OrderSearchOptions& options) {
  OrderSearchResult result;
  result.proven_optimal = true;
  CalledPeaks called(graph, options);
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    result.subgraphs.push_back(SearchSubgraph(graph, s, options, called.ExtraOf(s)));
    result.proven_optimal = result.proven_optimal && result.subgraphs.back().proven_optimal;
    result.changed = result.changed || result.subgraphs.back().changed;
  }
  return result;
}

Graph ReorderOperators(const Graph& graph, const OrderSearchResult& orders) {
  if (orders.subgraphs.size() != graph.subgraphs.size())
    throw UsageError(fmt::format("{}: an order for {} subgraphs cannot reorder {}", graph.source,
                                 orders.subgraphs.size(), graph.subgraphs.size()));
  Graph out = graph;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const std::vector<std::int32_t>& order = orders.subgraphs[s].order;
    const TensorGraph g = schedule::BuildTensorGraph(graph, s, nullptr, 1);
    schedule::CheckTopological(g, order, SubgraphLabel(graph, s));
    for (std::size_t i = 0; i < order.size(); ++i)
      out.subgraphs[s].ops[i] = graph.subgraphs[s].ops[static_cast<std::size_t>(order[i])];
  }
  return out;
}

Bytes PeakLiveBytes(const Graph& graph, std::size_t subgraph, std::span<const std::int32_t> order,
                    const InPlaceRuleSet* rules, Bytes size_alignment) {
  if (subgraph >= graph.subgraphs.size())
    throw UsageError(fmt::format("{}: no subgraph {}", graph.source, subgraph));
  const TensorGraph g = schedule::BuildTensorGraph(graph, subgraph, rules, size_alignment);
  std::vector<std::int32_t> file;
  if (order.empty()) {
    file.resize(g.ops.size());
    std::iota(file.begin(), file.end(), 0);
    order = file;
  }
  schedule::CheckTopological(g, order, SubgraphLabel(graph, subgraph));
  return schedule::Simulate(g, order).peak;
}

Bytes OpLocalBound(const Graph& graph, std::size_t subgraph, const InPlaceRuleSet* rules,
                   Bytes size_alignment) {
  if (subgraph >= graph.subgraphs.size())
    throw UsageError(fmt::format("{}: no subgraph {}", graph.source, subgraph));
  return schedule::OpLocalBound(schedule::BuildTensorGraph(graph, subgraph, rules, size_alignment));
}

}  // namespace memplan
