// The 2-d tree objects/greedy_by_size asks for the records a placed record is strictly
// nearer to inside a free gap: checked against scanning every record, while distances
// rise and fall and records close (the tree's bounds must follow both).
#include "src/objects/open_record_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace memplan::objects {
namespace {

TEST(OpenRecordTree, AgreesWithScanningEveryRecord) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 40; ++round) {
    const std::size_t n = 1 + static_cast<std::size_t>(rng() % 400);
    const Step span = 5 + static_cast<Step>(rng() % 200);
    std::vector<UsageRecord> records;
    for (std::size_t i = 0; i < n; ++i) {
      const Step first = static_cast<Step>(rng() % static_cast<std::uint64_t>(span));
      records.push_back({1, first, first + static_cast<Step>(rng() % 20)});
    }
    OpenRecordTree tree(records);
    std::vector<std::uint64_t> distance(n, OpenRecordTree::kNoObject);
    std::vector<bool> closed(n, false);
    for (int step = 0; step < 300; ++step) {
      const std::size_t r = rng() % n;
      switch (rng() % 4) {
        case 0:
          closed[r] = true;
          tree.Close(r);
          break;
        case 1:  // a rise, or a record that has no object again
          distance[r] = rng() % 5 == 0 ? OpenRecordTree::kNoObject : 1 + rng() % 60;
          if (!closed[r]) tree.SetDistance(r, distance[r]);
          break;
        default: {
          const Step a = static_cast<Step>(rng() % static_cast<std::uint64_t>(span + 20)) - 1;
          const Step b = a + 1 + static_cast<Step>(rng() % 40);
          const Step c = b + static_cast<Step>(rng() % 5);
          std::vector<std::size_t> before, after, expect_before, expect_after;
          tree.NearerBefore(a, b, before);
          tree.NearerAfter(b, c + 30, after);
          for (std::size_t q = 0; q < n; ++q) {
            if (closed[q]) continue;
            const UsageRecord& x = records[q];
            if (a < x.first && x.last < b && static_cast<std::uint64_t>(b - x.last) < distance[q])
              expect_before.push_back(q);
            if (b < x.first && x.last < c + 30 &&
                static_cast<std::uint64_t>(x.first - b) < distance[q])
              expect_after.push_back(q);
          }
          std::sort(before.begin(), before.end());
          std::sort(after.begin(), after.end());
          ASSERT_EQ(before, expect_before) << "round " << round << " step " << step;
          ASSERT_EQ(after, expect_after) << "round " << round << " step " << step;
          // The caller lowers the distances of what it found, as greedy_by_size does.
          for (std::size_t q : before) {
            distance[q] = static_cast<std::uint64_t>(b - records[q].last);
            tree.SetDistance(q, distance[q]);
          }
        }
      }
    }
  }
}

TEST(OpenRecordTree, EmptyTreeReportsNothing) {
  OpenRecordTree tree({});
  std::vector<std::size_t> out;
  tree.NearerBefore(-1, 10, out);
  tree.NearerAfter(0, 10, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace memplan::objects
