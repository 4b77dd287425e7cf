// The memplan mode's arena is never above TensorFlow Lite's after the same calls
// (docs/cpu-planner.md, "Never above TensorFlow Lite"): random graphs (skips, branches,
// temporaries, in-place bits, persistent and dynamic tensors) driven through random call
// sequences (sizes growing and shrinking and coming back, whole plans, node ranges in
// pieces, resets after a node, grows without a reset, release and acquire, new
// PlanAllocations, a tensor made dynamic or put back in the arena) by a memplan-mode and a
// tflite_cpu-mode planner side by side. Also: the O(n + steps) lower bound the memplan mode uses
// equals OffsetsLowerBound.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "memplan/bounds.h"
#include "memplan/cpu_arena_planner.h"
#include "memplan/error.h"
#include "memplan/offsets.h"
#include "memplan/plan.h"
#include "src/cpuplan/align.h"
#include "src/cpuplan/layout_bound.h"
#include "src/cpuplan/scan_fit.h"
#include "src/cpuplan/small_bound.h"
#include "src/cpuplan/tflite_order.h"

namespace memplan {
namespace {

CpuGraph RandomGraph(std::mt19937_64& rng, int nodes) {
  CpuGraph g;
  auto add = [&](Bytes bytes) {
    g.tensors.push_back({bytes, CpuAllocationType::kArenaRw});
    return static_cast<std::int32_t>(g.tensors.size() - 1);
  };
  auto size = [&] { return Bytes{8} * (1 + rng() % 64); };
  std::vector<std::int32_t> values{add(size())};
  g.inputs = {values[0]};
  if (rng() % 2 == 0) {
    g.inputs.push_back(add(size()));
    values.push_back(g.inputs.back());
  }
  if (rng() % 3 == 0) g.variables.push_back(add(size()));
  for (int i = 0; i < nodes; ++i) {
    CpuNode node;
    node.inputs.push_back(values.back());
    if (values.size() > 2 && rng() % 3 == 0)
      node.inputs.push_back(values[rng() % (values.size() - 1)]);
    if (!g.variables.empty() && rng() % 8 == 0) node.inputs.push_back(g.variables[0]);
    node.outputs.push_back(add(size()));
    if (rng() % 6 == 0) node.outputs.push_back(add(size()));  // a branch, maybe never read
    if (rng() % 4 == 0) node.temporaries.push_back(add(size()));
    const std::uint32_t bits[] = {0, kInPlaceInput0Shared,
                                  kInPlaceInput0Shared | kInPlaceDataUnmodified,
                                  kInPlaceInput1Shared};
    node.inplace = bits[rng() % 4];
    values.push_back(node.outputs[0]);
    g.nodes.push_back(node);
  }
  g.outputs = {values.back()};
  if (rng() % 2 == 0) g.outputs.push_back(values[values.size() / 2]);
  // A few tensors of other kinds: persistent (a kernel's state), dynamic (the engine's heap).
  for (int k = 0; k < 2; ++k) {
    const auto t = static_cast<std::int32_t>(rng() % g.tensors.size());
    if (rng() % 3 == 0) g.tensors[t].type = CpuAllocationType::kArenaRwPersistent;
    if (rng() % 4 == 0) g.tensors[t].type = CpuAllocationType::kDynamic;
  }
  return g;
}

struct Tally {
  std::size_t calls = 0, tflite_overlaps = 0, whole_steps = 0, above_slack = 0;
  std::size_t tflite_above_slack = 0;  // of the whole steps where tflite_cpu's plan is valid
  std::size_t whole_plans = 0, whole_plans_above_slack = 0;  // one call from node 0 after a reset
  double worst_vs_bound = 0, worst_whole_plan_vs_bound = 0;
};

class SideBySide {
 public:
  SideBySide(const CpuGraph& g, Bytes alignment, std::mt19937_64& rng, Tally& tally)
      : g_(g), rng_(rng), tally_(tally) {
    CpuPlannerOptions o;
    o.tensor_alignment = alignment;
    o.cache_capacity = 8;  // small: entries are dropped and made again
    o.mode = CpuPlannerMode::kMemplan;
    ours_ = std::make_unique<CpuArenaPlanner>(g, o);
    o.mode = CpuPlannerMode::kTfliteCpu;
    tflite_ = std::make_unique<CpuArenaPlanner>(g, o);
    // Sizes come from a few choices per tensor, so shapes come back (cache hits).
    for (const CpuTensor& t : g.tensors)
      choices_.push_back({t.bytes, t.bytes * 2, std::max<Bytes>(8, t.bytes / 2), t.bytes + 24});
  }

