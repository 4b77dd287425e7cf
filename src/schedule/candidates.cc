#include "src/schedule/candidates.h"

#include <algorithm>

namespace memplan::schedule {

namespace {

Bytes CreatedBytes(const TensorGraph& g, const OpNode& op) {
  Bytes sum = 0;
  for (const std::int32_t b : op.creates) sum += g.buffers[static_cast<std::size_t>(b)].size;
  return sum;
}

// Deferred ops feeding `op` (they run right before it unless another reader ran first).
std::vector<std::int32_t> Feeders(const TensorGraph& g, std::int32_t op) {
  std::vector<std::int32_t> out;
  for (const std::int32_t p : g.ops[static_cast<std::size_t>(op)].preds)
    if (g.ops[static_cast<std::size_t>(p)].deferred) out.push_back(p);
  return out;
}

}  // namespace

std::vector<std::int32_t> ListOrder(const TensorGraph& g) {
  const std::size_t n = g.ops.size();
  std::vector<std::size_t> waiting(n, 0);  // non-deferred preds not yet run
  for (const std::int32_t v : g.non_deferred)
    for (const std::int32_t p : g.ops[static_cast<std::size_t>(v)].preds)
      if (!g.ops[static_cast<std::size_t>(p)].deferred) ++waiting[static_cast<std::size_t>(v)];
  std::vector<std::size_t> pending(g.buffers.size());
  for (std::size_t b = 0; b < g.buffers.size(); ++b) pending[b] = g.buffers[b].readers.size();
  std::vector<bool> ran(n, false);
  std::vector<std::int32_t> ready;
  for (const std::int32_t v : g.non_deferred)
    if (waiting[static_cast<std::size_t>(v)] == 0) ready.push_back(v);

  auto net_freed = [&](std::int32_t v) {
    const OpNode& op = g.ops[static_cast<std::size_t>(v)];
    std::int64_t net = -static_cast<std::int64_t>(CreatedBytes(g, op));
    for (const std::int32_t u : Feeders(g, v))
      if (!ran[static_cast<std::size_t>(u)])
        net -= static_cast<std::int64_t>(CreatedBytes(g, g.ops[static_cast<std::size_t>(u)]));
    for (const std::int32_t b : op.reads) {
      const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
      if (pending[static_cast<std::size_t>(b)] == 1 && !buffer.pinned)
        net += static_cast<std::int64_t>(buffer.size);
    }
    for (const std::int32_t b : op.creates) {
      const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
      if (buffer.readers.empty() && !buffer.pinned) net += static_cast<std::int64_t>(buffer.size);
    }
    return net;
  };

  std::vector<std::int32_t> order;
  order.reserve(g.non_deferred.size());
  while (!ready.empty()) {
    std::size_t best = 0;
    std::int64_t best_net = net_freed(ready[0]);
    for (std::size_t i = 1; i < ready.size(); ++i) {
      const std::int64_t net = net_freed(ready[i]);
      if (net > best_net || (net == best_net && ready[i] < ready[best])) best = i, best_net = net;
    }
    const std::int32_t v = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    order.push_back(v);
    for (const std::int32_t u : Feeders(g, v)) ran[static_cast<std::size_t>(u)] = true;
    ran[static_cast<std::size_t>(v)] = true;
    for (const std::int32_t b : g.ops[static_cast<std::size_t>(v)].reads)
      --pending[static_cast<std::size_t>(b)];
    for (const std::int32_t s : g.ops[static_cast<std::size_t>(v)].succs)
      if (!g.ops[static_cast<std::size_t>(s)].deferred &&
          --waiting[static_cast<std::size_t>(s)] == 0)
        ready.push_back(s);
  }
  return order;
}

std::vector<std::int32_t> DepthFirstOrder(const TensorGraph& g, bool by_need) {
  const std::size_t n = g.ops.size();
  // Children = non-deferred producers of an op's inputs; the file order is topological,
  // so needs are computed children first.
  std::vector<std::vector<std::int32_t>> children(n);
  std::vector<Bytes> result(n, 0), need(n, 0);
  for (const std::int32_t v : g.non_deferred) {
    const OpNode& op = g.ops[static_cast<std::size_t>(v)];
    auto& kids = children[static_cast<std::size_t>(v)];
    for (const std::int32_t p : op.preds)
      if (!g.ops[static_cast<std::size_t>(p)].deferred) kids.push_back(p);
    result[static_cast<std::size_t>(v)] = CreatedBytes(g, op);
    if (by_need)
      std::stable_sort(kids.begin(), kids.end(), [&](std::int32_t a, std::int32_t b) {
        const auto ka = static_cast<std::int64_t>(need[static_cast<std::size_t>(a)]) -
                        static_cast<std::int64_t>(result[static_cast<std::size_t>(a)]);
        const auto kb = static_cast<std::int64_t>(need[static_cast<std::size_t>(b)]) -
                        static_cast<std::int64_t>(result[static_cast<std::size_t>(b)]);
        return ka > kb;
      });
    Bytes held = 0, peak = 0;
    for (const std::int32_t k : kids) {
      peak = std::max(peak, held + need[static_cast<std::size_t>(k)]);
      held += result[static_cast<std::size_t>(k)];
    }
    need[static_cast<std::size_t>(v)] = std::max(peak, held + result[static_cast<std::size_t>(v)]);
  }
  // Visit from the sinks in file order, iteratively (graphs can be deep).
  std::vector<bool> visited(n, false);
  std::vector<std::int32_t> order;
  order.reserve(g.non_deferred.size());
  std::vector<std::pair<std::int32_t, std::size_t>> stack;
  for (const std::int32_t root : g.non_deferred) {
    const OpNode& op = g.ops[static_cast<std::size_t>(root)];
    const bool sink = std::none_of(op.succs.begin(), op.succs.end(), [&](std::int32_t s) {
      return !g.ops[static_cast<std::size_t>(s)].deferred;
    });
    if (!sink || visited[static_cast<std::size_t>(root)]) continue;
    stack.push_back({root, 0});
    visited[static_cast<std::size_t>(root)] = true;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& kids = children[static_cast<std::size_t>(v)];
      if (next < kids.size()) {
        const std::int32_t k = kids[next++];
        if (!visited[static_cast<std::size_t>(k)]) {
          visited[static_cast<std::size_t>(k)] = true;
          stack.push_back({k, 0});
        }
        continue;
      }
      order.push_back(v);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace memplan::schedule
