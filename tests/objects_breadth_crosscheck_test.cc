// objects/greedy_by_breadth against a plain version written from TensorFlow Lite GPU's
// description (docs/objects.md): every task's profile, tasks busiest first, and for each
// record a scan over every object. The strategy asks the objects in order of preference
// instead (src/objects/greedy_by_breadth.cc) and must choose the same objects, ties
// included, on random problems with many equal sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "memplan/bounds.h"
#include "memplan/objects.h"
#include "tests/objects_greedy_by_size_reference.h"

namespace memplan {
namespace {

constexpr ObjectId kNone = std::numeric_limits<ObjectId>::max();

// The plain algorithm: object ids by record index (records numbered by first step,
// stable, as TensorFlow Lite's callers number them) and the objects' sizes.
ObjectPlan PlainGreedyByBreadth(const Problem& problem) {
  const auto [order, records] = reference::NumberByFirstStep(problem);
  const std::vector<std::vector<std::size_t>> profiles = TaskProfiles(records);
  std::vector<Bytes> breadth(profiles.size(), 0);
  for (std::size_t t = 0; t < profiles.size(); ++t)
    for (std::size_t i : profiles[t]) breadth[t] += records[i].size;
  std::vector<std::size_t> tasks(profiles.size());
  std::iota(tasks.begin(), tasks.end(), std::size_t{0});
  std::stable_sort(tasks.begin(), tasks.end(),
                   [&](std::size_t a, std::size_t b) { return breadth[a] > breadth[b]; });
  std::vector<ObjectId> ids(records.size(), kNone);
  std::vector<Bytes> sizes;
  std::vector<std::vector<std::size_t>> members;
  auto conflicts = [&](std::size_t a, std::size_t b) {
    return records[a].first <= records[b].last && records[b].first <= records[a].last;
  };
  for (std::size_t t : tasks) {
    for (std::size_t i : profiles[t]) {
      if (ids[i] != kNone) continue;
      ObjectId best = kNone;
      for (ObjectId o = 0; o < sizes.size(); ++o) {
        if (std::any_of(members[o].begin(), members[o].end(),
                        [&](std::size_t m) { return conflicts(m, i); }))
          continue;
        const Bytes s = records[i].size;
        if (best == kNone) {
          best = o;
        } else if (sizes[best] >= s) {
          if (sizes[o] >= s && sizes[o] < sizes[best]) best = o;  // a smaller one that fits
        } else if (sizes[o] > sizes[best]) {
          best = o;  // larger, whether it now fits the size or not
        }
      }
      if (best == kNone) {
        best = sizes.size();
        sizes.push_back(0);
        members.emplace_back();
      }
      sizes[best] = std::max(sizes[best], records[i].size);
      members[best].push_back(i);
      ids[i] = best;
    }
  }
  std::vector<ObjectId> by_record(records.size());
  for (std::size_t k = 0; k < order.size(); ++k) by_record[order[k]] = ids[k];
  return MakeObjectPlan("greedy_by_breadth", by_record, sizes);
}

TEST(ObjectsBreadthCrossCheck, SameObjectsAsThePlainScan) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    Problem p;
    p.alignment = seed % 4 == 0 ? 8 : 1;
    const std::size_t count = 20 + rng() % 120;
    const Step steps = 10 + static_cast<Step>(rng() % 60);
    // Few distinct sizes, so equal sizes (and equal object sizes) are common.
    const Bytes sizes[] = {1, 4, 4, 8, 16, 16, 24, 64};
    for (std::size_t i = 0; i < count; ++i) {
      const Step first = static_cast<Step>(rng() % static_cast<std::uint64_t>(steps));
      const Step length =
          rng() % 5 == 0 ? static_cast<Step>(rng() % 30) : static_cast<Step>(rng() % 3);
      p.records.push_back({sizes[rng() % 8], first, first + length});
    }
    const ObjectPlan plain = PlainGreedyByBreadth(p);
    const ObjectPlan plan = PlanObjects(p, "greedy_by_breadth");
    ASSERT_EQ(plain.object_ids, plan.object_ids) << "seed " << seed;
    ASSERT_EQ(plain.object_sizes, plan.object_sizes) << "seed " << seed;
  }
}

}  // namespace
}  // namespace memplan
