#include "src/objects/open_record_tree.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <type_traits>

namespace memplan::objects {

namespace {

constexpr std::int64_t kClosed = std::numeric_limits<std::int64_t>::min();  // never reported
constexpr std::int64_t kAlways = std::numeric_limits<std::int64_t>::max();  // no object yet
constexpr std::uint32_t kLeafSize = 16;

// The weights of a record at `distance` (steps are below 2^62, so neither overflows).
std::int64_t BeforeWeight(Step last, std::uint64_t distance) {
  return distance == OpenRecordTree::kNoObject ? kAlways
                                               : last + static_cast<std::int64_t>(distance);
}
std::int64_t AfterWeight(Step first, std::uint64_t distance) {
  return distance == OpenRecordTree::kNoObject ? kAlways
                                               : static_cast<std::int64_t>(distance) - first;
}

}  // namespace

OpenRecordTree::OpenRecordTree(const std::vector<UsageRecord>& records)
    : record_(records.size()),
      first_(records.size()),
      last_(records.size()),
      before_(records.size(), kAlways),
      after_(records.size(), kAlways),
      position_(records.size()),
      leaf_(records.size()) {
  std::iota(record_.begin(), record_.end(), std::size_t{0});
  for (std::size_t r = 0; r < records.size(); ++r) {
    first_[r] = records[r].first;
    last_[r] = records[r].last;
  }
  nodes_.reserve(4 * records.size() / kLeafSize + 4);
  Build(0, static_cast<std::uint32_t>(records.size()), 0, true);
  for (std::size_t p = 0; p < record_.size(); ++p) position_[record_[p]] = p;
}

// Splits positions [begin, end) at the median of first step or last step, alternately
// by level, permuting the fields along with the records.
std::uint32_t OpenRecordTree::Build(std::uint32_t begin, std::uint32_t end, std::uint32_t parent,
                                    bool by_first) {
  const auto id = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({});
  std::uint32_t left = 0, right = 0;
  if (end - begin > kLeafSize) {
    const std::uint32_t mid = begin + (end - begin) / 2;
    std::vector<std::uint32_t> order(end - begin);
    std::iota(order.begin(), order.end(), begin);
    const std::vector<Step>& key = by_first ? first_ : last_;
    std::nth_element(order.begin(), order.begin() + (mid - begin), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
    auto permute = [&](auto& field) {
      std::vector<std::decay_t<decltype(field[0])>> moved;
      moved.reserve(order.size());
      for (std::uint32_t p : order) moved.push_back(field[p]);
      std::copy(moved.begin(), moved.end(), field.begin() + begin);
    };
    permute(record_);
    permute(first_);
    permute(last_);
    left = Build(begin, mid, id, !by_first);
    right = Build(mid, end, id, !by_first);
  }
  Node& node = nodes_[id];
  node.begin = begin;
  node.end = end;
  node.left = left;
  node.right = right;
  node.parent = parent;
  node.max_before = node.max_after = kAlways;
  node.min_first = node.min_last = std::numeric_limits<Step>::max();
  node.max_first = node.max_last = std::numeric_limits<Step>::min();
  for (std::uint32_t p = begin; p < end; ++p) {
    node.min_first = std::min(node.min_first, first_[p]);
    node.max_first = std::max(node.max_first, first_[p]);
    node.min_last = std::min(node.min_last, last_[p]);
    node.max_last = std::max(node.max_last, last_[p]);
    if (left == 0) leaf_[p] = id;
  }
  return id;
}

void OpenRecordTree::SetDistance(std::size_t r, std::uint64_t distance) {
  const std::size_t p = position_[r];
  const std::int64_t before = BeforeWeight(last_[p], distance);
  const std::int64_t after = AfterWeight(first_[p], distance);
  // Both weights move with the distance: a shorter one leaves the bounds above valid.
  const bool grew = before > before_[p];
  before_[p] = before;
  after_[p] = after;
  if (grew) Raise(p);
}

void OpenRecordTree::Close(std::size_t r) {
  const std::size_t p = position_[r];
  before_[p] = after_[p] = kClosed;  // the bounds above stay upper bounds
}

// A weight that grew lifts the bounds of the nodes above it that are now too low (a
// weight that shrank leaves them as upper bounds, for the queries to tighten).
void OpenRecordTree::Raise(std::size_t position) {
  std::uint32_t id = leaf_[position];
  while (true) {
    Node& node = nodes_[id];
    if (node.max_before >= before_[position] && node.max_after >= after_[position]) return;
    node.max_before = std::max(node.max_before, before_[position]);
    node.max_after = std::max(node.max_after, after_[position]);
    if (id == 0) return;
    id = node.parent;
  }
}

void OpenRecordTree::NearerBefore(Step gap_start, Step first, std::vector<std::size_t>& out) {
  if (nodes_.empty()) return;
  Collect(
      0,
      [&](const Node& n) {
        return n.max_before <= first || n.max_first <= gap_start || n.min_last >= first;
      },
      [&](std::uint32_t p) {
        return before_[p] > first && first_[p] > gap_start && last_[p] < first;
      },
      out);
}

void OpenRecordTree::NearerAfter(Step last, Step gap_end, std::vector<std::size_t>& out) {
  if (nodes_.empty()) return;
  Collect(
      0,
      [&](const Node& n) {
        return n.max_after <= -last || n.max_first <= last || n.min_last >= gap_end;
      },
      [&](std::uint32_t p) { return after_[p] > -last && first_[p] > last && last_[p] < gap_end; },
      out);
}

// Reports the records below `id` that `match` accepts, skipping subtrees `prune` rules
// out, and tightens the bounds of every node it passes to the true maxima below it.
template <class Prune, class Match>
void OpenRecordTree::Collect(std::uint32_t id, const Prune& prune, const Match& match,
                             std::vector<std::size_t>& out) {
  Node& node = nodes_[id];
  if (prune(node)) return;
  std::int64_t before = kClosed, after = kClosed;
  if (node.left == 0) {
    for (std::uint32_t p = node.begin; p < node.end; ++p) {
      if (match(p)) out.push_back(record_[p]);
      before = std::max(before, before_[p]);
      after = std::max(after, after_[p]);
    }
  } else {
    Collect(node.left, prune, match, out);
    Collect(node.right, prune, match, out);
    before = std::max(nodes_[node.left].max_before, nodes_[node.right].max_before);
    after = std::max(nodes_[node.left].max_after, nodes_[node.right].max_after);
  }
  node.max_before = before;
  node.max_after = after;
}

}  // namespace memplan::objects