  std::int32_t last() const { return static_cast<std::int32_t>(g_.nodes.size()) - 1; }

  void PlanAllocations() {
    Log("PlanAllocations");
    ours_->PlanAllocations();
    tflite_->PlanAllocations();
    executed_to_ = -1;
    tflite_overlapped_ = false;
    calls_since_reset_ = 0;
  }
  void Reset() {
    Log("ResetAllocations");
    ours_->ResetAllocations();
    tflite_->ResetAllocations();
    executed_to_ = -1;
    tflite_overlapped_ = false;
    calls_since_reset_ = 0;
  }
  void ResetAfter(std::int32_t node) {
    Log("ResetAllocationsAfter(" + std::to_string(node) + ")");
    ours_->ResetAllocationsAfter(node);
    tflite_->ResetAllocationsAfter(node);
    ++calls_since_reset_;
    executed_to_ = std::min(executed_to_, node);
    Compare();
  }
  void Execute(std::int32_t first, std::int32_t last_node) {
    Log("ExecuteAllocations(" + std::to_string(first) + ", " + std::to_string(last_node) + ")");
    ours_->ExecuteAllocations(first, last_node);
    tflite_->ExecuteAllocations(first, last_node);
    ++calls_since_reset_;
    if (first <= executed_to_ + 1) executed_to_ = std::max(executed_to_, last_node);
    // A layout said to be at its bound is: no plan of its tensors is smaller.
    if (ours_->last_stats().tflite_check == CpuTfliteCheck::kAtBound)
      EXPECT_EQ(ours_->PlannedArenaBytes(), OffsetsLowerBound(ours_->MainArenaLayout().first))
          << "the calls: " << History();
    Compare();
  }
  // Execute first..last in 1 to 4 pieces.
  void ExecuteInPieces(std::int32_t first) {
    std::int32_t from = first;
    const int pieces = 1 + static_cast<int>(rng_() % 4);
    for (int k = 1; k < pieces && from < last(); ++k) {
      const auto to = from + static_cast<std::int32_t>(rng_() % (last() - from + 1));
      Execute(from, to);
      from = to + 1;
    }
    if (from <= last()) Execute(from, last());
  }
  void Resize(std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t t = rng_() % g_.tensors.size();
      const Bytes bytes = choices_[t][rng_() % choices_[t].size()];
      Log("ResizeTensor(" + std::to_string(t) + ", " + std::to_string(bytes) + ")");
      ours_->ResizeTensor(static_cast<std::int32_t>(t), bytes);
      tflite_->ResizeTensor(static_cast<std::int32_t>(t), bytes);
    }
  }
  // A kernel's Prepare makes an output dynamic (or the engine puts one back in the arena).
  void ToggleDynamic() {
    const auto t = static_cast<std::int32_t>(rng_() % g_.tensors.size());
    const CpuAllocationType now = ours_->graph().tensors[static_cast<std::size_t>(t)].type;
    if (now == CpuAllocationType::kArenaRwPersistent) return;
    const CpuAllocationType type = now == CpuAllocationType::kDynamic ? CpuAllocationType::kArenaRw
                                                                      : CpuAllocationType::kDynamic;
    Log("SetAllocationType(" + std::to_string(t) + ", " + std::to_string(static_cast<int>(type)) +
        ")");
    ours_->SetAllocationType(t, type);
    tflite_->SetAllocationType(t, type);
  }
  void ReleaseAcquire() {
    Log("Release + Acquire");
    ours_->ReleaseNonPersistentMemory();
    tflite_->ReleaseNonPersistentMemory();
    EXPECT_FALSE(ours_->HasNonPersistentMemory());
    ours_->AcquireNonPersistentMemory();
    tflite_->AcquireNonPersistentMemory();
  }

 private:
  // The calls so far, for a failure's message.
  void Log(std::string call) { calls_.push_back(std::move(call)); }
  std::string History() const {
    std::string out;
    for (const std::string& c : calls_) out += "\n  " + c;
    return out;
  }

