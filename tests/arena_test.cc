// The arena's sections, alignment, accounting and TFLM's failure messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "memplan/arena.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using ::testing::HasSubstr;

// A buffer whose start is `misalign` bytes past a 64-byte boundary.
struct Buffer {
  explicit Buffer(std::size_t size, std::size_t misalign = 0) : storage(size + 64 + misalign) {
    const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
    const std::size_t skip = (64 - base % 64) % 64 + misalign;
    span = std::span<std::byte>(storage.data() + skip, size);
  }
  std::vector<std::byte> storage;
  std::span<std::byte> span;
};

TEST(Arena, RoundsTheStartUpAndShrinksTheSize) {
  Buffer b(1000, 3);
  Arena arena(b.span);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(arena.head_start()) % 16, 0u);
  EXPECT_EQ(arena.head_start(), b.span.data() + 13);
  EXPECT_EQ(arena.capacity(), 1000u - 13);
  Arena aligned(Buffer(1000).span, 64);
  EXPECT_EQ(aligned.alignment(), 64u);
}

TEST(Arena, RejectsAnAlignmentThatIsNotAPowerOfTwo) {
  Buffer b(100);
  EXPECT_THROW(Arena(b.span, 24), UsageError);
}

TEST(Arena, TailGrowsDownAlignedAndIsTallied) {
  Buffer b(256);
  Arena arena(b.span);
  std::byte* first = arena.AllocatePersistent(10, 16, ArenaAllocation::kEvalTensorData, 5);
  EXPECT_EQ(first, b.span.data() + 240);
  std::byte* second = arena.AllocatePersistent(20, 16, ArenaAllocation::kEvalTensorData);
  EXPECT_EQ(second, b.span.data() + 208);
  EXPECT_EQ(arena.PersistentUsedBytes(), 48u);
  const ArenaTally& t = arena.Tally(ArenaAllocation::kEvalTensorData);
  EXPECT_EQ(t.requested, 30u);
  EXPECT_EQ(t.used, 48u);
  EXPECT_EQ(t.count, 6u);
}

TEST(Arena, TailFailureSaysWhatIsMissingInTflmWords) {
  Buffer b(128);
  Arena arena(b.span);
  arena.ResizeHead(64);
  EXPECT_EQ(testing::ErrorMessage<std::exception>(
                [&] { arena.AllocatePersistent(96, 16, ArenaAllocation::kOpData); }),
            "Failed to allocate tail memory. Requested: 96, available 64, missing: 32");
  try {
    arena.AllocatePersistent(96, 16, ArenaAllocation::kOpData);
  } catch (const ArenaTooSmall& e) {
    EXPECT_EQ(e.requested(), 96u);
    EXPECT_EQ(e.available(), 64u);
    EXPECT_EQ(e.missing(), 32u);
  }
  EXPECT_NO_THROW(arena.AllocatePersistent(64, 16, ArenaAllocation::kOpData));
}

TEST(Arena, HeadResizesUpToTheTail) {
  Buffer b(256);
  Arena arena(b.span);
  arena.AllocatePersistent(64, 16, ArenaAllocation::kPersistentBufferData);
  arena.ResizeHead(192);
  EXPECT_EQ(arena.head_bytes(), 192u);
  EXPECT_EQ(testing::ErrorMessage<std::exception>([&] { arena.ResizeHead(200); }),
            "Failed to resize buffer. Requested: 200, available 192, missing: 8");
  arena.ResizeHead(16);
  EXPECT_EQ(arena.head_bytes(), 16u);
}

TEST(Arena, HeadCannotResizeWhileTempIsHeld) {
  Buffer b(256);
  Arena arena(b.span);
  std::byte* p = arena.AllocateTemp(10, 16);
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { arena.ResizeHead(32); }),
              HasSubstr("ResetTempAllocations() is not called before ResizeBuffer()"));
  arena.DeallocateTemp(p);
  // Released but not reset: TFLM still refuses.
  EXPECT_THROW(arena.ResizeHead(32), UsageError);
  arena.ResetTemp();
  EXPECT_NO_THROW(arena.ResizeHead(32));
}

TEST(Arena, TempSitsAboveTheHeadAndIsReleasedTogether) {
  Buffer b(512);
  Arena arena(b.span);
  arena.ResizeHead(100);
  std::byte* a = arena.AllocateTemp(10, 16);
  std::byte* c = arena.AllocateTemp(40, 16);
  EXPECT_EQ(a, arena.head_start() + 112);
  EXPECT_EQ(c, arena.head_start() + 128);
  EXPECT_EQ(arena.NonPersistentUsedBytes(), 168u);
  EXPECT_EQ(arena.temp_held(), 2u);
  arena.DeallocateTemp(a);
  arena.DeallocateTemp(c);
  arena.ResetTemp();
  EXPECT_EQ(arena.NonPersistentUsedBytes(), 100u);
  EXPECT_EQ(arena.PeakUsedBytes(), 168u);
  EXPECT_EQ(arena.PeakTempBytes(), 68u);
  // Memory is reused after the reset.
  EXPECT_EQ(arena.AllocateTemp(8, 16), a);
}

