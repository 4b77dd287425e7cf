#include "src/objects/free_gap_index.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace memplan::objects {

namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::min();  // matches no query
constexpr std::int64_t kOpen = std::numeric_limits<std::int64_t>::max();   // unbounded gap
// Up to this many records sharing the nearest end (or start) step are read directly.
constexpr std::size_t kReadTies = 32;

std::vector<std::size_t> SortedBy(const std::vector<UsageRecord>& records, Step UsageRecord::*key) {
  std::vector<std::size_t> order(records.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return records[a].*key < records[b].*key; });
  return order;
}

std::vector<std::size_t> Ranks(const std::vector<std::size_t>& order) {
  std::vector<std::size_t> rank(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  return rank;
}

}  // namespace

MaxTree::MaxTree(std::size_t leaves) {
  while (base_ < leaves) base_ *= 2;
  max_.assign(2 * base_, kNever);
}

void MaxTree::Set(std::size_t leaf, std::int64_t value) {
  std::size_t node = base_ + leaf;
  max_[node] = value;
  for (node /= 2; node >= 1; node /= 2) max_[node] = std::max(max_[2 * node], max_[2 * node + 1]);
}

std::optional<std::size_t> MaxTree::RightmostBefore(std::size_t end, std::int64_t x) const {
  // Walk the leaves' ancestors from leaf end-1 upwards, looking at whole subtrees that
  // lie left of `end` from the right; descend into the first one holding a match.
  if (end == 0) return std::nullopt;
  std::size_t node = base_ + end - 1;
  if (max_[node] > x) return end - 1;
  while (node > 1) {
    if (node % 2 == 1 && max_[node - 1] > x) {
      node -= 1;
      while (node < base_) node = max_[2 * node + 1] > x ? 2 * node + 1 : 2 * node;
      return node - base_;
    }
    node /= 2;
  }
  return std::nullopt;
}

std::optional<std::size_t> MaxTree::LeftmostFrom(std::size_t begin, std::int64_t x) const {
  if (begin >= base_) return std::nullopt;
  std::size_t node = base_ + begin;
  if (max_[node] > x) return begin;
  while (node > 1) {
    if (node % 2 == 0 && max_[node + 1] > x) {
      node += 1;
      while (node < base_) node = max_[2 * node] > x ? 2 * node : 2 * node + 1;
      return node - base_;
    }
    node /= 2;
  }
  return std::nullopt;
}

FreeGapIndex::FreeGapIndex(const std::vector<UsageRecord>& records)
    : records_(records),
      by_last_(SortedBy(records, &UsageRecord::last)),
      by_first_(SortedBy(records, &UsageRecord::first)),
      last_rank_(Ranks(by_last_)),
      first_rank_(Ranks(by_first_)),
      ends_before_(records.size()),
      starts_by_end_(records.size()),
      object_of_(records.size(), 0),
      gap_end_after_(records.size()),
      gap_start_before_(records.size()) {
  for (std::size_t i : by_last_) lasts_.push_back(records[i].last);
  for (std::size_t i : by_first_) firsts_.push_back(records[i].first);
  same_last_begin_.resize(records.size());
  for (std::size_t i = 0; i < lasts_.size(); ++i)
    same_last_begin_[i] = i > 0 && lasts_[i - 1] == lasts_[i] ? same_last_begin_[i - 1] : i;
  same_first_end_.resize(records.size());
  for (std::size_t i = firsts_.size(); i-- > 0;)
    same_first_end_[i] =
        i + 1 < firsts_.size() && firsts_[i + 1] == firsts_[i] ? same_first_end_[i + 1] : i + 1;
  for (std::size_t r = 0; r < records.size(); ++r) {
    ends_before_[r] = static_cast<std::size_t>(
        std::lower_bound(lasts_.begin(), lasts_.end(), records[r].first) - lasts_.begin());
    starts_by_end_[r] = static_cast<std::size_t>(
        std::upper_bound(firsts_.begin(), firsts_.end(), records[r].last) - firsts_.begin());
  }
}

void FreeGapIndex::Place(std::size_t r, ObjectId object, std::optional<std::size_t> before,
                         std::optional<std::size_t> after) {
  const UsageRecord& placed = records_[r];
  object_of_[r] = object;
  // The gap that ran from `before` to `after` is split in two around r.
  gap_end_after_.Set(last_rank_[r], after ? records_[*after].first : kOpen);
  gap_start_before_.Set(first_rank_[r], before ? -records_[*before].last : kOpen);
  if (before) gap_end_after_.Set(last_rank_[*before], placed.first);
  if (after) gap_start_before_.Set(first_rank_[*after], -placed.last);
}

std::optional<std::pair<std::uint64_t, ObjectId>> FreeGapIndex::Nearest(std::size_t r) const {
  const UsageRecord& q = records_[r];
  std::optional<std::pair<std::uint64_t, ObjectId>> best;
  auto offer = [&](std::uint64_t distance, ObjectId object) {
    if (!best || distance < best->first || (distance == best->first && object < best->second))
      best = {distance, object};
  };
  // Members ending before q starts whose gap reaches past q: the latest such end is
  // the nearest; every member ending at that same step is a tie, lowest id wins. A short
  // run of records ending at that step is read directly; in a long one (many records of
  // a trace may end at one step, few of them members with such a gap) the ties are
  // found by searching on.
  if (auto leaf = gap_end_after_.RightmostBefore(ends_before_[r], q.last)) {
    const auto distance = static_cast<std::uint64_t>(q.first - lasts_[*leaf]);
    const std::size_t begin = same_last_begin_[*leaf];
    offer(distance, object_of_[by_last_[*leaf]]);
    if (*leaf - begin <= kReadTies) {
      for (std::size_t i = begin; i < *leaf; ++i)
        if (gap_end_after_.Get(i) > q.last) offer(distance, object_of_[by_last_[i]]);
    } else {
      while ((leaf = gap_end_after_.RightmostBefore(*leaf, q.last)) && *leaf >= begin)
        offer(distance, object_of_[by_last_[*leaf]]);
    }
  }
  // Members starting after q ends whose gap begins before q: the earliest start is the
  // nearest, with the same tie rule.
  if (auto leaf = gap_start_before_.LeftmostFrom(starts_by_end_[r], -q.first)) {
    const auto distance = static_cast<std::uint64_t>(firsts_[*leaf] - q.last);
    const std::size_t end = same_first_end_[*leaf];
    offer(distance, object_of_[by_first_[*leaf]]);
    if (end - *leaf <= kReadTies) {
      for (std::size_t i = *leaf + 1; i < end; ++i)
        if (gap_start_before_.Get(i) > -q.first) offer(distance, object_of_[by_first_[i]]);
    } else {
      while ((leaf = gap_start_before_.LeftmostFrom(*leaf + 1, -q.first)) && *leaf < end)
        offer(distance, object_of_[by_first_[*leaf]]);
    }
  }
  return best;
}

}  // namespace memplan::objects
