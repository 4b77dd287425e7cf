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

std::size_t T(std::int32_t t) {
  return static_cast<std::size_t>(t);
}

// Builds one subgraph's TensorGraph in steps, each a member below, in the order Build runs
// them (each step reads what the ones before it filled in).
class TensorGraphBuilder {
 public:
  TensorGraphBuilder(const Graph& graph, std::size_t s, const InPlaceRuleSet* rules, bool plan_io)
      : sg_(graph.subgraphs.at(s)),
        f_(CollectFacts(graph, s, plan_io)),
        rules_(rules),
        alias_(sg_.tensors.size()),
        tflite_root_(sg_.tensors.size()),
        rule_of_(sg_.ops.size(), nullptr) {
    std::iota(tflite_root_.begin(), tflite_root_.end(), 0);
    g_.ops.resize(sg_.ops.size());
  }

  TensorGraph Build(Bytes size_alignment, std::span<const Bytes> extra) {
    TieAliases();
    MakeBuffers(size_alignment);
    LinkReadersAndCreators();
    FindOverwriteCandidates();
    AddDependencies(extra);
    MarkDeferred();
    ListInitialAndNonDeferred();
    return std::move(g_);
  }

 private:
  // A tensor that may take part in sharing: planned, neither input nor output, produced
  // by an op of this subgraph.
  bool Shareable(std::int32_t t) const {
    return t >= 0 && f_.planned[T(t)] && !f_.io[T(t)] && f_.producer[T(t)] >= 0;
  }

  // Aliases (order-independent) tie tensors into buffers; TFLite's roots follow every
  // share it would make, for its reference-count rule.
  void TieAliases() {
    for (std::size_t i = 0; i < sg_.ops.size(); ++i) {
      const Operator& op = sg_.ops[i];
      if (!rules_ || op.outputs.empty()) continue;
      const InPlaceRule* rule = rules_->Find(op.type);
      const std::int32_t out = op.outputs[0];
      if (!rule || !Shareable(out)) continue;
      rule_of_[i] = rule;
      if (rule->kind != ShareKind::kAlias) continue;
      for (std::size_t k = 0; k < op.inputs.size() && k < 32; ++k) {
        const std::int32_t in = op.inputs[k];
        if (!(rule->inputs >> k & 1u) || !Shareable(in) || !SameRawBytes(sg_, in, out)) continue;
        if (alias_.Find(in) == alias_.Find(out)) break;
        alias_.parent[T(alias_.Find(out))] = alias_.Find(in);
        g_.ops[i].alias_input = in;
        tflite_root_[T(out)] = tflite_root_[T(in)];
        break;
      }
    }
  }

  // Buffers, one per alias group, rooted at the group's first tensor.
  void MakeBuffers(Bytes size_alignment) {
    g_.buffer_of.assign(sg_.tensors.size(), -1);
    for (std::size_t t = 0; t < sg_.tensors.size(); ++t) {
      if (!f_.planned[t]) continue;
      const std::int32_t root = alias_.Find(static_cast<std::int32_t>(t));
      if (g_.buffer_of[T(root)] < 0) {
        g_.buffer_of[T(root)] = static_cast<std::int32_t>(g_.buffers.size());
        Buffer b;
        b.root_tensor = root;
        b.producer = f_.is_input[T(root)] ? -1 : f_.producer[T(root)];
        g_.buffers.push_back(b);
      }
      const std::int32_t b = g_.buffer_of[T(root)];
      g_.buffer_of[t] = b;
      Buffer& buffer = g_.buffers[static_cast<std::size_t>(b)];
      buffer.size = std::max(buffer.size, AlignUp(*sg_.tensors[t].bytes, size_alignment));
      buffer.pinned = buffer.pinned || f_.is_output[t];
    }
  }

  void LinkReadersAndCreators() {
    for (std::size_t i = 0; i < sg_.ops.size(); ++i) {
      const Operator& op = sg_.ops[i];
      OpNode& node = g_.ops[i];
      const auto self = static_cast<std::int32_t>(i);
      for (const std::int32_t t : op.inputs) {
        if (t < 0 || g_.buffer_of[T(t)] < 0) continue;
        const std::int32_t b = g_.buffer_of[T(t)];
        AddUnique(node.reads, b);
        AddUnique(g_.buffers[static_cast<std::size_t>(b)].readers, self);
      }
      for (const std::int32_t t : op.outputs) {
        if (t < 0 || g_.buffer_of[T(t)] < 0) continue;
        const std::int32_t b = g_.buffer_of[T(t)];
        const Buffer& buffer = g_.buffers[static_cast<std::size_t>(b)];
        if (buffer.producer == self && buffer.root_tensor == t) AddUnique(node.creates, b);
      }
    }
  }

