#include "src/schedule/dp_search.h"

#include <algorithm>
#include <numeric>

namespace memplan::schedule {

namespace {

using Word = std::uint64_t;

// A buffer an op reads (or may overwrite): it dies at the op when no reader other than
// the op is still to run.
struct Reader {
  Bytes size = 0;
  bool blocked = false;               // pinned, or read by a later segment
  std::vector<std::uint32_t> others;  // other readers in this segment (local indices)
};

// A deferred op feeding an op: it runs right before the op unless another of its
// readers ran first.
struct Feeder {
  Bytes size = 0;                     // what it creates
  std::vector<std::uint32_t> others;  // its other readers in this segment
};

struct LocalOp {
  std::int32_t op = -1;  // index in the graph
  std::vector<Reader> reads;
  std::vector<Reader> candidates;  // inputs it may overwrite
  Bytes share_size = 0;            // its first output, when it may overwrite
  std::vector<Feeder> feeders;
  Bytes created = 0;       // Σ buffers it creates
  Bytes created_dead = 0;  // of those, read by nobody and not pinned
  Bytes extra = 0;
  Bytes op_local = 0;  // bytes its step holds in any order
};

struct Segment {
  std::size_t m = 0;      // ops
  std::size_t words = 0;  // words per set
  std::vector<LocalOp> ops;
  std::vector<Word> preds;                        // m rows of `words`: predecessors in the segment
  std::vector<std::vector<std::uint32_t>> succs;  // successors in the segment
  std::vector<std::uint32_t> by_op_local;         // local ops, largest op-local bytes first
};

bool Has(const Word* set, std::uint32_t i) {
  return set[i / 64] >> (i % 64) & 1u;
}

bool AllIn(const Word* set, const std::vector<std::uint32_t>& items) {
  return std::all_of(items.begin(), items.end(), [&](std::uint32_t i) { return Has(set, i); });
}

Segment Prepare(const TensorGraph& g, const SegmentTask& task) {
  Segment seg;
  seg.m = task.ops.size();
  seg.words = (seg.m + 63) / 64;
  std::vector<std::int32_t> local(g.ops.size(), -1);
  for (std::size_t i = 0; i < seg.m; ++i)
    local[static_cast<std::size_t>(task.ops[i])] = static_cast<std::int32_t>(i);
  auto segment = [&](std::int32_t op) { return task.segment_of[static_cast<std::size_t>(op)]; };
  auto reader = [&](std::int32_t b, std::int32_t self) {
    const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
    Reader r;
    r.size = buffer.size;
    r.blocked = buffer.pinned;
    for (const std::int32_t other : buffer.readers) {
      if (other == self) continue;
      if (segment(other) > task.index) r.blocked = true;
      if (segment(other) == task.index)
        r.others.push_back(static_cast<std::uint32_t>(local[static_cast<std::size_t>(other)]));
    }
    return r;
  };
  seg.ops.resize(seg.m);
  seg.preds.assign(seg.m * seg.words, 0);
  seg.succs.resize(seg.m);
  for (std::size_t i = 0; i < seg.m; ++i) {
    const std::int32_t v = task.ops[i];
    const OpNode& op = g.ops[static_cast<std::size_t>(v)];
    LocalOp& lo = seg.ops[i];
    lo.op = v;
    lo.extra = op.extra;
    for (const std::int32_t b : op.reads) lo.reads.push_back(reader(b, v));
    for (const OverwriteCandidate& c : op.candidates) lo.candidates.push_back(reader(c.buffer, v));
    if (op.share_output >= 0)
      lo.share_size = g.buffers[static_cast<std::size_t>(op.share_output)].size;
    for (const std::int32_t b : op.creates) {
      const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
      lo.created += buffer.size;
      if (buffer.readers.empty() && !buffer.pinned) lo.created_dead += buffer.size;
    }
    for (const std::int32_t p : op.preds) {
      const OpNode& pred = g.ops[static_cast<std::size_t>(p)];
      if (pred.deferred) {
        Feeder f;
        bool ran_before = false;
        for (const std::int32_t s : pred.succs) {
          if (s == v) continue;
          if (segment(s) < task.index) ran_before = true;
          if (segment(s) == task.index)
            f.others.push_back(static_cast<std::uint32_t>(local[static_cast<std::size_t>(s)]));
        }
        if (ran_before) continue;
        for (const std::int32_t b : pred.creates)
          f.size += g.buffers[static_cast<std::size_t>(b)].size;
        lo.feeders.push_back(std::move(f));
      } else if (local[static_cast<std::size_t>(p)] >= 0) {
        const auto j = static_cast<std::size_t>(local[static_cast<std::size_t>(p)]);
        seg.preds[i * seg.words + j / 64] |= Word{1} << (j % 64);
        seg.succs[j].push_back(static_cast<std::uint32_t>(i));
      }
    }
    lo.op_local = lo.extra + lo.created;
    for (const Reader& r : lo.reads) lo.op_local += r.size;
    if (!lo.candidates.empty()) lo.op_local -= lo.share_size;
  }
  seg.by_op_local.resize(seg.m);
  std::iota(seg.by_op_local.begin(), seg.by_op_local.end(), 0u);
  std::stable_sort(
      seg.by_op_local.begin(), seg.by_op_local.end(),
      [&](std::uint32_t a, std::uint32_t b) { return seg.ops[a].op_local > seg.ops[b].op_local; });
  return seg;
}

// One layer of states: sets of equal size with their best peak. What depends on the set
// alone (ready ops, the op-local bound of the ops left) is kept per state so a child
// derives it from its parent instead of scanning every op.
struct Layer {
  std::vector<Word> keys;  // `words` per state
  std::vector<Bytes> peak, live;
  std::vector<std::uint32_t> parent;       // state index in the previous layer
  std::vector<std::uint32_t> op;           // local op that extended the parent
  std::vector<std::uint32_t> ready;        // ready ops of every state, ascending, back to back
  std::vector<std::uint32_t> ready_start;  // per state: where its ready ops start (+ end)
  std::vector<std::uint32_t> bound_at;     // per state: first op of by_op_local not in it
  Layer() { ready_start.push_back(0); }
  std::size_t size() const { return peak.size(); }
  std::span<const std::uint32_t> Ready(std::size_t s) const {
    return {ready.data() + ready_start[s], ready.data() + ready_start[s + 1]};
  }
  void Append(const Layer& from, std::size_t s, std::size_t words) {
    keys.insert(keys.end(), from.keys.begin() + static_cast<std::ptrdiff_t>(s * words),
                from.keys.begin() + static_cast<std::ptrdiff_t>((s + 1) * words));
    peak.push_back(from.peak[s]);
    live.push_back(from.live[s]);
    parent.push_back(from.parent[s]);
    op.push_back(from.op[s]);
    const auto r = from.Ready(s);
    ready.insert(ready.end(), r.begin(), r.end());
    ready_start.push_back(static_cast<std::uint32_t>(ready.size()));
    bound_at.push_back(from.bound_at[s]);
  }
};

// Open addressing from a set to its index in the layer being built.
class SetIndex {
 public:
  SetIndex(std::size_t words, const Layer& layer) : words_(words), layer_(layer) {}
  void Clear() {
    slots_.assign(16, -1);
    used_ = 0;
  }
  // The index of `key` in the layer, or -1 when absent; `Insert` must follow a miss.
  std::int64_t Find(const Word* key, std::size_t hash) const {
    for (std::size_t i = hash & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const std::int64_t s = slots_[i];
      if (s < 0) return -1;
      if (std::equal(key, key + words_, &layer_.keys[static_cast<std::size_t>(s) * words_]))
        return s;
    }
  }
  void Insert(std::size_t hash, std::int64_t index) {
    if (2 * (used_ + 1) > slots_.size()) Grow();
    Put(hash, index);
    ++used_;
  }
  static std::size_t Hash(const Word* key, std::size_t words) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::size_t w = 0; w < words; ++w) {
      h ^= key[w] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return static_cast<std::size_t>(h ^ (h >> 33));
  }

