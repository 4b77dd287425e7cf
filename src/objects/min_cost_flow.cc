// objects/min_cost_flow: TensorFlow Lite GPU's MINCOSTFLOW, solved with LEMON.
//
// TensorFlow Lite's network, over records in step order (stable by first): nodes left i
// ("record i's object, free once i ends"), right i ("record i needs memory"), a source
// and a sink; arcs of capacity 1: source -> left i (cost 0), right i -> sink (cost 0),
// source -> right i (cost size_i: a new object) and, for every record f released before
// i starts, left f -> right i (cost max(0, size_i - size_f): i reuses f's object, which
// grows). n units flow from source to sink; the used reuse arcs chain records into
// objects, each as large as its largest record.
//
// That network has O(n²) reuse arcs (240,000 for 700 records), too many to solve fast.
// memplan solves it in two LEMON network-simplex runs:
// 1. The optimal cost and node potentials, from an equivalent network with O(n log n)
//    arcs: records released before i form a prefix of the release order, so the prefix
//    is covered by O(log n) nodes of a segment tree over that order; each tree node holds
//    its records' sizes as a chain of levels (down free, up at the size difference), so
//    a unit from f reaches i through a tree node at cost exactly max(0, size_i - size_f).
//    Only source -> left, right -> sink and source -> right keep capacity 1 (left and
//    right nodes admit one unit anyway); every other arc is uncapacitated, so its
//    reduced cost is >= 0 at the optimum, the potentials of the left, right, source and
//    sink nodes are optimal duals of TensorFlow Lite's network too, and every reuse arc
//    has a reduced cost >= 0.
// 2. A choice among the minimal-cost flows: only TensorFlow Lite's arcs with zero reduced
//    cost can carry flow in an optimal solution (arcs with positive reduced cost carry
//    none, capacity-1 arcs with negative reduced cost are full in all of them). Over those
//    arcs, LEMON minimises the release rank of the reused records: each record prefers
//    the object released earliest.
//
// Tie-breaking: TensorFlow Lite solves by successive shortest paths (level-synchronous
// Bellman-Ford); when several flows share the minimal cost, which one it returns depends
// on its search order, and object totals can differ between them (the flow cost sums
// growth increments, not object sizes). memplan's rule (step 2) reproduces every
// min_cost_flow expectation in the conformance files; elsewhere it can pick a different
// optimal flow than TensorFlow Lite, so totals may differ.
//
// Costs are 64-bit (TensorFlow Lite's are `int` and overflow above 2^31 bytes).
// LEMON's SmartDigraph leaves parts of its node records uninitialized on purpose; once
// inlined here GCC's -Wmaybe-uninitialized flags that (seen in sanitizer builds).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <algorithm>
#include <limits>

#include "memplan/error.h"
#include "src/objects/sweep.h"

namespace memplan {

using namespace objects;

namespace {

using Graph = lemon::SmartDigraph;
using Cost = std::int64_t;
using Simplex = lemon::NetworkSimplex<Graph, int, Cost>;

Cost Grow(const UsageRecord& from, const UsageRecord& to) {
  return to.size > from.size ? static_cast<Cost>(to.size - from.size) : 0;
}

// The order in which records are released during the sweep (TensorFlow Lite's
// "finished" list) and, per record, how many were released before it starts.
struct Releases {
  std::vector<std::size_t> order;   // sweep positions, in release order
  std::vector<std::size_t> before;  // before[i]: length of the prefix record i can reuse
};

Releases ReleaseOrder(const std::vector<UsageRecord>& sorted) {
  Releases out;
  InUse in_use;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    in_use.ReleaseBefore(sorted[i].first, [&](std::size_t f) { out.order.push_back(f); });
    out.before.push_back(out.order.size());
    in_use.Hold(i, sorted[i].last);
  }
  return out;
}

// Node potentials of an optimal solution of TensorFlow Lite's network.
struct Potentials {
  std::vector<Cost> left, right;  // per record
  Cost source = 0, sink = 0;
};

Cost Run(Simplex& simplex) {
  if (simplex.run() != Simplex::OPTIMAL)
    throw InternalError("min_cost_flow: LEMON found no optimal flow (cannot happen)");
  return simplex.totalCost();
}

// Step 1: the compact network (see the file comment) and its optimal potentials.
class CompactNetwork {
 public:
  CompactNetwork(const std::vector<UsageRecord>& sorted, const Releases& releases)
      : sorted_(sorted), releases_(releases), unlimited_(static_cast<int>(sorted.size()) + 1) {}