  static std::string Describe(const CpuArenaPlanner& p) {
    std::vector<std::int32_t> tensors;
    const auto [problem, offsets] = p.MainArenaLayout(&tensors);
    std::string out;
    for (std::size_t i = 0; i < tensors.size(); ++i)
      out += " t" + std::to_string(tensors[i]) + "@" + std::to_string(offsets[i]) + "+" +
             std::to_string(problem.records[i].size) + "[" +
             std::to_string(problem.records[i].first) + "," +
             std::to_string(problem.records[i].last) + "]";
    return out;
  }

  void Compare() {
    ++tally_.calls;
    const auto [problem, offsets] = ours_->MainArenaLayout();
    const auto violations = FindViolations(problem, MakeOffsetPlan(problem, "memplan", offsets));
    ASSERT_TRUE(violations.empty()) << violations.front().message;
    const Bytes mine = ours_->PlannedArenaBytes();
    const Bytes theirs = tflite_->PlannedArenaBytes();
    calls_.back() +=
        " -> " + std::to_string(mine) + " B, tflite_cpu " + std::to_string(theirs) + " B";
    const auto [tp, to] = tflite_->MainArenaLayout();
    if (!FindViolations(tp, MakeOffsetPlan(tp, "tflite_cpu", to), 1).empty())
      tflite_overlapped_ = true;
    if (mine > theirs) {
      // Only where TensorFlow Lite's own placement overlaps, or did since the last reset (its
      // quirks; its high-water mark stays): no valid plan is bound by it.
      EXPECT_TRUE(tflite_overlapped_)
          << "memplan " << mine << " B above a valid tflite_cpu plan of " << theirs << " B; check "
          << static_cast<int>(ours_->last_stats().tflite_check) << "; the calls: " << History()
          << "\nmemplan:" << Describe(*ours_) << "\ntflite_cpu:" << Describe(*tflite_);
      ++tally_.tflite_overlaps;
    }
    if (executed_to_ == last()) {
      // The whole graph is known: the step's lower bound.
      ++tally_.whole_steps;
      const Bytes bound = OffsetsLowerBound(problem);
      const double ratio = bound ? static_cast<double>(mine) / static_cast<double>(bound) : 1;
      tally_.worst_vs_bound = std::max(tally_.worst_vs_bound, ratio);
      if (ratio > 1.05) ++tally_.above_slack;
      if (!tflite_overlapped_ && static_cast<double>(theirs) > 1.05 * static_cast<double>(bound))
        ++tally_.tflite_above_slack;
      if (calls_since_reset_ == 1) {
        ++tally_.whole_plans;
        if (ratio > 1.05) ++tally_.whole_plans_above_slack;
        tally_.worst_whole_plan_vs_bound = std::max(tally_.worst_whole_plan_vs_bound, ratio);
      }
    }
  }

