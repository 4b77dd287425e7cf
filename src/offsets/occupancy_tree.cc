#include "src/offsets/occupancy_tree.h"

#include <algorithm>

namespace memplan::offsets {

OccupancyTree::OccupancyTree(std::int32_t steps) {
  while (leaves_ < steps) leaves_ *= 2;
  own_.resize(2 * static_cast<std::size_t>(leaves_));
  subtree_.resize(2 * static_cast<std::size_t>(leaves_));
}

void OccupancyTree::Clear() {
  for (std::uint32_t node : used_) {
    own_[node].clear();
    subtree_[node].clear();
  }
  used_.clear();
}

void OccupancyTree::Add(std::int32_t first, std::int32_t last, Bytes begin, Bytes end) {
  Insert(1, 0, leaves_ - 1, first, last, {begin, end});
}

void OccupancyTree::Insert(std::size_t node, std::int32_t lo, std::int32_t hi, std::int32_t first,
                           std::int32_t last, Block block) {
  if (last < lo || hi < first) return;
  if (subtree_[node].empty()) used_.push_back(static_cast<std::uint32_t>(node));
  Merge(subtree_[node], block);
  if (first <= lo && hi <= last) {
    Merge(own_[node], block);
    return;
  }
  const std::int32_t mid = lo + (hi - lo) / 2;
  Insert(2 * node, lo, mid, first, last, block);
  Insert(2 * node + 1, mid + 1, hi, first, last, block);
}

void OccupancyTree::Merge(std::vector<Block>& list, Block block) {
  // The first block ending at or after block.begin: everything before it ends earlier
  // (with a gap), so it is the first one `block` can overlap or touch.
  auto from = std::lower_bound(list.begin(), list.end(), block.begin,
                               [](const Block& b, Bytes begin) { return b.end < begin; });
  auto to = from;
  while (to != list.end() && to->begin <= block.end) {
    block.begin = std::min(block.begin, to->begin);
    block.end = std::max(block.end, to->end);
    ++to;
  }
  if (from == to) {
    list.insert(from, block);
  } else {
    *from = block;
    list.erase(from + 1, to);
  }
}

}  // namespace memplan::offsets