  Potentials Solve() {
    const std::size_t n = sorted_.size();
    for (std::size_t i = 0; i < n; ++i) left_.push_back(graph_.addNode());
    for (std::size_t i = 0; i < n; ++i) right_.push_back(graph_.addNode());
    source_ = graph_.addNode();
    sink_ = graph_.addNode();
    for (std::size_t i = 0; i < n; ++i) {
      Arc(source_, left_[i], 0, 1);
      Arc(right_[i], sink_, 0, 1);
      Arc(source_, right_[i], static_cast<Cost>(sorted_[i].size), 1);
    }
    if (!releases_.order.empty()) {
      Build(0, releases_.order.size(), true);
      for (std::size_t i = 0; i < n; ++i) Query(i, 0, 0, releases_.order.size());
    }
    Graph::NodeMap<int> supply(graph_, 0);
    supply[source_] = static_cast<int>(n);
    supply[sink_] = -static_cast<int>(n);
    Simplex simplex(graph_);
    simplex.upperMap(upper_).costMap(cost_).supplyMap(supply);
    Run(simplex);
    Potentials p;
    for (std::size_t i = 0; i < n; ++i) {
      p.left.push_back(simplex.potential(left_[i]));
      p.right.push_back(simplex.potential(right_[i]));
    }
    p.source = simplex.potential(source_);
    p.sink = simplex.potential(sink_);
    return p;
  }

 private:
  // A segment-tree node over release positions [lo, hi): its records' distinct sizes,
  // ascending, each a graph node.
  struct TreeNode {
    std::vector<Bytes> sizes;
    std::vector<Graph::Node> levels;
  };

  void Arc(Graph::Node from, Graph::Node to, Cost cost, int upper) {
    const Graph::Arc arc = graph_.addArc(from, to);
    cost_.set(arc, cost);
    upper_.set(arc, upper);
  }

  // Builds the tree node of [lo, hi) (index `tree_.size()` in preorder) and below. A
  // prefix [0, end) is covered by the root or by left children only (a right child is
  // inside a prefix only if its left sibling is too, and then so is their parent), so
  // right children get no levels.
  void Build(std::size_t lo, std::size_t hi, bool covers_prefixes) {
    const std::size_t index = tree_.size();
    tree_.emplace_back();
    if (covers_prefixes) {
      std::vector<Bytes> sizes;
      for (std::size_t p = lo; p < hi; ++p) sizes.push_back(sorted_[releases_.order[p]].size);
      std::sort(sizes.begin(), sizes.end());
      sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
      std::vector<Graph::Node> levels;
      for (std::size_t k = 0; k < sizes.size(); ++k) {
        levels.push_back(graph_.addNode());
        if (k > 0) {
          Arc(levels[k], levels[k - 1], 0, unlimited_);  // a larger object serves a smaller need
          Arc(levels[k - 1], levels[k], static_cast<Cost>(sizes[k] - sizes[k - 1]), unlimited_);
        }
      }
      for (std::size_t p = lo; p < hi; ++p) {
        const std::size_t f = releases_.order[p];
        const auto k =
            std::lower_bound(sizes.begin(), sizes.end(), sorted_[f].size) - sizes.begin();
        Arc(left_[f], levels[static_cast<std::size_t>(k)], 0, unlimited_);
      }
      tree_[index].sizes = std::move(sizes);
      tree_[index].levels = std::move(levels);
    }
    if (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      Build(lo, mid, true);
      Build(mid, hi, false);
    }
  }

