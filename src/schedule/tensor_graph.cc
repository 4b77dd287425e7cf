#include "src/schedule/tensor_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "memplan/error.h"

namespace memplan::schedule {

namespace {

// Ops whose relative order carries state the tensors do not show: control flow, resource
// and variable access, ops without outputs. The search keeps them in file order.
bool HasHiddenState(const Subgraph& sg, const Operator& op) {
  static const std::vector<std::string_view> kStateful = {"VAR_HANDLE", "READ_VARIABLE",
                                                          "ASSIGN_VARIABLE", "CALL_ONCE"};
  if (!op.called_subgraphs.empty() || op.outputs.empty()) return true;
  if (std::find(kStateful.begin(), kStateful.end(), op.type) != kStateful.end()) return true;
  auto stateful_tensor = [&](std::int32_t t) {
    if (t < 0) return false;
    const Tensor& tensor = sg.tensors[static_cast<std::size_t>(t)];
    return tensor.is_variable || tensor.type == DataType::kResource ||
           tensor.type == DataType::kVariant;
  };
  return std::any_of(op.inputs.begin(), op.inputs.end(), stateful_tensor) ||
         std::any_of(op.outputs.begin(), op.outputs.end(), stateful_tensor);
}

void AddUnique(std::vector<std::int32_t>& list, std::int32_t value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

struct UnionFind {
  std::vector<std::int32_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::int32_t Find(std::int32_t x) {
    while (parent[static_cast<std::size_t>(x)] != x) {
      parent[static_cast<std::size_t>(x)] =
          parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
      x = parent[static_cast<std::size_t>(x)];
    }
    return x;
  }
};

// What the builder knows about each tensor before buffers exist.
struct TensorFacts {
  std::vector<bool> planned;            // takes arena memory
  std::vector<bool> io;                 // a subgraph input or output
  std::vector<bool> is_output;          // a subgraph output
  std::vector<bool> is_input;           // a subgraph input
  std::vector<std::int32_t> producer;   // op writing it, -1 = none
  std::vector<std::uint32_t> refcount;  // TFLite's reference count (reads + I/O)
};

TensorFacts CollectFacts(const Graph& graph, std::size_t s, bool plan_io) {
  const Subgraph& sg = graph.subgraphs[s];
  const std::size_t n = sg.tensors.size();
  TensorFacts f{std::vector<bool>(n),
                std::vector<bool>(n),
                std::vector<bool>(n),
                std::vector<bool>(n),
                std::vector<std::int32_t>(n, -1),
                std::vector<std::uint32_t>(n, 0)};
  auto check = [&](std::int32_t t, std::size_t op, const char* what) {
    if (t < -1 || t >= static_cast<std::int32_t>(n))
      throw InputError(fmt::format("{}: subgraph {}, op {} ({}): {} tensor index {} out of range",
                                   graph.source, s, op, sg.ops[op].type, what, t));
  };
  for (std::size_t t = 0; t < n; ++t) {
    const Tensor& tensor = sg.tensors[t];
    f.planned[t] = !tensor.is_constant && !tensor.is_variable && tensor.bytes && *tensor.bytes > 0;
  }
  for (const std::int32_t t : sg.inputs) {
    if (t < 0 || static_cast<std::size_t>(t) >= n) continue;
    f.io[static_cast<std::size_t>(t)] = f.is_input[static_cast<std::size_t>(t)] = true;
    ++f.refcount[static_cast<std::size_t>(t)];
  }
  for (const std::int32_t t : sg.outputs) {
    if (t < 0 || static_cast<std::size_t>(t) >= n) continue;
    f.io[static_cast<std::size_t>(t)] = f.is_output[static_cast<std::size_t>(t)] = true;
    ++f.refcount[static_cast<std::size_t>(t)];
  }
  if (!plan_io)
    for (std::size_t t = 0; t < n; ++t)
      if (f.io[t]) f.planned[t] = false;
  for (std::size_t i = 0; i < sg.ops.size(); ++i) {
    const Operator& op = sg.ops[i];
    for (const std::int32_t t : op.inputs) {
      check(t, i, "input");
      if (t < 0) continue;
      ++f.refcount[static_cast<std::size_t>(t)];
    }
    for (const std::int32_t t : op.outputs) {
      check(t, i, "output");
      if (t < 0 || f.is_input[static_cast<std::size_t>(t)]) continue;
      std::int32_t& p = f.producer[static_cast<std::size_t>(t)];
      if (p >= 0 && p != static_cast<std::int32_t>(i))
        throw InputError(
            fmt::format("{}: subgraph {}: tensor '{}' (#{}) is written by op {} and op {}",
                        graph.source, s, sg.tensors[static_cast<std::size_t>(t)].name, t, p, i));
      p = static_cast<std::int32_t>(i);
    }
  }
  // Every op must come after the producers of what it reads.
  for (std::size_t i = 0; i < sg.ops.size(); ++i)
    for (const std::int32_t t : sg.ops[i].inputs) {
      if (t < 0) continue;
      const std::int32_t p = f.producer[static_cast<std::size_t>(t)];
      if (p >= static_cast<std::int32_t>(i))
        throw InputError(fmt::format(
            "{}: subgraph {}, op {} ({}) reads tensor '{}' (#{}) that op {} writes later; the ops "
            "are not in execution order",
            graph.source, s, i, sg.ops[i].type, sg.tensors[static_cast<std::size_t>(t)].name, t,
            p));
    }
  return f;
}

bool SameRawBytes(const Subgraph& sg, std::int32_t a, std::int32_t b) {
  return *sg.tensors[static_cast<std::size_t>(a)].bytes ==
         *sg.tensors[static_cast<std::size_t>(b)].bytes;
}

}  // namespace

TensorGraph BuildTensorGraph(const Graph& graph, std::size_t s, const InPlaceRuleSet* rules,
                             Bytes size_alignment, std::span<const Bytes> extra,
                             bool plan_entry_io) {
  const Subgraph& sg = graph.subgraphs.at(s);
  const TensorFacts f = CollectFacts(graph, s, plan_entry_io || s != 0);
  const std::size_t n_tensors = sg.tensors.size();
  const std::size_t n_ops = sg.ops.size();
  TensorGraph g;
  g.ops.resize(n_ops);
  const auto T = [](std::int32_t t) { return static_cast<std::size_t>(t); };

  // A tensor that may take part in sharing: planned, neither input nor output, produced
  // by an op of this subgraph.
  auto shareable = [&](std::int32_t t) {
    return t >= 0 && f.planned[T(t)] && !f.io[T(t)] && f.producer[T(t)] >= 0;
  };

  // Aliases (order-independent) tie tensors into buffers; TFLite's roots follow every
  // share it would make, for its reference-count rule.
  UnionFind alias(n_tensors);
  std::vector<std::int32_t> tflite_root(n_tensors);
  std::iota(tflite_root.begin(), tflite_root.end(), 0);
  std::vector<const InPlaceRule*> rule_of(n_ops, nullptr);
  for (std::size_t i = 0; i < n_ops; ++i) {
    const Operator& op = sg.ops[i];
    if (!rules || op.outputs.empty()) continue;
    const InPlaceRule* rule = rules->Find(op.type);
    const std::int32_t out = op.outputs[0];
    if (!rule || !shareable(out)) continue;
    rule_of[i] = rule;
    if (rule->kind != ShareKind::kAlias) continue;
    for (std::size_t k = 0; k < op.inputs.size() && k < 32; ++k) {
      const std::int32_t in = op.inputs[k];
      if (!(rule->inputs >> k & 1u) || !shareable(in) || !SameRawBytes(sg, in, out)) continue;
      if (alias.Find(in) == alias.Find(out)) break;
      alias.parent[T(alias.Find(out))] = alias.Find(in);
      g.ops[i].alias_input = in;
      tflite_root[T(out)] = tflite_root[T(in)];
      break;
    }
  }

  // Buffers, one per alias group, rooted at the group's first tensor.
  g.buffer_of.assign(n_tensors, -1);
  for (std::size_t t = 0; t < n_tensors; ++t) {
    if (!f.planned[t]) continue;
    const std::int32_t root = alias.Find(static_cast<std::int32_t>(t));
    if (g.buffer_of[T(root)] < 0) {
      g.buffer_of[T(root)] = static_cast<std::int32_t>(g.buffers.size());
      Buffer b;
      b.root_tensor = root;
      b.producer = f.is_input[T(root)] ? -1 : f.producer[T(root)];
      g.buffers.push_back(b);
    }
    const std::int32_t b = g.buffer_of[T(root)];
    g.buffer_of[t] = b;
    Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
    buffer.size = std::max(buffer.size, AlignUp(*sg.tensors[t].bytes, size_alignment));
    buffer.pinned = buffer.pinned || f.is_output[t];
  }

  // Readers and creators.
  for (std::size_t i = 0; i < n_ops; ++i) {
    const Operator& op = sg.ops[i];
    OpNode& node = g.ops[i];
    const auto self = static_cast<std::int32_t>(i);
    for (const std::int32_t t : op.inputs) {
      if (t < 0 || g.buffer_of[T(t)] < 0) continue;
      const std::int32_t b = g.buffer_of[T(t)];
      AddUnique(node.reads, b);
      AddUnique(g.buffers[static_cast<std::size_t>(b)].readers, self);
    }
    for (const std::int32_t t : op.outputs) {
      if (t < 0 || g.buffer_of[T(t)] < 0) continue;
      const std::int32_t b = g.buffer_of[T(t)];
      const Buffer& buffer = g.buffers[static_cast<std::size_t>(b)];
      if (buffer.producer == self && buffer.root_tensor == t) AddUnique(node.creates, b);
    }
  }

  // Overwrite candidates: every condition that does not depend on the order.
  for (std::size_t i = 0; i < n_ops; ++i) {
    const InPlaceRule* rule = rule_of[i];
    if (!rule || rule->kind != ShareKind::kOverwrite) continue;
    const Operator& op = sg.ops[i];
    const std::int32_t out = op.outputs[0];
    if (*sg.tensors[T(out)].bytes <= 4 || g.buffers[T(g.buffer_of[T(out)])].root_tensor != out)
      continue;
    OpNode& node = g.ops[i];
    for (std::size_t k = 0; k < op.inputs.size() && k < 32; ++k) {
      const std::int32_t in = op.inputs[k];
      if (!(rule->inputs >> k & 1u) || !shareable(in) || !SameRawBytes(sg, in, out)) continue;
      const std::int32_t b = g.buffer_of[T(in)];
      if (b == g.buffer_of[T(out)] || g.buffers[T(b)].pinned) continue;
      if (rules->single_consumer &&
          (f.refcount[T(in)] > 1 || f.refcount[T(tflite_root[T(in)])] > 1))
        continue;
      if (std::any_of(node.candidates.begin(), node.candidates.end(),
                      [&](const OverwriteCandidate& c) { return c.buffer == b; }))
        continue;
      if (node.candidates.empty()) tflite_root[T(out)] = tflite_root[T(in)];
      node.candidates.push_back({b, in});
    }
    if (!node.candidates.empty()) node.share_output = g.buffer_of[T(out)];
  }

  // Dependencies: data, then a chain through the ops with hidden state.
  std::int32_t last_stateful = -1;
  for (std::size_t i = 0; i < n_ops; ++i) {
    const Operator& op = sg.ops[i];
    OpNode& node = g.ops[i];
    for (const std::int32_t t : op.inputs)
      if (t >= 0 && f.producer[T(t)] >= 0 && !f.is_input[T(t)])
        AddUnique(node.preds, f.producer[T(t)]);
    if (HasHiddenState(sg, op)) {
      if (last_stateful >= 0) AddUnique(node.preds, last_stateful);
      last_stateful = static_cast<std::int32_t>(i);
    }
    for (const std::int32_t p : node.preds)
      g.ops[T(p)].succs.push_back(static_cast<std::int32_t>(i));
    if (!extra.empty()) node.extra = extra[i];
  }

  // Weight-only ops: no predecessor, read nothing planned, every successor reads what
  // they create.
  for (std::size_t i = 0; i < n_ops; ++i) {
    OpNode& node = g.ops[i];
    if (!node.preds.empty() || !node.reads.empty() || node.creates.empty() || node.extra != 0 ||
        HasHiddenState(sg, sg.ops[i]) || node.succs.empty())
      continue;
    bool ok = true;
    std::vector<std::int32_t> readers;
    for (const std::int32_t b : node.creates) {
      const Buffer& buffer = g.buffers[T(b)];
      ok = ok && !buffer.pinned && !buffer.readers.empty();
      for (const std::int32_t r : buffer.readers) AddUnique(readers, r);
    }
    for (const std::int32_t s2 : node.succs)
      ok = ok && std::find(readers.begin(), readers.end(), s2) != readers.end();
    node.deferred = ok;
  }

  for (std::size_t b = 0; b < g.buffers.size(); ++b) {
    const Buffer& buffer = g.buffers[b];
    if (buffer.producer >= 0) continue;
    if (f.is_input[T(buffer.root_tensor)] || !buffer.readers.empty() || buffer.pinned)
      g.initial.push_back(static_cast<std::int32_t>(b));
  }
  for (std::size_t i = 0; i < n_ops; ++i)
    if (!g.ops[i].deferred) g.non_deferred.push_back(static_cast<std::int32_t>(i));
  return g;
}

}  // namespace memplan::schedule
