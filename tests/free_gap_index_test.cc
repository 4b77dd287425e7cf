// The free-gap index that objects/greedy_by_size asks for a record's nearest object:
// checked against asking every object, on random objects and records.
#include "src/objects/free_gap_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>

namespace memplan::objects {
namespace {

TEST(MaxTree, FindsTheRightmostAndLeftmostMatch) {
  MaxTree tree(10);
  for (std::size_t i = 0; i < 10; ++i) tree.Set(i, static_cast<std::int64_t>(i % 4));
  // values 0 1 2 3 0 1 2 3 0 1
  EXPECT_EQ(tree.RightmostBefore(10, 2), std::optional<std::size_t>(7));
  EXPECT_EQ(tree.RightmostBefore(7, 2), std::optional<std::size_t>(3));
  EXPECT_EQ(tree.RightmostBefore(3, 2), std::nullopt);
  EXPECT_EQ(tree.RightmostBefore(0, -5), std::nullopt);
  EXPECT_EQ(tree.LeftmostFrom(0, 2), std::optional<std::size_t>(3));
  EXPECT_EQ(tree.LeftmostFrom(4, 2), std::optional<std::size_t>(7));
  EXPECT_EQ(tree.LeftmostFrom(8, 2), std::nullopt);
  EXPECT_EQ(tree.LeftmostFrom(9, 0), std::optional<std::size_t>(9));
  tree.Set(9, 5);
  EXPECT_EQ(tree.LeftmostFrom(8, 4), std::optional<std::size_t>(9));
  EXPECT_EQ(tree.RightmostBefore(10, 4), std::optional<std::size_t>(9));
}

// Asks every object: q's smallest gap to an object none of whose members it meets.
std::optional<std::pair<std::uint64_t, ObjectId>> NearestByScan(
    const std::vector<UsageRecord>& records,
    const std::map<ObjectId, std::vector<std::size_t>>& objects, const UsageRecord& q) {
  std::optional<std::pair<std::uint64_t, ObjectId>> best;
  for (const auto& [object, members] : objects) {
    std::optional<std::uint64_t> distance;
    bool fits = true;
    for (std::size_t m : members) {
      const UsageRecord& r = records[m];
      if (Conflicts(r, q)) {
        fits = false;
        break;
      }
      const auto gap =
          static_cast<std::uint64_t>(r.last < q.first ? q.first - r.last : r.first - q.last);
      distance = distance ? std::min(*distance, gap) : gap;
    }
    if (fits && distance && (!best || *distance < best->first)) best = {*distance, object};
  }
  return best;
}

TEST(FreeGapIndex, AgreesWithAskingEveryObject) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 70; ++round) {
    // Short spans force ties and shared end steps; the last rounds put 50-100 records on
    // one end step, past the run that Nearest reads directly.
    const int n = round < 60 ? 20 + round * 5 : 600;
    const Step span = round < 60 ? 10 + round : 6 + (round - 60);
    std::vector<UsageRecord> records;
    for (int i = 0; i < n; ++i) {
      const Step first = static_cast<Step>(rng() % static_cast<std::uint64_t>(span));
      const Step length = static_cast<Step>(rng() % 6);
      records.push_back({1, first, first + length});
    }
    FreeGapIndex index(records);
    std::map<ObjectId, std::vector<std::size_t>> objects;  // members sorted by first
    const ObjectId kinds = 1 + static_cast<ObjectId>(round % 7);
    for (std::size_t r = 0; r < records.size(); ++r) {
      // Each query first, against the objects so far.
      EXPECT_EQ(index.Nearest(r), NearestByScan(records, objects, records[r]))
          << "round " << round << " record " << r;
      // Then r joins a random object it fits into (or a new one).
      const auto object = static_cast<ObjectId>(rng() % kinds);
      auto& members = objects[object];
      const bool fits = std::none_of(members.begin(), members.end(), [&](std::size_t m) {
        return Conflicts(records[m], records[r]);
      });
      const ObjectId target = fits ? object : kinds + static_cast<ObjectId>(r);
      auto& into = objects[target];
      const auto at = std::lower_bound(
          into.begin(), into.end(), r,
          [&](std::size_t m, std::size_t x) { return records[m].first < records[x].first; });
      std::optional<std::size_t> before, after;
      if (at != into.begin()) before = *std::prev(at);
      if (at != into.end()) after = *at;
      index.Place(r, target, before, after);
      into.insert(at, r);
    }
  }
}

}  // namespace
}  // namespace memplan::objects
