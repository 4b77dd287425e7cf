#pragma once
// Where placed records sit in address space, queried by a range of steps: a segment tree
// over the (renumbered) steps whose nodes hold sorted, disjoint address blocks. A greedy
// placement reads the blocks of the records it conflicts with already in address order,
// merged into unions, so it needs neither a sort nor a look at every conflicting record
// (docs/scale.md explains why the offsets stay those of the peers' walk).
#include <cstdint>
#include <span>
#include <vector>

#include "memplan/problem.h"

namespace memplan::offsets {

class OccupancyTree {
 public:
  // Address bytes [begin, end). Blocks in one list are sorted and neither overlap nor
  // touch; a block may be empty (a point that splits a gap).
  struct Block {
    Bytes begin;
    Bytes end;
  };

  // Steps 0..steps-1.
  explicit OccupancyTree(std::int32_t steps);

  // Forgets every block.
  void Clear();

  // A record live over steps [first, last] occupies [begin, end).
  void Add(std::int32_t first, std::int32_t last, Bytes begin, Bytes end);

  // Calls visit(blocks) for a few sorted lists whose union is exactly the union of the
  // blocks of the records live at some step of [first, last] (lists may overlap).
  template <class Visit>
  void ForEachList(std::int32_t first, std::int32_t last, Visit&& visit) const {
    Query(1, 0, leaves_ - 1, first, last, visit);
  }

 private:
  template <class Visit>
  void Query(std::size_t node, std::int32_t lo, std::int32_t hi, std::int32_t first,
             std::int32_t last, Visit& visit) const {
    if (last < lo || hi < first || subtree_[node].empty()) return;
    if (first <= lo && hi <= last) {
      visit(std::span<const Block>(subtree_[node]));  // all of it meets [first, last]
      return;
    }
    // Records covering this node's steps meet [first, last]; the children hold the rest.
    if (!own_[node].empty()) visit(std::span<const Block>(own_[node]));
    const std::int32_t mid = lo + (hi - lo) / 2;
    Query(2 * node, lo, mid, first, last, visit);
    Query(2 * node + 1, mid + 1, hi, first, last, visit);
  }
  void Insert(std::size_t node, std::int32_t lo, std::int32_t hi, std::int32_t first,
              std::int32_t last, Block block);
  // Adds `block` to a sorted list, merging it with every block it overlaps or touches.
  static void Merge(std::vector<Block>& list, Block block);

  std::int32_t leaves_ = 1;  // a power of two >= steps
  // Per node: the blocks of records whose step range covers the node's steps but not its
  // parent's (own_), and of every record stored at the node or below it (subtree_).
  std::vector<std::vector<Block>> own_;
  std::vector<std::vector<Block>> subtree_;
  std::vector<std::uint32_t> used_;  // nodes with blocks, for Clear
};

}  // namespace memplan::offsets