  // Connects record i to the tree nodes covering release positions [0, before[i]);
  // `index` is the preorder index of the node of [lo, hi). Returns the number of nodes
  // in the subtree (to find the right child's index).
  std::size_t Query(std::size_t i, std::size_t index, std::size_t lo, std::size_t hi) {
    const std::size_t subtree = 2 * (hi - lo) - 1;
    const std::size_t end = releases_.before[i];
    if (lo >= end) return subtree;
    if (hi <= end) {
      if (tree_[index].levels.empty())
        throw InternalError("min_cost_flow: a prefix reached a right child");
      Connect(tree_[index], i);
      return subtree;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    const std::size_t left_size = Query(i, index + 1, lo, mid);
    Query(i, index + 1 + left_size, mid, hi);
    return subtree;
  }

  // Record i takes a unit from a tree node: free from the smallest level >= its size,
  // at the difference from the largest level below it.
  void Connect(const TreeNode& node, std::size_t i) {
    const Bytes size = sorted_[i].size;
    const auto at_least = std::lower_bound(node.sizes.begin(), node.sizes.end(), size);
    const auto k = static_cast<std::size_t>(at_least - node.sizes.begin());
    if (k < node.sizes.size()) Arc(node.levels[k], right_[i], 0, unlimited_);
    if (k > 0)
      Arc(node.levels[k - 1], right_[i], static_cast<Cost>(size - node.sizes[k - 1]), unlimited_);
  }

  const std::vector<UsageRecord>& sorted_;
  const Releases& releases_;
  const int unlimited_;  // more than the n units that flow: never a binding capacity
  Graph graph_;
  Graph::ArcMap<Cost> cost_{graph_};
  Graph::ArcMap<int> upper_{graph_};
  std::vector<Graph::Node> left_, right_;
  Graph::Node source_, sink_;
  std::vector<TreeNode> tree_;  // preorder
};

// Step 2: TensorFlow Lite's network restricted to the arcs an optimal flow may use,
// solved for the smallest total release rank. Returns next[f] = the record that reuses
// f's object (or n) and whether each record starts a new object.
struct Chains {
  std::vector<std::size_t> next;
  std::vector<bool> starts;
};

Chains ChooseOptimalFlow(const std::vector<UsageRecord>& sorted, const Releases& releases,
                         const Potentials& pi) {
  const std::size_t n = sorted.size();
  Graph graph;
  std::vector<Graph::Node> left, right;
  for (std::size_t i = 0; i < n; ++i) left.push_back(graph.addNode());
  for (std::size_t i = 0; i < n; ++i) right.push_back(graph.addNode());
  const Graph::Node source = graph.addNode(), sink = graph.addNode();
  Graph::ArcMap<int> lower(graph), upper(graph);
  Graph::ArcMap<Cost> rank(graph);
  // A capacity-1 arc of TensorFlow Lite's network with the given reduced cost.
  auto add = [&](Graph::Node from, Graph::Node to, Cost reduced, Cost arc_rank) {
    const Graph::Arc arc = graph.addArc(from, to);
    lower.set(arc, reduced < 0 ? 1 : 0);
    upper.set(arc, reduced > 0 ? 0 : 1);
    rank.set(arc, arc_rank);
    return arc;
  };
  std::vector<Graph::Arc> fresh;
  for (std::size_t i = 0; i < n; ++i) {
    add(source, left[i], pi.source - pi.left[i], 0);
    add(right[i], sink, pi.right[i] - pi.sink, 0);
    fresh.push_back(
        add(source, right[i], static_cast<Cost>(sorted[i].size) + pi.source - pi.right[i], 0));
  }
  struct Reuse {
    std::size_t from, to;
    Graph::Arc arc;
  };
  std::vector<Reuse> reuse;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t r = 0; r < releases.before[i]; ++r) {
      const std::size_t f = releases.order[r];
      const Cost reduced = Grow(sorted[f], sorted[i]) + pi.left[f] - pi.right[i];
      if (reduced < 0) throw InternalError("min_cost_flow: potentials are not optimal");
      if (reduced == 0) reuse.push_back({f, i, add(left[f], right[i], 0, static_cast<Cost>(r))});
    }
  }
  Graph::NodeMap<int> supply(graph, 0);
  supply[source] = static_cast<int>(n);
  supply[sink] = -static_cast<int>(n);
  Simplex simplex(graph);
  simplex.lowerMap(lower).upperMap(upper).costMap(rank).supplyMap(supply);
  Run(simplex);
  Chains chains{std::vector<std::size_t>(n, n), std::vector<bool>(n, false)};
  for (const Reuse& r : reuse)
    if (simplex.flow(r.arc) > 0) chains.next[r.from] = r.to;
  for (std::size_t i = 0; i < n; ++i) chains.starts[i] = simplex.flow(fresh[i]) > 0;
  return chains;
}

}  // namespace

ObjectPlan PlanObjectsMinCostFlow(const Problem& problem) {
  const std::vector<UsageRecord> records = AlignedRecords(problem);
  const std::size_t n = records.size();
  if (n == 0) return MakeObjectPlan("min_cost_flow", {}, {});
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max() / 4))
    throw InputError("min_cost_flow: too many records");
  const std::vector<std::size_t> order = SweepOrder(records);
  const std::vector<UsageRecord> sorted = InOrder(records, order);

  const Releases releases = ReleaseOrder(sorted);
  const Potentials potentials = CompactNetwork(sorted, releases).Solve();
  const Chains chains = ChooseOptimalFlow(sorted, releases, potentials);

  // A record whose source -> right arc is used starts a new object; the used reuse arcs
  // from it form its chain.
  constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();
  std::vector<ObjectId> ids(n, kNone);
  std::vector<Bytes> sizes;
  for (std::size_t i = 0; i < n; ++i) {
    if (!chains.starts[i]) continue;
    const ObjectId object = sizes.size();
    sizes.push_back(0);
    for (std::size_t x = i; x != n; x = chains.next[x]) {
      ids[order[x]] = object;
      sizes[object] = std::max(sizes[object], sorted[x].size);
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (ids[i] == kNone) throw InternalError("min_cost_flow: a record is on no chain");
  return MakeObjectPlan("min_cost_flow", std::move(ids), std::move(sizes));
}

}  // namespace memplan