  const CpuGraph& g_;
  std::mt19937_64& rng_;
  Tally& tally_;
  std::unique_ptr<CpuArenaPlanner> ours_, tflite_;
  std::vector<std::vector<Bytes>> choices_;
  std::vector<std::string> calls_;
  int calls_since_reset_ = 0;
  bool tflite_overlapped_ = false;  // tflite_cpu's layout overlapped since the last reset
  std::int32_t executed_to_ = -1;   // nodes 0..executed_to_ have been placed since the reset
};

void RunSequences(Bytes alignment, Tally& tally) {
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", alignment " << alignment);
    std::mt19937_64 rng(seed * 1000003 + alignment);
    const CpuGraph g = RandomGraph(rng, 6 + static_cast<int>(rng() % 40));
    SideBySide both(g, alignment, rng, tally);
    both.PlanAllocations();
    both.ExecuteInPieces(0);
    for (int call = 0; call < 40 && !::testing::Test::HasFailure(); ++call) {
      switch (rng() % 9) {
        case 0:  // a resize that reaches node 0: everything again
        case 1:
          both.Resize(1 + rng() % 6);
          both.Reset();
          both.ExecuteInPieces(0);
          break;
        case 2: {  // a kernel learns its output's size: reset after the node before it
          const auto node = static_cast<std::int32_t>(rng() % g.nodes.size());
          both.ResetAfter(std::max(0, node - 1));
          both.Resize(1 + rng() % 2);
          both.ExecuteInPieces(node == 0 ? 0 : node);
          break;
        }
        case 3:  // grown (or shrunk) without a reset
          both.Resize(1 + rng() % 3);
          both.Execute(0, both.last());
          break;
        case 4:  // the same call again, nothing changed
          both.Execute(0, both.last());
          break;
        case 5:
          both.ReleaseAcquire();
          break;
        case 6:  // the engine plans again (its graph unchanged, the shapes as they are)
          both.Resize(rng() % 3);
          both.PlanAllocations();
          both.ExecuteInPieces(0);
          break;
        case 7:  // a tensor leaves the arena (or comes back), then everything again
          both.ToggleDynamic();
          both.Reset();
          both.ExecuteInPieces(0);
          break;
        default:  // back to an earlier shape, whole
          both.Resize(1 + rng() % 4);
          both.Reset();
          both.Execute(0, both.last());
          break;
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(CpuPlannerTfliteBound, MemplanNeverAboveTfliteAfterAnyCall) {
  for (const Bytes alignment : {Bytes{1}, Bytes{16}, Bytes{64}}) {
    Tally tally;
    RunSequences(alignment, tally);
    EXPECT_GT(tally.whole_steps, 1000u);
    // Reported, not asserted: how far above the step's lower bound the memplan mode ends
    // (docs/cpu-planner.md explains why tiny random graphs can miss 1.05).
    std::printf(
        "alignment %llu: %zu calls, %zu where tflite_cpu overlaps; %zu steps with the whole "
        "graph known: %zu above 1.05 x bound (tflite_cpu: %zu), worst %.3f; of them %zu whole "
        "plans (one call from node 0 after a reset): %zu above, worst %.3f\n",
        static_cast<unsigned long long>(alignment), tally.calls, tally.tflite_overlaps,
        tally.whole_steps, tally.above_slack, tally.tflite_above_slack, tally.worst_vs_bound,
        tally.whole_plans, tally.whole_plans_above_slack, tally.worst_whole_plan_vs_bound);
  }
}

// Fewer than `most` records over 40 steps, one in `empty_one_in` empty; sizes 1..300, or
// (near_units) a few alignment units less up to 2 bytes, so paddings are small and often equal.
Problem RandomRecords(std::mt19937_64& rng, bool near_units, std::uint64_t most = 60,
                      std::uint64_t empty_one_in = 5) {
  Problem p;
  p.alignment = Bytes{1} << (rng() % 7);
  const int n = static_cast<int>(rng() % most);
  for (int i = 0; i < n; ++i) {
    const Step first = static_cast<Step>(rng() % 40);
    const bool empty = rng() % empty_one_in == 0;
    const Bytes size = empty ? 0 : near_units ? 64 * (1 + rng() % 4) - rng() % 3 : 1 + rng() % 300;
    p.records.push_back({size, first, first + static_cast<Step>(rng() % 12)});
  }
  return p;
}

TEST(CpuPlannerTfliteBound, SweepLowerBoundEqualsOffsetsLowerBound) {
  std::mt19937_64 rng(17);
  for (int k = 0; k < 300; ++k) {
    const Problem p = RandomRecords(rng, false);
    EXPECT_EQ(cpuplan::SweepLowerBound(p.records, p.alignment), OffsetsLowerBound(p)) << k;
  }
}

// The coarse bound (two passes) is never above the bound, and where a plan's arena is no
// larger than it (so the arena is the bound), the bound is reached at the step it names:
// what a first plan relies on before sweeping. Half the problems have sizes a few bytes under
// whole alignment units, so the coarse bound often is the bound.
TEST(CpuPlannerTfliteBound, CoarseLowerBoundIsALowerBoundReachedAtItsPeak) {
  std::mt19937_64 rng(19);
  int settled = 0;
  for (int k = 0; k < 300; ++k) {
    const Problem p = RandomRecords(rng, k % 2 == 1);
    Step peak = -1;
    const Bytes coarse = cpuplan::CoarseLowerBound(p.records, p.alignment, &peak);
    const Bytes bound = OffsetsLowerBound(p);
    EXPECT_LE(coarse, bound) << k;
    if (coarse == bound && bound > 0) {
      ++settled;
      EXPECT_EQ(cpuplan::LiveBytesAt(p.records, p.alignment, peak), bound) << k;
    }
  }
  EXPECT_GT(settled, 30);
}

// A small range's bound over its placements (small_bound.h) is the bound of their records,
// reached at the node it names, whatever the slots' order and hint: asked
// exactly (Reaches one byte above it), just reached (Reaches it: settled at a node that
// shows it), and within a slack. Records over node order (as a range gathers them) take
// the node-by-node walk, shuffled ones the pass per node.
TEST(CpuPlannerTfliteBound, SmallBoundIsTheBoundOfThePlacements) {
  std::mt19937_64 rng(23);
  int hinted = 0;
  for (int k = 0; k < 600; ++k) {
    SCOPED_TRACE(k);
    Problem p = RandomRecords(rng, k % 2 == 1, 65, 9);
    if (p.records.empty()) continue;
    if (k % 3 != 2)
      std::stable_sort(
          p.records.begin(), p.records.end(),
          [](const UsageRecord& a, const UsageRecord& b) { return a.first < b.first; });
    std::vector<cpuplan::Placement> placement;
    cpuplan::SmallList slots;
    for (const UsageRecord& r : p.records) {
      slots.Add(static_cast<std::uint32_t>(placement.size()));
      placement.push_back(
          {0, r.size, static_cast<std::int32_t>(r.first), static_cast<std::int32_t>(r.last)});
    }
    const Bytes bound = cpuplan::SweepLowerBound(p.records, p.alignment);
    // Half without a hint, half at a node of one record (a lower bound there, seldom the peak).
    const Step hint = k % 4 < 2 ? -1 : p.records[rng() % p.records.size()].first;
    hinted += hint >= 0;
    cpuplan::SmallBound above(placement, slots, p.alignment, hint);
    EXPECT_FALSE(above.Reaches(bound + 1));
    EXPECT_EQ(above.exact(), bound);
    EXPECT_TRUE(above.Reaches(bound));
    cpuplan::SmallBound at(placement, slots, p.alignment, hint);
    EXPECT_TRUE(at.Reaches(bound));
    EXPECT_EQ(at.exact(), bound);
    EXPECT_EQ(cpuplan::LiveBytesAt(p.records, p.alignment, at.peak()), bound);
    const Bytes arena = bound + bound / 10 + 1;
    cpuplan::SmallBound within(placement, slots, p.alignment, hint);
    EXPECT_EQ(within.Within(arena, 1.1),
              static_cast<double>(arena) <= static_cast<double>(bound) * 1.1);
  }
  EXPECT_GT(hinted, 100);
}

// The rank a small range sorts by (two words) puts keys in TensorFlow Lite's order: whole-run
// tensors first by index, then larger first, earlier first node, lower index - ties on each
// field drawn often, bytes up to the rank's limit.
TEST(CpuPlannerTfliteOrder, TheRankComparesAsTheOrder) {
  std::mt19937_64 rng(29);
  const auto draw = [&] {
    const bool whole = rng() % 4 == 0;
    const Bytes bytes = rng() % 3 == 0 ? (Bytes{1} << 62) - 1 - rng() % 3 : 64 * (rng() % 4);
    const auto first = static_cast<std::int32_t>(whole ? 0 : rng() % 3);
    const auto index = static_cast<std::int32_t>(rng() % 6);
    return cpuplan::TfliteOrderKeyOf(first, whole ? cpuplan::kEndOfRun : first + 2, bytes, index);
  };
  for (int k = 0; k < 20000; ++k) {
    const cpuplan::TfliteOrderKey a = draw(), b = draw();
    EXPECT_EQ(cpuplan::TfliteRankBefore(cpuplan::TfliteRankOf(a), cpuplan::TfliteRankOf(b)),
              cpuplan::TfliteOrderBefore(a, b))
        << k;
  }
}

Problem RandomProblem(std::mt19937_64& rng, bool with_fixed) {
  Problem p = RandomRecords(rng, false, 80, 7);
  const auto n = static_cast<int>(p.records.size());
  if (with_fixed && n > 0) {
    // A valid layout of a prefix stays fixed (as the kept offsets of a re-plan).
    Problem prefix;
    prefix.alignment = p.alignment;
    const auto kept = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(n));
    prefix.records.assign(p.records.begin(), p.records.begin() + static_cast<long>(kept));
    const OffsetPlan plan = PlanOffsets(prefix, "greedy_by_size");
    p.fixed_offsets.assign(p.records.size(), std::nullopt);
    for (std::size_t i = 0; i < kept; ++i) p.fixed_offsets[i] = plan.offsets[i];
  }
  return p;
}

TEST(CpuPlannerScanFit, SameOffsetsAsTheIndexedStrategies) {
  std::mt19937_64 rng(23);
  for (int k = 0; k < 400; ++k) {
    const Problem p = RandomProblem(rng, k % 2 == 1);
    const OffsetPlan greedy = cpuplan::PlaceByScan(p, cpuplan::GreedyBySizeOrder(p), false);
    EXPECT_EQ(greedy.offsets, PlanGreedyBySize(p).offsets) << k;
    EXPECT_EQ(greedy.arena_bytes, PlanGreedyBySize(p).arena_bytes) << k;
    if (!p.fixed_offsets.empty()) continue;
    std::vector<std::size_t> order(p.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    EXPECT_EQ(cpuplan::PlaceByScan(p, order, true).offsets, PlanTfliteCpuInCallOrder(p).offsets)
        << k;
  }
}

// A scan told to stop at an arena stops only once the whole plan's arena would be at least
// that (the arena only grows as records are placed), and with a limit above the whole arena
// it is the whole plan: what the memplan mode relies on when it places TensorFlow Lite's
// order only until it passes its own plan.
TEST(CpuPlannerScanFit, AStoppedScanWouldHaveReachedItsLimit) {
  std::mt19937_64 rng(29);
  int stopped = 0;
  for (int k = 0; k < 400; ++k) {
    const Problem p = RandomProblem(rng, k % 2 == 1);
    const bool tflite_fit = k % 4 < 2 && p.fixed_offsets.empty();
    std::vector<std::size_t> order = cpuplan::GreedyBySizeOrder(p);
    if (tflite_fit) std::shuffle(order.begin(), order.end(), rng);
    const OffsetPlan whole = cpuplan::PlaceByScan(p, order, tflite_fit);
    OffsetPlan part;
    const Bytes limit = whole.arena_bytes == 0 ? 1 : 1 + rng() % (whole.arena_bytes + 1);
    if (!cpuplan::PlaceByScan(p, order, tflite_fit, part, limit)) {
      ++stopped;
      EXPECT_GE(whole.arena_bytes, limit) << k;
      EXPECT_GE(part.arena_bytes, limit) << k;
    } else {
      EXPECT_EQ(part.offsets, whole.offsets) << k;
    }
    OffsetPlan again;
    EXPECT_TRUE(cpuplan::PlaceByScan(p, order, tflite_fit, again, whole.arena_bytes + 1)) << k;
    EXPECT_EQ(again.offsets, whole.offsets) << k;
    EXPECT_EQ(again.arena_bytes, whole.arena_bytes) << k;
  }
  EXPECT_GT(stopped, 100);
}

// greedy_by_size's order kept from an earlier problem (KeepIfStillSorted) only when it is the
// order a sort gives: the earlier order is another random problem's (often of another size,
// sometimes with fixed records, sometimes naming a record the problem lacks), then the same
// problem with every size doubled (the order holds and is kept).
TEST(CpuPlannerScanFit, AnEarlierOrderIsKeptOnlyWhenStillTheOrder) {
  std::mt19937_64 rng(31);
  std::size_t kept = 0;
  std::vector<std::size_t> order;  // carried from problem to problem, as the planner's scratch
  for (int k = 0; k < 400; ++k) {
    Problem p = RandomProblem(rng, k % 5 == 4);
    if (k % 7 == 3) order.push_back(p.size() + 5);
    cpuplan::GreedyBySizeOrder(p, order);
    EXPECT_EQ(order, cpuplan::GreedyBySizeOrder(p)) << k;
    for (UsageRecord& r : p.records) r.size *= 2;
    const std::vector<std::size_t> earlier = order;
    cpuplan::GreedyBySizeOrder(p, order);
    EXPECT_EQ(order, cpuplan::GreedyBySizeOrder(p)) << k;
    kept += p.fixed_offsets.empty() && order == earlier ? 1 : 0;
  }
  EXPECT_GT(kept, 200u);  // the shortcut was taken, not only the sort
}

TEST(CpuPlannerScanFit, SweepVerificationAgreesWithFindViolations) {
  std::mt19937_64 rng(29);
  std::size_t rejected = 0;
  for (int k = 0; k < 400; ++k) {
    const Problem p = RandomProblem(rng, false);
    OffsetPlan plan = PlanGreedyBySize(p);
    // The valid plan first: the check of the moved one below may start from its order.
    EXPECT_NO_THROW(cpuplan::VerifyBySweep(p, plan)) << k;
    if (k % 2 == 1 && !plan.offsets.empty()) {  // move one record: often an overlap
      plan.offsets[rng() % plan.offsets.size()] = p.alignment * (rng() % 8);
      plan.arena_bytes = ArenaBytes(p, plan.offsets);
    }
    const bool valid = FindViolations(p, plan, 1).empty();
    rejected += valid ? 0 : 1;
    if (valid)
      EXPECT_NO_THROW(cpuplan::VerifyBySweep(p, plan)) << k;
    else
      EXPECT_THROW(cpuplan::VerifyBySweep(p, plan), InternalError) << k;
  }
  EXPECT_GT(rejected, 50u);
}

TEST(CpuPlannerScanFit, MaskRoundingEqualsAlignUp) {
  std::mt19937_64 rng(31);
  for (const Bytes alignment : {1, 2, 3, 4, 12, 16, 48, 64, 100, 128, 4096}) {
    for (int k = 0; k < 200; ++k) {
      const Bytes value = rng() % 3 == 0 ? rng() % 1000 : rng() >> 8;
      EXPECT_EQ(cpuplan::AlignUpFast(value, alignment), AlignUp(value, alignment))
          << value << " " << alignment;
      EXPECT_EQ(IsAligned(value, alignment), value % alignment == 0) << value << " " << alignment;
    }
  }
}

// The small-plan verification (offset order) and the sweep agree with FindViolations on
// plans with many records at few offsets, where a near miss is one byte.
TEST(CpuPlannerScanFit, SmallVerificationFindsEveryOverlap) {
  std::mt19937_64 rng(37);
  std::size_t rejected = 0;
  for (int k = 0; k < 300; ++k) {
    Problem p;
    p.alignment = 1;
    OffsetPlan plan;
    const int n = 1 + static_cast<int>(rng() % 90);
    for (int i = 0; i < n; ++i) {
      const Step first = static_cast<Step>(rng() % 40);
      p.records.push_back({1 + rng() % 4, first, first + static_cast<Step>(rng() % 3)});
      plan.offsets.push_back(rng() % 12);
    }
    plan.arena_bytes = ArenaBytes(p, plan.offsets);
    const bool valid = FindViolations(p, plan, 1).empty();
    rejected += valid ? 0 : 1;
    if (valid)
      EXPECT_NO_THROW(cpuplan::VerifyBySweep(p, plan)) << k;
    else
      EXPECT_THROW(cpuplan::VerifyBySweep(p, plan), InternalError) << k;
  }
  EXPECT_GT(rejected, 50u);
  EXPECT_LT(rejected, 290u);  // valid plans too
}

// A layout's placements over 2 to `max_slots` slots, some empty, some alive to the end of the
// run (node 40), with the same tensors as a problem's records (alignment 4; offsets 0 until
// a plan sets them) and each record's slot.
struct RandomLayout {
  RandomLayout(std::mt19937_64& rng, std::size_t max_slots) : placement(2 + rng() % max_slots) {
    constexpr Step kEnd = 40;
    problem.alignment = 4;
    for (std::size_t s = 0; s < placement.size(); ++s) {
      if (rng() % 5 == 0) continue;  // a slot without a place
      const auto first = static_cast<std::int32_t>(rng() % 20);
      const bool to_the_end = rng() % 7 == 0;
      const std::int32_t last =
          to_the_end ? cpuplan::kEndOfRun : first + static_cast<std::int32_t>(rng() % 4);
      placement[s] = {0, 1 + rng() % 16, first, last};
      problem.records.push_back({placement[s].size, first, to_the_end ? kEnd : Step{last}});
      slot_of_record.push_back(s);
    }
  }
  Problem problem;
  std::vector<cpuplan::Placement> placement;
  std::vector<std::size_t> slot_of_record;
};

// A repair's verification on a layout's placements (some slots empty, some alive to the end
// of the run), every placement but the placed ones from a valid plan: it rejects exactly the
// layouts where a placed one overlaps another alive with it, is unaligned, or the arena is
// misstated, as FindViolations does over the same records.
TEST(CpuPlannerScanFit, PlacedAmongVerificationFindsEveryOverlapOfThePlacedTensors) {
  std::mt19937_64 rng(43);
  std::size_t rejected = 0;
  for (int k = 0; k < 300; ++k) {
    RandomLayout layout(rng, 40);
    Problem& p = layout.problem;
    std::vector<cpuplan::Placement>& placement = layout.placement;
    const std::vector<std::size_t>& slot_of_record = layout.slot_of_record;
    if (p.records.size() < 2) continue;
    OffsetPlan plan = cpuplan::PlaceByScan(p, cpuplan::GreedyBySizeOrder(p), false);
    // One or two records moved anywhere (sometimes unaligned), the arena restated.
    std::vector<std::size_t> moved{rng() % p.size()};
    if (k % 3 == 0) moved.push_back((moved[0] + 1) % p.size());
    for (const std::size_t r : moved) plan.offsets[r] = (rng() % 24) * (k % 10 == 0 ? 1 : 4);
    plan.arena_bytes = ArenaBytes(p, plan.offsets);
    for (std::size_t r = 0; r < p.size(); ++r)
      placement[slot_of_record[r]].offset = plan.offsets[r];
    std::vector<std::uint32_t> placed;
    for (const std::size_t r : moved)
      placed.push_back(static_cast<std::uint32_t>(slot_of_record[r]));
    const bool valid = FindViolations(p, plan, 1).empty();
    rejected += valid ? 0 : 1;
    const auto verify = [&](Bytes arena) {
      cpuplan::VerifyPlacedAmong(placement, placed, p.alignment, arena, "repair");
    };
    if (valid)
      EXPECT_NO_THROW(verify(plan.arena_bytes)) << k;
    else
      EXPECT_THROW(verify(plan.arena_bytes), InternalError) << k;
    EXPECT_THROW(verify(plan.arena_bytes + 1), InternalError) << k;
  }
  EXPECT_GT(rejected, 50u);
  EXPECT_LT(rejected, 290u);  // valid layouts too
}

// A small layout's verification on its placements (some slots empty, some alive to the end
// of the run): it rejects exactly the layouts FindViolations rejects over the same records
// (an overlap, an unaligned offset, a misstated arena), and leaves a layout of more than 64
// placed tensors to the verification through a problem.
TEST(CpuPlannerScanFit, FewPlacementsVerificationFindsEveryOverlap) {
  std::mt19937_64 rng(47);
  std::size_t rejected = 0;
  for (int k = 0; k < 300; ++k) {
    RandomLayout layout(rng, 70);
    Problem& p = layout.problem;
    std::vector<cpuplan::Placement>& placement = layout.placement;
    const std::vector<std::size_t>& slot_of_record = layout.slot_of_record;
    if (p.records.empty()) continue;
    OffsetPlan plan = cpuplan::PlaceByScan(p, cpuplan::GreedyBySizeOrder(p), false);
    // Up to two records moved anywhere (sometimes unaligned), the arena restated.
    for (int moved = 0; moved < k % 3; ++moved)
      plan.offsets[rng() % p.size()] = (rng() % 24) * (k % 10 == 0 ? 1 : 4);
    plan.arena_bytes = ArenaBytes(p, plan.offsets);
    for (std::size_t r = 0; r < p.size(); ++r)
      placement[slot_of_record[r]].offset = plan.offsets[r];
    const auto verify = [&](Bytes arena) {
      return cpuplan::VerifyFewPlacements(placement, p.alignment, arena, "scaled");
    };
    if (p.size() > 64) {
      EXPECT_FALSE(verify(plan.arena_bytes + 1)) << k;  // nothing checked
      continue;
    }
    const bool valid = FindViolations(p, plan, 1).empty();
    rejected += valid ? 0 : 1;
    if (valid)
      EXPECT_TRUE(verify(plan.arena_bytes)) << k;
    else
      EXPECT_THROW(verify(plan.arena_bytes), InternalError) << k;
    EXPECT_THROW(verify(plan.arena_bytes + 1), InternalError) << k;
  }
  EXPECT_GT(rejected, 50u);
  EXPECT_LT(rejected, 250u);  // valid layouts too
}

}  // namespace
}  // namespace memplan