  // Overwrite candidates: every condition that does not depend on the order.
  void FindOverwriteCandidates() {
    for (std::size_t i = 0; i < sg_.ops.size(); ++i) {
      const InPlaceRule* rule = rule_of_[i];
      if (!rule || rule->kind != ShareKind::kOverwrite) continue;
      const Operator& op = sg_.ops[i];
      const std::int32_t out = op.outputs[0];
      if (*sg_.tensors[T(out)].bytes <= 4 || g_.buffers[T(g_.buffer_of[T(out)])].root_tensor != out)
        continue;
      OpNode& node = g_.ops[i];
      for (std::size_t k = 0; k < op.inputs.size() && k < 32; ++k) {
        const std::int32_t in = op.inputs[k];
        if (!(rule->inputs >> k & 1u) || !Shareable(in) || !SameRawBytes(sg_, in, out)) continue;
        const std::int32_t b = g_.buffer_of[T(in)];
        if (b == g_.buffer_of[T(out)] || g_.buffers[T(b)].pinned) continue;
        if (rules_->single_consumer &&
            (f_.refcount[T(in)] > 1 || f_.refcount[T(tflite_root_[T(in)])] > 1))
          continue;
        if (std::any_of(node.candidates.begin(), node.candidates.end(),
                        [&](const OverwriteCandidate& c) { return c.buffer == b; }))
          continue;
        if (node.candidates.empty()) tflite_root_[T(out)] = tflite_root_[T(in)];
        node.candidates.push_back({b, in});
      }
      if (!node.candidates.empty()) node.share_output = g_.buffer_of[T(out)];
    }
  }

  // Dependencies: data, then a chain through the ops with hidden state.
  void AddDependencies(std::span<const Bytes> extra) {
    std::int32_t last_stateful = -1;
    for (std::size_t i = 0; i < sg_.ops.size(); ++i) {
      const Operator& op = sg_.ops[i];
      OpNode& node = g_.ops[i];
      for (const std::int32_t t : op.inputs)
        if (t >= 0 && f_.producer[T(t)] >= 0 && !f_.is_input[T(t)])
          AddUnique(node.preds, f_.producer[T(t)]);
      if (HasHiddenState(sg_, op)) {
        if (last_stateful >= 0) AddUnique(node.preds, last_stateful);
        last_stateful = static_cast<std::int32_t>(i);
      }
      for (const std::int32_t p : node.preds)
        g_.ops[T(p)].succs.push_back(static_cast<std::int32_t>(i));
      if (!extra.empty()) node.extra = extra[i];
    }
  }

  // Weight-only ops: no predecessor, read nothing planned, every successor reads what
  // they create.
  void MarkDeferred() {
    for (std::size_t i = 0; i < sg_.ops.size(); ++i) {
      OpNode& node = g_.ops[i];
      if (!node.preds.empty() || !node.reads.empty() || node.creates.empty() || node.extra != 0 ||
          HasHiddenState(sg_, sg_.ops[i]) || node.succs.empty())
        continue;
      bool ok = true;
      std::vector<std::int32_t> readers;
      for (const std::int32_t b : node.creates) {
        const Buffer& buffer = g_.buffers[T(b)];
        ok = ok && !buffer.pinned && !buffer.readers.empty();
        for (const std::int32_t r : buffer.readers) AddUnique(readers, r);
      }
      for (const std::int32_t s2 : node.succs)
        ok = ok && std::find(readers.begin(), readers.end(), s2) != readers.end();
      node.deferred = ok;
    }
  }

  void ListInitialAndNonDeferred() {
    for (std::size_t b = 0; b < g_.buffers.size(); ++b) {
      const Buffer& buffer = g_.buffers[b];
      if (buffer.producer >= 0) continue;
      if (f_.is_input[T(buffer.root_tensor)] || !buffer.readers.empty() || buffer.pinned)
        g_.initial.push_back(static_cast<std::int32_t>(b));
    }
    for (std::size_t i = 0; i < sg_.ops.size(); ++i)
      if (!g_.ops[i].deferred) g_.non_deferred.push_back(static_cast<std::int32_t>(i));
  }

  const Subgraph& sg_;
  const TensorFacts f_;
  const InPlaceRuleSet* rules_;
  UnionFind alias_;
  std::vector<std::int32_t> tflite_root_;
  std::vector<const InPlaceRule*> rule_of_;
  TensorGraph g_;
};

}  // namespace

TensorGraph BuildTensorGraph(const Graph& graph, std::size_t s, const InPlaceRuleSet* rules,
                             Bytes size_alignment, std::span<const Bytes> extra,
                             bool plan_entry_io) {
  return TensorGraphBuilder(graph, s, rules, plan_entry_io || s != 0).Build(size_alignment, extra);
}

}  // namespace memplan::schedule
