// The memplan mode's shape signature (src/cpuplan/layout_cache.h): the bytes and types of the
// tensors a plan reads, held as 32-bit words with the high halves apart. Equal signatures are
// what a cache hit trusts, so the words must compare as the bytes do, 4 GiB and above too.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "src/cpuplan/layout_cache.h"

namespace memplan {
namespace {

using cpuplan::ShapeSignature;
using cpuplan::SignedTensors;

constexpr Bytes kFourGiB = Bytes{1} << 32;

std::vector<CpuTensor> Tensors(const std::vector<Bytes>& bytes) {
  std::vector<CpuTensor> tensors;
  for (const Bytes b : bytes) tensors.push_back({b, CpuAllocationType::kArenaRw});
  return tensors;
}

ShapeSignature SignatureOf(const std::vector<CpuTensor>& tensors) {
  SignedTensors signed_tensors;
  signed_tensors.Reset(tensors);
  ShapeSignature signature;
  signature.Reset(tensors, signed_tensors);
  return signature;
}

TEST(CpuPlannerSignature, KeepsEveryEntrysBytesAndType) {
  std::vector<CpuTensor> tensors = Tensors({64, kFourGiB + 64, 3 * kFourGiB, 0, 1000});
  tensors[3].type = CpuAllocationType::kArenaRwPersistent;
  const ShapeSignature s = SignatureOf(tensors);
  ASSERT_EQ(s.size(), tensors.size());
  for (std::size_t e = 0; e < tensors.size(); ++e) {
    EXPECT_EQ(s.bytes(e), tensors[e].bytes) << "entry " << e;
    EXPECT_EQ(s.type(e), tensors[e].type) << "entry " << e;
  }
}

TEST(CpuPlannerSignature, BytesThatDifferOnlyAbove32BitsDiffer) {
  const ShapeSignature small = SignatureOf(Tensors({64, 128}));
  const ShapeSignature large = SignatureOf(Tensors({64, kFourGiB + 128}));
  const ShapeSignature larger = SignatureOf(Tensors({64, 2 * kFourGiB + 128}));
  EXPECT_FALSE(small == large);
  EXPECT_FALSE(large == small);
  EXPECT_FALSE(large == larger);
  EXPECT_TRUE(large == SignatureOf(Tensors({64, kFourGiB + 128})));
}

TEST(CpuPlannerSignature, ASignatureBackBelow4GiBEqualsOneThatNeverLeft) {
  const std::vector<CpuTensor> tensors = Tensors({64, 128, 256});
  ShapeSignature s = SignatureOf(tensors);
  s.Set(1, kFourGiB + 128, CpuAllocationType::kArenaRw);
  EXPECT_FALSE(s == SignatureOf(tensors));
  s.Set(1, 128, CpuAllocationType::kArenaRw);
  EXPECT_EQ(s.hash(), SignatureOf(tensors).hash());
  EXPECT_TRUE(s == SignatureOf(tensors));
  EXPECT_TRUE(SignatureOf(tensors) == s);
}

TEST(CpuPlannerSignature, TypesAndAppendedEntriesCount) {
  const std::vector<CpuTensor> tensors = Tensors({64, 128, 256, 512, 1024});
  ShapeSignature s = SignatureOf(tensors);
  s.Set(4, 1024, CpuAllocationType::kArenaRwPersistent);
  EXPECT_FALSE(s == SignatureOf(tensors));
  s.Set(4, 1024, CpuAllocationType::kArenaRw);
  EXPECT_TRUE(s == SignatureOf(tensors));
  ShapeSignature longer = s;
  longer.Append(kFourGiB, CpuAllocationType::kArenaRw);
  EXPECT_FALSE(longer == s);
  EXPECT_EQ(longer.size(), 6u);
  EXPECT_EQ(longer.bytes(5), kFourGiB);
  for (std::size_t e = 0; e < 5; ++e) EXPECT_EQ(longer.bytes(e), tensors[e].bytes);
}

}  // namespace
}  // namespace memplan
