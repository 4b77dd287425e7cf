// objects/min_cost_flow: TensorFlow Lite GPU's MINCOSTFLOW. The network is built as
// TensorFlow Lite builds it; LEMON's network simplex solves it.
//
// Records in step order (stable by first). Nodes: left i ("record i's object, free
// once i ends"), right i ("record i needs memory"), a source and a sink. Arcs, each of
// capacity 1: source -> left i (cost 0); right i -> sink (cost 0); source -> right i
// (cost size_i: a new object); and, for every record f released before i starts (in
// release order), left f -> right i (cost max(0, size_i - size_f): i reuses f's object,
// which grows). n units flow from source to sink; the saturated reuse arcs chain the
// records into objects, each as large as its largest record.
//
// Tie-breaking: TensorFlow Lite solves by successive shortest paths (level-synchronous
// Bellman-Ford); when several flows share the minimal cost, which one it returns depends
// on its search order, and object totals can differ between them (the flow cost sums
// growth increments, not object sizes). memplan solves with LEMON and then picks among
// the minimal-cost flows deterministically: a second LEMON solve restricted to the arcs
// that can carry flow in some optimal solution (zero reduced cost under the first
// solve's potentials; arcs with negative reduced cost are forced full) prefers, for each
// record, the predecessor released earliest. This reproduces every min_cost_flow
// expectation in the conformance files; on other inputs it can return a different
// optimal flow than TensorFlow Lite, so totals may differ slightly.
//
// Costs are 64-bit (TensorFlow Lite's are `int` and overflow above 2^31 bytes).
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <limits>

#include "memplan/error.h"
#include "src/objects/sweep.h"

namespace memplan {

using namespace objects_internal;

namespace {

using Graph = lemon::SmartDigraph;
using Cost = std::int64_t;
using Simplex = lemon::NetworkSimplex<Graph, int, Cost>;

// A reuse arc: record `to` may take the object of record `from`.
struct ReuseArc {
  std::size_t from = 0;  // sweep position of the released record
  std::size_t to = 0;    // sweep position of the record that reuses it
  Cost cost = 0;         // growth of the object: max(0, size_to - size_from)
  Cost rank = 0;         // position of `from` in the release order seen by `to`
  Graph::Arc arc;        // the arc left(from) -> right(to)
};

// The network of TensorFlow Lite's MinCostFlowAssignment over records in sweep order.
struct Network {
  Graph graph;
  Graph::Node source, sink;
  std::vector<Graph::Node> left, right;
  std::vector<Graph::Arc> to_left, to_sink, fresh;  // per record: source->left, right->sink,
                                                    // source->right (a new object)
  std::vector<ReuseArc> reuse;

  explicit Network(const std::vector<UsageRecord>& sorted) {
    const std::size_t n = sorted.size();
    for (std::size_t i = 0; i < n; ++i) left.push_back(graph.addNode());
    for (std::size_t i = 0; i < n; ++i) right.push_back(graph.addNode());
    source = graph.addNode();
    sink = graph.addNode();
    std::vector<std::size_t> released;  // in release order
    InUse in_use;
    for (std::size_t i = 0; i < n; ++i) {
      in_use.ReleaseBefore(sorted[i].first, [&](std::size_t f) { released.push_back(f); });
      to_left.push_back(graph.addArc(source, left[i]));
      to_sink.push_back(graph.addArc(right[i], sink));
      fresh.push_back(graph.addArc(source, right[i]));
      for (std::size_t rank = 0; rank < released.size(); ++rank) {
        const std::size_t f = released[rank];
        const Bytes grow = sorted[i].size > sorted[f].size ? sorted[i].size - sorted[f].size : 0;
        reuse.push_back({f, i, static_cast<Cost>(grow), static_cast<Cost>(rank),
                         graph.addArc(left[f], right[i])});
      }
      in_use.Hold(i, sorted[i].last);
    }
  }
};

void Solve(Simplex& simplex) {
  if (simplex.run() != Simplex::OPTIMAL)
    throw InternalError("min_cost_flow: LEMON found no optimal flow (cannot happen)");
}

}  // namespace

ObjectPlan PlanObjectsMinCostFlow(const Problem& problem) {
  const std::vector<UsageRecord> records = AlignedRecords(problem);
  const std::vector<std::size_t> order = SweepOrder(records);
  const std::size_t n = records.size();
  std::vector<UsageRecord> sorted;
  for (std::size_t i : order) sorted.push_back(records[i]);
  if (n == 0) return MakeObjectPlan("min_cost_flow", {}, {});
  if (records.size() > static_cast<std::size_t>(std::numeric_limits<int>::max() / 2))
    throw InputError("min_cost_flow: too many records");

  Network net(sorted);
  Graph::ArcMap<int> upper(net.graph, 1), lower(net.graph, 0);
  Graph::ArcMap<Cost> cost(net.graph, 0);
  Graph::NodeMap<int> supply(net.graph, 0);
  supply[net.source] = static_cast<int>(n);
  supply[net.sink] = -static_cast<int>(n);
  for (std::size_t i = 0; i < n; ++i) cost[net.fresh[i]] = static_cast<Cost>(sorted[i].size);
  for (const ReuseArc& a : net.reuse) cost[a.arc] = a.cost;

  // First solve: the minimal cost and dual potentials.
  Simplex first(net.graph);
  first.upperMap(upper).costMap(cost).supplyMap(supply);
  Solve(first);
  Graph::NodeMap<Cost> potential(net.graph);
  first.potentialMap(potential);

  // Second solve over the optimal face: an arc with positive reduced cost carries no
  // flow in any optimal solution, one with negative reduced cost is full in all of them.
  // Among the rest, prefer reusing the object released earliest.
  Graph::ArcMap<Cost> rank(net.graph, 0);
  for (Graph::ArcIt arc(net.graph); arc != lemon::INVALID; ++arc) {
    const Cost reduced =
        cost[arc] + potential[net.graph.source(arc)] - potential[net.graph.target(arc)];
    if (reduced > 0) upper[arc] = 0;
    if (reduced < 0) lower[arc] = 1;
  }
  for (const ReuseArc& a : net.reuse) rank[a.arc] = a.rank;
  Simplex second(net.graph);
  second.lowerMap(lower).upperMap(upper).costMap(rank).supplyMap(supply);
  Solve(second);

  // Chains: a record whose source->right arc is used starts a new object; follow the
  // used reuse arcs from it.
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> next(n, kNone);
  for (const ReuseArc& a : net.reuse)
    if (second.flow(a.arc) > 0) next[a.from] = a.to;
  std::vector<ObjectId> ids(n, kNone);
  std::vector<Bytes> sizes;
  for (std::size_t i = 0; i < n; ++i) {
    if (second.flow(net.fresh[i]) == 0) continue;
    const ObjectId object = sizes.size();
    sizes.push_back(0);
    for (std::size_t x = i; x != kNone; x = next[x]) {
      ids[order[x]] = object;
      sizes[object] = std::max(sizes[object], sorted[x].size);
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (ids[i] == kNone) throw InternalError("min_cost_flow: a record is on no chain");
  return MakeObjectPlan("min_cost_flow", std::move(ids), std::move(sizes));
}

}  // namespace memplan