 private:
  void Put(std::size_t hash, std::int64_t index) {
    std::size_t i = hash & (slots_.size() - 1);
    while (slots_[i] >= 0) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = index;
  }
  void Grow() {
    std::vector<std::int64_t> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, -1);
    for (const std::int64_t s : old)
      if (s >= 0) Put(Hash(&layer_.keys[static_cast<std::size_t>(s) * words_], words_), s);
  }
  std::size_t words_;
  const Layer& layer_;
  std::vector<std::int64_t> slots_ = std::vector<std::int64_t>(16, -1);
  std::size_t used_ = 0;
};

struct Step {
  Bytes step = 0;  // bytes at the op's step
  Bytes live = 0;  // bytes alive after it
};

Step Transition(const LocalOp& op, const Word* set, Bytes live) {
  Bytes born = 0;
  for (const Feeder& f : op.feeders)
    if (std::none_of(f.others.begin(), f.others.end(),
                     [&](std::uint32_t i) { return Has(set, i); }))
      born += f.size;
  Bytes step = live + born + op.created + op.extra;
  for (const Reader& c : op.candidates)
    if (!c.blocked && AllIn(set, c.others)) {
      step -= op.share_size;
      break;
    }
  Bytes died = op.created_dead;
  for (const Reader& r : op.reads)
    if (!r.blocked && AllIn(set, r.others)) died += r.size;
  return {step, live + born + op.created - died};
}

