#pragma once
// The lower bound of a small range's placements (small_whole.cc), asked only as far as a
// decision needs (docs/cpu-planner.md, "A small range after a reset").
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/small_placement.h"

namespace memplan::cpuplan {

// The lower bound of a small range's placements, asked only as far as a decision needs:
// first the bytes alive at the node where the layout before met its bound (one pass, a lower
// bound; without such a node, at the first and last node of the tensor that tops the first
// plan made, alive there with everything placed below it), then at every node where a tensor
// arrives. The most bytes alive are at one of those, as a departure takes its aligned size off
// and at most its padding back: that is the bound itself (SweepLowerBound's, reached
// first at the same node).
class SmallBound {
 public:
  SmallBound(const std::vector<Placement>& placement, const SmallList& slots, Bytes alignment,
             Step hint)
      : placement_(placement), slots_(slots), alignment_(alignment), hint_(hint) {}

  // Whether an arena of `arena` bytes is at the bound.
  bool Reaches(Bytes arena) {
    if (exact_ == kUnknownBound && hint_ >= 0 && arena <= AtHint()) {
      exact_ = AtHint();
      peak_ = hint_;
    }
    if (exact_ != kUnknownBound) return arena <= exact_;
    return Scan([&](Bytes alive) { return alive >= arena; }, true);
  }
  // Whether it is within `slack` times the bound (a lower bound suffices where it says so).
  bool Within(Bytes arena, double slack) {
    const auto within = [&](Bytes bound) {
      return static_cast<double>(arena) <= static_cast<double>(bound) * slack;
    };
    if (exact_ != kUnknownBound) return within(exact_);
    return (hint_ >= 0 && within(AtHint())) || Scan(within, false);
  }
  // Without a node from the layout before, the first and the last node of the tensor a plan
  // tops out with: a plan at the bound is usually at its bound at one of them.
  void GuessIfNone(Step first, Step last) {
    if (hint_ >= 0) return;
    hint_ = first;
    other_hint_ = last;
  }
  Bytes exact() const { return exact_; }  // kUnknownBound when never needed
  Step peak() const { return peak_; }

 private:
  Bytes AliveAt(Step node) const { return AliveAmong(placement_, slots_.span(), alignment_, node); }
  // The bytes alive at the hint (or at the other one, where more: the hint becomes it).
  Bytes AtHint() {
    if (at_hint_ != kUnknownBound) return at_hint_;
    at_hint_ = AliveAt(hint_);
    if (other_hint_ >= 0 && other_hint_ != hint_) {
      if (const Bytes other = AliveAt(other_hint_); other > at_hint_) {
        at_hint_ = other;
        hint_ = other_hint_;
      }
    }
    return at_hint_;
  }
  // Asks every node where a tensor arrives until the bytes alive at one are `enough` (true);
  // where none are, the most alive at any of them is the bound (kept, with the first node to
  // reach it). `at_arena`: enough means as many as a plan's arena, which is then the bound.
  //
  // Where the slots come in node order (a range's tensors usually do: gathered node by node,
  // each at the node that first touches it) over a few nodes, the padded bytes alive at every
  // node come from one difference array over them. The exact bytes (less the largest padding
  // there) are at most those and at least those less the largest padding of all, so they are
  // counted only at a node whose padded bytes could be enough (`enough` holds for every value
  // above one it holds for), or could be the most: more than the most counted so far, and not
  // below the most padded bytes of any node less that padding - a node or two, where the pass
  // per node counted every one (the first plan of LFM2's decoder: 31 nodes, a third of its
  // instructions). Nodes where no tensor arrives are walked too: each has no more bytes than
  // the node before it (departures only take away), which comes first. The same answers,
  // reached at the same node.
  template <typename Enough>
  bool Scan(Enough enough, bool at_arena) {
    constexpr Step kSpan = 128;  // nodes; wider ranges take the pass per node
    if (slots_.size == 0) return ScanEach(enough, at_arena);
    const Step lo = placement_[slots_.at[0]].first;
    const Step hi = placement_[slots_.at[slots_.size - 1]].first;  // the last arrival
    if (hi < lo || hi - lo >= kSpan) return ScanEach(enough, at_arena);
    const auto span = static_cast<std::size_t>(hi - lo + 1);
    std::array<Bytes, kSpan> padded;  // per node from lo: first the changes, then the sums
    std::fill_n(padded.begin(), span, Bytes{0});
    Bytes largest_pad = 0;
    Step previous = lo;
    for (const std::uint32_t s : slots_) {
      const Placement& p = placement_[s];
      if (p.first < previous || p.first > hi) return ScanEach(enough, at_arena);  // not in order
      previous = p.first;
      const Bytes aligned = AlignUpFast(p.size, alignment_);
      largest_pad = std::max(largest_pad, aligned - p.size);
      padded[static_cast<std::size_t>(p.first - lo)] += aligned;
      if (p.last < hi) padded[static_cast<std::size_t>(p.last + 1 - lo)] -= aligned;
    }
    Bytes most_padded = padded[0];
    for (std::size_t k = 1; k < span; ++k) {
      padded[k] += padded[k - 1];  // wraps below zero in between, never once summed
      most_padded = std::max(most_padded, padded[k]);
    }
    // No node's exact bytes are below this at the node with the most padded bytes.
    const Bytes floor = most_padded > largest_pad ? most_padded - largest_pad : 0;
    Most most;
    for (std::size_t k = 0; k < span; ++k) {
      if (!enough(padded[k]) && (padded[k] < floor || padded[k] <= most.bytes)) continue;
      const Step node = lo + static_cast<Step>(k);
      if (Counted(AliveAt(node), node, enough, at_arena, most)) return true;
    }
    return NoneEnough(most);
  }
  // The same answers for slots in any order: the bytes alive at each one's first node.
  template <typename Enough>
  bool ScanEach(Enough enough, bool at_arena) {
    Most most;
    for (const std::uint32_t s : slots_) {
      const Step node = placement_[s].first;
      if (Counted(AliveAt(node), node, enough, at_arena, most)) return true;
    }
    return NoneEnough(most);
  }
  // The most bytes alive at a node a scan counted, and the first node with them.
  struct Most {
    Bytes bytes = 0;
    Step node = -1;
  };
  // One node's count in a scan: true where it is enough (the bound, at `node`, when
  // `at_arena`: enough means as many as a plan's arena), else kept if the most.
  template <typename Enough>
  bool Counted(Bytes alive, Step node, Enough& enough, bool at_arena, Most& most) {
    if (enough(alive)) {
      if (at_arena) {
        exact_ = alive;
        peak_ = node;
      }
      return true;
    }
    if (alive > most.bytes || (alive == most.bytes && node < most.node)) most = {alive, node};
    return false;
  }
  // A scan where no node was enough: the most alive at any is the bound.
  bool NoneEnough(const Most& most) {
    exact_ = most.bytes;
    peak_ = most.node;
    return false;
  }

  const std::vector<Placement>& placement_;
  const SmallList& slots_;
  Bytes alignment_;
  Step hint_;
  Step other_hint_ = -1;
  Bytes at_hint_ = kUnknownBound;
  Bytes exact_ = kUnknownBound;
  Step peak_ = -1;
};

}  // namespace memplan::cpuplan