TEST(Arena, ResetFailsWhileATempIsHeldOrTheChecksumIsWrong) {
  Buffer b(512);
  Arena arena(b.span);
  std::byte* a = arena.AllocateTemp(10, 16);
  std::byte* c = arena.AllocateTemp(10, 16);
  arena.DeallocateTemp(a);
  EXPECT_EQ(testing::ErrorMessage<std::exception>([&] { arena.ResetTemp(); }),
            "Number of allocated temp buffers: 1. Checksum passing status: 0. All temp buffers "
            "must be freed before calling ResetTempAllocations()");
  // Releasing the wrong pointer leaves the count at zero but the checksum wrong.
  arena.DeallocateTemp(a);
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { arena.ResetTemp(); }),
              HasSubstr("Number of allocated temp buffers: 0. Checksum passing status: 0"));
  (void)c;
}

TEST(Arena, TempFailureSaysWhatIsMissing) {
  Buffer b(128);
  Arena arena(b.span);
  arena.AllocatePersistent(32, 16, ArenaAllocation::kOpData);
  arena.ResizeHead(32);
  EXPECT_EQ(arena.AvailableMemory(16), 64u);
  EXPECT_EQ(testing::ErrorMessage<std::exception>([&] { arena.AllocateTemp(80, 16); }),
            "Failed to allocate temp memory. Requested: 80, available 64, missing: 16");
}

TEST(Arena, TailNeverGrowsIntoLiveTemp) {
  Buffer b(128);
  Arena arena(b.span);
  arena.AllocateTemp(100, 16);
  EXPECT_THROW(arena.AllocatePersistent(32, 16, ArenaAllocation::kOpData), ArenaTooSmall);
}

TEST(Arena, ReserveHeadKeepsTheLargestRequest) {
  Buffer b(512);
  Arena arena(b.span);
  arena.ReserveHead(200);
  arena.ReserveHead(100);
  EXPECT_EQ(arena.head_bytes(), 200u);
  EXPECT_EQ(arena.reserved_head_bytes(), 200u);
  arena.ResizeHead(16);  // a model's scratch-request list shrinks it for a while
  arena.ReserveHead(150);
  EXPECT_EQ(arena.head_bytes(), 200u);
}

TEST(Arena, AccountingMatchesTflmNames) {
  Buffer b(1024);
  Arena arena(b.span);
  arena.AllocatePersistent(40, 16, ArenaAllocation::kNodeAndRegistration, 2);
  arena.ResizeHead(300);
  EXPECT_EQ(arena.PersistentUsedBytes(), 48u);
  EXPECT_EQ(arena.NonPersistentUsedBytes(), 300u);
  EXPECT_EQ(arena.UsedBytes(), 348u);
  EXPECT_EQ(arena.requested_head_bytes(), 300u);
}

TEST(Arena, TwoBuffersKeepTheSectionsApart) {
  Buffer persistent(64), non_persistent(256);
  Arena arena(persistent.span, non_persistent.span);
  EXPECT_TRUE(arena.two_buffers());
  EXPECT_EQ(arena.capacity(), 320u);
  std::byte* p = arena.AllocatePersistent(48, 16, ArenaAllocation::kOpData);
  EXPECT_GE(p, persistent.span.data());
  EXPECT_LT(p, persistent.span.data() + 64);
  // The tail takes nothing from the head's buffer.
  EXPECT_NO_THROW(arena.ResizeHead(256));
  EXPECT_EQ(testing::ErrorMessage<std::exception>([&] { arena.ResizeHead(257); }),
            "Failed to resize buffer. Requested: 257, available 256, missing: 1");
  EXPECT_EQ(testing::ErrorMessage<std::exception>(
                [&] { arena.AllocatePersistent(32, 16, ArenaAllocation::kOpData); }),
            "Failed to allocate tail memory. Requested: 32, available 16, missing: 16");
  arena.ResizeHead(200);
  EXPECT_EQ(arena.AvailableMemory(16), 48u);
  std::byte* t = arena.AllocateTemp(48, 16);
  EXPECT_EQ(t, arena.head_start() + 208);
  EXPECT_THAT(testing::ErrorMessage<std::exception>([&] { arena.ResizeHead(10); }),
              HasSubstr("ResetTempAllocations()"));
}

TEST(Arena, NamesEveryKindAsTflmPrintsIt) {
  EXPECT_STREQ(ArenaAllocationName(ArenaAllocation::kEvalTensorData).name, "TfLiteEvalTensor data");
  EXPECT_STREQ(ArenaAllocationName(ArenaAllocation::kNodeAndRegistration).unit,
               "NodeAndRegistration structs");
  EXPECT_STREQ(ArenaAllocationName(ArenaAllocation::kVariableBufferData).name,
               "TfLiteTensor variable buffer data");
}

}  // namespace
}  // namespace memplan