// Keeps the best `width` states of a layer (lowest peak, then lowest live, then first).
void Truncate(Layer& layer, std::size_t words, std::size_t width) {
  if (layer.size() <= width) return;
  std::vector<std::uint32_t> idx(layer.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (layer.peak[a] != layer.peak[b]) return layer.peak[a] < layer.peak[b];
    return layer.live[a] < layer.live[b];
  });
  idx.resize(width);
  std::sort(idx.begin(), idx.end());
  Layer kept;
  for (const std::uint32_t i : idx) kept.Append(layer, i, words);
  layer = std::move(kept);
}

// The first layer: the empty set, with the ops that have no predecessor ready.
Layer FirstLayer(const Segment& seg, Bytes live_before) {
  const std::size_t W = seg.words;
  Layer layer;
  layer.keys.assign(W, 0);
  layer.peak.push_back(0);
  layer.live.push_back(live_before);
  layer.parent.push_back(0);
  layer.op.push_back(0);
  for (std::uint32_t v = 0; v < seg.m; ++v)
    if (std::all_of(&seg.preds[v * W], &seg.preds[(v + 1) * W], [](Word w) { return w == 0; }))
      layer.ready.push_back(v);
  layer.ready_start.push_back(static_cast<std::uint32_t>(layer.ready.size()));
  layer.bound_at.push_back(0);
  return layer;
}

// Extends the states of one layer by one op each, into the next layer. Keeps its scratch
// vectors between states so that a layer allocates only what it keeps.
class LayerExtender {
 public:
  LayerExtender(const Segment& seg, const SegmentTask& task)
      : seg_(seg), task_(task), key_(seg.words) {}

  // Adds to `next` the children of state `s` of `layer` (or lowers the peak of a child
  // already there).
  void Extend(const Layer& layer, std::size_t s, Layer& next, SetIndex& index) {
    const Word* set = &layer.keys[s * seg_.words];
    const std::span<const std::uint32_t> ready = layer.Ready(s);
    steps_.clear();
    for (const std::uint32_t v : ready)
      steps_.push_back(Transition(seg_.ops[v], set, layer.live[s]));
    // An op that raises neither the peak nor the live bytes can run first in some
    // optimal completion: run only it.
    std::size_t first = 0, last = ready.size();
    for (std::size_t r = 0; r < ready.size(); ++r)
      if (steps_[r].step <= layer.peak[s] && steps_[r].live <= layer.live[s]) {
        first = r, last = r + 1;
        break;
      }
    for (std::size_t r = first; r < last; ++r) ExtendBy(layer, s, ready, r, next, index);
  }

