// CpuArenaPlanner's buffer growth: what survives when an arena's buffer is allocated anew
// (docs/cpu-planner.md, "Placement"). TensorFlow Lite copies the whole old buffer; the
// memplan mode copies the bytes of the tensors that hold data and keep their offsets, and
// nothing after ResetAllocations. The persistent arena keeps everything in both modes.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "memplan/cpu_arena_planner.h"

namespace memplan {
namespace {

constexpr CpuPlannerMode kModes[] = {CpuPlannerMode::kTfliteCpu, CpuPlannerMode::kMemplan};

// in(0) -> node 0 -> a(1) -> node 1 -> b(2) -> node 2 -> out(3), 64 bytes each, nothing in
// place; `persistent` adds a variable v(4) and makes b persistent too (the persistent arena
// holds v, then b).
CpuGraph Chain(bool persistent = false) {
  CpuGraph g;
  g.tensors.assign(4, {64, CpuAllocationType::kArenaRw});
  g.nodes = {{{0}, {1}, {}, 0}, {{1}, {2}, {}, 0}, {{2}, {3}, {}, 0}};
  g.inputs = {0};
  g.outputs = {3};
  if (persistent) {
    g.tensors.push_back({64, CpuAllocationType::kArenaRwPersistent});
    g.tensors[2].type = CpuAllocationType::kArenaRwPersistent;
    g.variables = {4};
    g.nodes[1].inputs.push_back(4);
  }
  return g;
}

// A planner of Chain(persistent) in `mode`, with every node placed.
std::unique_ptr<CpuArenaPlanner> Placed(CpuPlannerMode mode, bool persistent = false) {
  CpuPlannerOptions options;
  options.mode = mode;
  options.tensor_alignment = 16;
  auto planner = std::make_unique<CpuArenaPlanner>(Chain(persistent), options);
  planner->PlanAllocations();
  planner->ExecuteAllocations(0, 2);
  return planner;
}

// A pattern no fresh buffer holds by chance, different per tensor.
std::vector<std::byte> Pattern(int tensor, Bytes bytes) {
  std::vector<std::byte> out(bytes);
  for (Bytes i = 0; i < bytes; ++i)
    out[i] = static_cast<std::byte>((i * 37 + 11 + static_cast<Bytes>(tensor) * 101) % 251);
  return out;
}

void Write(const CpuArenaPlanner& planner, int tensor) {
  const Bytes bytes = planner.graph().tensors[tensor].bytes;
  std::byte* data = planner.TensorData(tensor);
  ASSERT_NE(data, nullptr) << "tensor " << tensor;
  const std::vector<std::byte> pattern = Pattern(tensor, bytes);
  std::memcpy(data, pattern.data(), bytes);
}

bool Holds(const CpuArenaPlanner& planner, int tensor) {
  const Bytes bytes = planner.graph().tensors[tensor].bytes;
  const std::byte* data = planner.TensorData(tensor);
  return data && std::memcmp(data, Pattern(tensor, bytes).data(), bytes) == 0;
}

TEST(CpuArenaGrowth, EarlyTensorsKeepTheirDataAfterResetAllocationsAfter) {
  // A dynamic-shape run: node 0 ran, node 1's output turns out larger, the nodes after 0
  // are planned again. The input and node 0's output are still needed: their data survives.
  for (const CpuPlannerMode mode : kModes) {
    SCOPED_TRACE(CpuPlannerModeName(mode));
    const auto owner = Placed(mode);
    CpuArenaPlanner& planner = *owner;
    const std::byte* old_base = planner.ArenaBase();
    const Bytes old_bytes = planner.ArenaBufferBytes();
    const std::byte* a_before = planner.TensorData(1);
    Write(planner, 0);
    Write(planner, 1);
    planner.ResizeTensor(2, 4096);
    planner.ResetAllocationsAfter(0);
    planner.ExecuteAllocations(1, 2);
    ASSERT_GT(planner.ArenaBufferBytes(), old_bytes);
    ASSERT_NE(planner.ArenaBase(), old_base);  // the buffer moved
    EXPECT_EQ(planner.TensorData(1) - planner.ArenaBase(), a_before - old_base);
    EXPECT_TRUE(Holds(planner, 0));
    EXPECT_TRUE(Holds(planner, 1));
    const Bytes copied = planner.last_stats().buffer_bytes_copied;
    EXPECT_GT(copied, 0u);
    EXPECT_LE(copied, old_bytes);
    if (mode == CpuPlannerMode::kTfliteCpu) EXPECT_EQ(copied, old_bytes);
  }
}

TEST(CpuArenaGrowth, SecondRangeCallKeepsTheFirstRangesData) {
  // After a reset, ranges one node at a time: the second range's growth keeps the first's.
  for (const CpuPlannerMode mode : kModes) {
    SCOPED_TRACE(CpuPlannerModeName(mode));
    const auto owner = Placed(mode);
    CpuArenaPlanner& planner = *owner;
    planner.ResizeTensor(2, 4096);
    planner.ResetAllocations();
    planner.ExecuteAllocations(0, 0);
    Write(planner, 0);
    Write(planner, 1);
    const std::byte* old_base = planner.ArenaBase();
    planner.ExecuteAllocations(1, 1);
    ASSERT_NE(planner.ArenaBase(), old_base);
    EXPECT_TRUE(Holds(planner, 0));
    EXPECT_TRUE(Holds(planner, 1));
    EXPECT_GT(planner.last_stats().buffer_bytes_copied, 0u);
  }
}

TEST(CpuArenaGrowth, VariablesKeepTheirStateWhenThePersistentArenaGrows) {
  for (const CpuPlannerMode mode : kModes) {
    SCOPED_TRACE(CpuPlannerModeName(mode));
    const auto owner = Placed(mode, true);
    CpuArenaPlanner& planner = *owner;
    const std::byte* old_base = planner.PersistentArenaBase();
    const Bytes old_bytes = planner.PersistentArenaBufferBytes();
    const std::byte* v_before = planner.TensorData(4);
    ASSERT_NE(v_before, nullptr);
    Write(planner, 4);
    planner.ResizeTensor(2, 4096);  // the persistent b, placed after v
    planner.ResetAllocations();
    planner.ExecuteAllocations(0, 2);
    ASSERT_GT(planner.PersistentArenaBufferBytes(), old_bytes);
    ASSERT_NE(planner.PersistentArenaBase(), old_base);
    EXPECT_EQ(planner.TensorData(4) - planner.PersistentArenaBase(), v_before - old_base);
    EXPECT_TRUE(Holds(planner, 4));
  }
}

TEST(CpuArenaGrowth, WholeReplanAfterResetCopiesNothingInMemplanMode) {
  // A new input shape: ResetAllocations, then the whole graph. No tensor had data between
  // the two calls, so the memplan mode copies nothing; TensorFlow Lite copies its old buffer.
  for (const CpuPlannerMode mode : kModes) {
    SCOPED_TRACE(CpuPlannerModeName(mode));
    const auto owner = Placed(mode);
    CpuArenaPlanner& planner = *owner;
    EXPECT_EQ(planner.last_stats().buffer_bytes_copied, 0u);  // the first buffer: no old one
    const std::byte* old_base = planner.ArenaBase();
    const Bytes old_bytes = planner.ArenaBufferBytes();
    for (int t = 0; t < 4; ++t) planner.ResizeTensor(t, 1024);
    planner.ResetAllocations();
    planner.ExecuteAllocations(0, 2);
    ASSERT_NE(planner.ArenaBase(), old_base);
    const Bytes expected = mode == CpuPlannerMode::kTfliteCpu ? old_bytes : 0;
    EXPECT_EQ(planner.last_stats().buffer_bytes_copied, expected);
  }
}

TEST(CpuArenaGrowth, NoGrowthCopiesNothing) {
  for (const CpuPlannerMode mode : kModes) {
    SCOPED_TRACE(CpuPlannerModeName(mode));
    const auto owner = Placed(mode);
    CpuArenaPlanner& planner = *owner;
    const std::byte* old_base = planner.ArenaBase();
    planner.ResizeTensor(2, 32);
    planner.ResetAllocationsAfter(0);
    planner.ExecuteAllocations(1, 2);
    EXPECT_EQ(planner.ArenaBase(), old_base);
    EXPECT_EQ(planner.last_stats().buffer_bytes_copied, 0u);
  }
}

}  // namespace
}  // namespace memplan
