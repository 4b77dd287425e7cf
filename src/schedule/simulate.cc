#include "src/schedule/simulate.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"

namespace memplan::schedule {

namespace {

Bytes SizeOf(const TensorGraph& g, std::int32_t b) {
  return g.buffers[static_cast<std::size_t>(b)].size;
}

}  // namespace

Bytes InitialBytes(const TensorGraph& g) {
  Bytes sum = 0;
  for (const std::int32_t b : g.initial) sum += SizeOf(g, b);
  return sum;
}

Bytes PinnedBytes(const TensorGraph& g) {
  Bytes sum = 0;
  for (const Buffer& b : g.buffers)
    if (b.pinned) sum += b.size;
  return sum;
}

Simulation Simulate(const TensorGraph& g, std::span<const std::int32_t> order) {
  Simulation sim;
  sim.overwrite.assign(g.ops.size(), -1);
  sim.steps.reserve(order.size());
  sim.live_after.reserve(order.size());
  // Readers still to run, per buffer.
  std::vector<std::size_t> pending(g.buffers.size());
  for (std::size_t b = 0; b < g.buffers.size(); ++b) pending[b] = g.buffers[b].readers.size();
  Bytes live = 0;
  for (const std::int32_t b : g.initial) {
    sim.step0 += SizeOf(g, b);
    const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
    if (!buffer.readers.empty() || buffer.pinned) live += buffer.size;
  }
  sim.peak = sim.step0;
  for (const std::int32_t v : order) {
    const OpNode& op = g.ops[static_cast<std::size_t>(v)];
    Bytes step = live + op.extra;
    for (const std::int32_t b : op.creates) step += SizeOf(g, b);
    for (std::size_t c = 0; c < op.candidates.size(); ++c)
      if (pending[static_cast<std::size_t>(op.candidates[c].buffer)] == 1) {
        sim.overwrite[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(c);
        step -= SizeOf(g, op.share_output);
        break;
      }
    sim.peak = std::max(sim.peak, step);
    sim.steps.push_back(step);
    for (const std::int32_t b : op.creates) {
      const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
      if (!buffer.readers.empty() || buffer.pinned) live += buffer.size;
    }
    for (const std::int32_t b : op.reads) {
      const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
      if (--pending[static_cast<std::size_t>(b)] == 0 && !buffer.pinned) live -= buffer.size;
    }
    sim.live_after.push_back(live);
  }
  return sim;
}

void CheckTopological(const TensorGraph& g, std::span<const std::int32_t> order,
                      std::string_view what) {
  const std::size_t n = g.ops.size();
  if (order.size() != n)
    throw InputError(
        fmt::format("{}: an order must list each of the {} ops once; it has {} entries", what, n,
                    order.size()));
  std::vector<bool> done(n, false);
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const std::int32_t v = order[pos];
    if (v < 0 || static_cast<std::size_t>(v) >= n || done[static_cast<std::size_t>(v)])
      throw InputError(
          fmt::format("{}: order position {}: op {} is out of range or repeated", what, pos, v));
    for (const std::int32_t p : g.ops[static_cast<std::size_t>(v)].preds)
      if (!done[static_cast<std::size_t>(p)])
        throw InputError(fmt::format("{}: order position {}: op {} runs before op {} it depends on",
                                     what, pos, v, p));
    done[static_cast<std::size_t>(v)] = true;
  }
}

std::vector<std::int32_t> ExpandDeferred(const TensorGraph& g,
                                         std::span<const std::int32_t> order) {
  std::vector<std::size_t> position(g.ops.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) position[static_cast<std::size_t>(order[i])] = i;
  // before[i]: deferred ops to run just before order[i].
  std::vector<std::vector<std::int32_t>> before(order.size());
  for (std::size_t u = 0; u < g.ops.size(); ++u) {
    if (!g.ops[u].deferred) continue;
    std::size_t first = order.size();
    for (const std::int32_t s : g.ops[u].succs)
      first = std::min(first, position[static_cast<std::size_t>(s)]);
    if (first < order.size()) before[first].push_back(static_cast<std::int32_t>(u));
  }
  std::vector<std::int32_t> out;
  out.reserve(g.ops.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    out.insert(out.end(), before[i].begin(), before[i].end());
    out.push_back(order[i]);
  }
  return out;
}

Bytes OpLocalBytes(const TensorGraph& g, std::int32_t v) {
  const OpNode& op = g.ops[static_cast<std::size_t>(v)];
  Bytes sum = op.extra;
  for (const std::int32_t b : op.reads) sum += SizeOf(g, b);
  for (const std::int32_t b : op.creates) sum += SizeOf(g, b);
  if (!op.candidates.empty()) sum -= SizeOf(g, op.share_output);
  return sum;
}

Bytes OpLocalBound(const TensorGraph& g) {
  Bytes bound = std::max(InitialBytes(g), PinnedBytes(g));
  for (std::size_t v = 0; v < g.ops.size(); ++v)
    bound = std::max(bound, OpLocalBytes(g, static_cast<std::int32_t>(v)));
  return bound;
}

}  // namespace memplan::schedule