 private:
  void ExtendBy(const Layer& layer, std::size_t s, std::span<const std::uint32_t> ready,
                std::size_t r, Layer& next, SetIndex& index) {
    const std::size_t W = seg_.words;
    const std::uint32_t v = ready[r];
    const Bytes peak = std::max(layer.peak[s], steps_[r].step);
    if (peak >= task_.budget) return;
    const Word* set = &layer.keys[s * W];
    std::copy(set, set + W, key_.begin());
    key_[v / 64] |= Word{1} << (v % 64);
    // The largest op-local bytes among the ops left bound every completion.
    std::uint32_t bound_at = layer.bound_at[s];
    while (bound_at < seg_.m && Has(key_.data(), seg_.by_op_local[bound_at])) ++bound_at;
    if (bound_at < seg_.m && seg_.ops[seg_.by_op_local[bound_at]].op_local >= task_.budget) return;
    const std::size_t hash = SetIndex::Hash(key_.data(), W);
    const std::int64_t found = index.Find(key_.data(), hash);
    if (found >= 0) {
      const auto f = static_cast<std::size_t>(found);
      if (peak < next.peak[f]) {
        next.peak[f] = peak;
        next.parent[f] = static_cast<std::uint32_t>(s);
        next.op[f] = v;
      }
      return;
    }
    CollectChildReady(ready, v);
    next.keys.insert(next.keys.end(), key_.begin(), key_.end());
    next.peak.push_back(peak);
    next.live.push_back(steps_[r].live);
    next.parent.push_back(static_cast<std::uint32_t>(s));
    next.op.push_back(v);
    next.ready.insert(next.ready.end(), child_ready_.begin(), child_ready_.end());
    next.ready_start.push_back(static_cast<std::uint32_t>(next.ready.size()));
    next.bound_at.push_back(bound_at);
    index.Insert(hash, static_cast<std::int64_t>(next.size() - 1));
  }

  // Ready after v (key_ holds the set with v): the others, and v's successors whose
  // predecessors have all run.
  void CollectChildReady(std::span<const std::uint32_t> ready, std::uint32_t v) {
    const std::size_t W = seg_.words;
    child_ready_.clear();
    for (const std::uint32_t u : ready)
      if (u != v) child_ready_.push_back(u);
    for (const std::uint32_t u : seg_.succs[v]) {
      const Word* p = &seg_.preds[u * W];
      bool ok = true;
      for (std::size_t w = 0; w < W && ok; ++w) ok = (p[w] & ~key_[w]) == 0;
      if (ok) child_ready_.insert(std::upper_bound(child_ready_.begin(), child_ready_.end(), u), u);
    }
  }

  const Segment& seg_;
  const SegmentTask& task_;
  std::vector<Word> key_;
  std::vector<Step> steps_;
  std::vector<std::uint32_t> child_ready_;
};

// (parent, op) of every state of each layer after the first.
using History = std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>;

// The order that led to state 0 of the last layer, as graph op indices.
std::vector<std::int32_t> Backtrack(const Segment& seg, const History& history) {
  std::vector<std::int32_t> order(seg.m);
  std::uint32_t s = 0;
  for (std::size_t k = seg.m; k-- > 0;) {
    const auto [parent, op] = history[k][s];
    order[k] = seg.ops[op].op;
    s = parent;
  }
  return order;
}

}  // namespace

SegmentResult SearchSegment(const TensorGraph& g, const SegmentTask& task,
                            const SearchLimits& limits) {
  const Segment seg = Prepare(g, task);
  SegmentResult result;
  History history;
  Layer layer = FirstLayer(seg, task.live_before);
  std::size_t expansions = 0;
  LayerExtender extender(seg, task);
  for (std::size_t k = 0; k < seg.m; ++k) {
    Layer next;
    SetIndex index(seg.words, next);
    for (std::size_t s = 0; s < layer.size(); ++s) {
      if (++expansions % 1024 == 0 && limits.beam_width == 0 && limits.deadline &&
          std::chrono::steady_clock::now() > *limits.deadline)
        return result;
      extender.Extend(layer, s, next, index);
    }
    if (limits.beam_width > 0) Truncate(next, seg.words, limits.beam_width);
    result.states += next.size();
    if (limits.beam_width == 0 && result.states > limits.max_states) return result;
    history.emplace_back();
    for (std::size_t s = 0; s < next.size(); ++s)
      history.back().push_back({next.parent[s], next.op[s]});
    layer = std::move(next);
    if (layer.size() == 0) break;
  }
  result.completed = true;
  if (history.size() < seg.m || layer.size() == 0) return result;
  result.found = true;
  result.peak = layer.peak[0];
  result.order = Backtrack(seg, history);
  return result;
}

}  // namespace memplan::schedule
