// Verification kernels for the ops an in-place rule set may let share memory
// (include/memplan/inplace.h). They compute what a real kernel on shared memory can, in
// every layout, so an in-place arena and a naive layout give the same bytes:
//  - reshape-like ops (alias): output 0 = input 0's bytes (a copy, nothing to do when
//    both are one buffer); the other inputs (a shape) cannot reach the output;
//  - element-wise ops (overwrite): output word w (8 bytes) from word w of every input,
//    read just before it is written; a smaller input is read cyclically (a broadcast).
//    Every byte of every input reaches the output.
// Both also hash the inputs that are not output 0's own memory before and after writing
// and fold the difference into output 0: nothing in a correct layout, a changed output
// when an output was placed over an input that is not its to overwrite.
// The checksum kernel remains for everything else: ops not shaped for these (an input
// larger than the output, variables of an alias op, control flow, scratch).
#include <algorithm>
#include <cstring>

#include "src/runtime/hash_stream.h"
#include "src/runtime/verify_kernels.h"

namespace memplan::runtime {

namespace {

constexpr std::uint64_t kWordMix = 0x9e3779b97f4a7c15ULL;

std::size_t Words(std::span<const std::byte> data) {
  return (data.size() + 7) / 8;
}

// Word w of `data`, the last one zero-padded.
std::uint64_t LoadWord(std::span<const std::byte> data, std::size_t w) {
  const std::size_t at = 8 * w;
  std::uint64_t v = 0;
  std::memcpy(&v, data.data() + at, std::min<std::size_t>(8, data.size() - at));
  return v;
}

void StoreWord(std::span<std::byte> data, std::size_t w, std::uint64_t v) {
  const std::size_t at = 8 * w;
  std::memcpy(data.data() + at, &v, std::min<std::size_t>(8, data.size() - at));
}

bool InArena(const TensorView& view) {
  return view.present() && !view.tensor->is_constant && !view.data.empty();
}

bool SameMemory(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.data() == b.data() && a.size() == b.size();
}

// The hash of every arena input except those that are exactly `own` (the output's
// memory, legitimately overwritten).
std::uint64_t OthersHash(OpContext& context, std::span<const std::byte> own) {
  std::uint64_t h = 0x1f2e3d4c5b6a7988ULL;
  for (std::size_t i = 0; i < context.num_inputs(); ++i) {
    const TensorView in = context.input(i);
    if (InArena(in) && !SameMemory(in.data, own)) h = Absorb(h ^ i, in.data);
  }
  return h;
}

// Changes output 0 when an input other than its own memory changed while writing.
void FoldDamage(std::span<std::byte> out, std::uint64_t before, std::uint64_t after) {
  if (before == after || out.empty()) return;
  out[0] ^= static_cast<std::byte>(Mix64(before ^ after) | 1);
}

// Outputs after the first: streams of output 0 (they never share).
void WriteOtherOutputs(OpContext& context, std::uint64_t seed) {
  const std::uint64_t h = Absorb(seed, context.output(0).data);
  for (std::size_t j = 1; j < context.num_outputs(); ++j) {
    const TensorView out = context.output(j);
    if (InArena(out)) FillStream(out.data, Mix64(h + j));
  }
}

bool Shaped(OpContext& context) {
  if (context.num_outputs() == 0 || !InArena(context.output(0))) return false;
  if (!context.op().called_subgraphs.empty() || context.num_scratch() > 0) return false;
  return true;
}

bool AliasShaped(OpContext& context) {
  if (!Shaped(context) || context.num_inputs() == 0) return false;
  const TensorView in = context.input(0);
  if (!InArena(in) || in.data.size() != context.output(0).data.size()) return false;
  for (std::size_t i = 0; i < context.num_inputs(); ++i) {
    const TensorView other = context.input(i);
    if (other.present() && other.tensor->is_variable) return false;
  }
  return true;
}

bool ElementwiseShaped(OpContext& context) {
  if (!Shaped(context)) return false;
  const std::size_t n = context.output(0).data.size();
  for (std::size_t i = 0; i < context.num_inputs(); ++i) {
    const TensorView in = context.input(i);
    if (InArena(in) && in.data.size() > n) return false;
  }
  return true;
}

std::uint64_t Seed(OpContext& context) {
  return static_cast<const VerifyOpData*>(context.op_data())->seed;
}

}  // namespace

void EvalAlias(OpContext& context) {
  if (!AliasShaped(context)) return EvalVerifyGeneric(context);
  const TensorView in = context.input(0);
  const TensorView out = context.output(0);
  const std::uint64_t before = OthersHash(context, out.data);
  // memmove: a layout may overlap the two in part; the bytes still arrive unchanged.
  if (in.data.data() != out.data.data())
    std::memmove(out.data.data(), in.data.data(), out.data.size());
  WriteOtherOutputs(context, Seed(context));
  FoldDamage(out.data, before, OthersHash(context, out.data));
}

void EvalElementwise(OpContext& context) {
  if (!ElementwiseShaped(context)) return EvalVerifyGeneric(context);
  // Inputs outside the arena (constants, absent optionals, empty tensors) count by identity.
  std::uint64_t seed = Seed(context);
  std::vector<std::span<const std::byte>> streams;
  for (std::size_t i = 0; i < context.num_inputs(); ++i) {
    const TensorView in = context.input(i);
    if (InArena(in))
      streams.push_back(in.data);
    else if (!in.present())
      seed = Mix64(seed ^ (0xa5a5ULL + i));
    else
      seed = Mix64(seed ^ Mix64(static_cast<std::uint64_t>(in.ref.tensor) + 31 * i));
  }
  const TensorView out = context.output(0);
  const std::uint64_t before = OthersHash(context, out.data);
  const std::size_t words = Words(out.data);
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t h = seed ^ (w * kWordMix);
    for (const auto& s : streams) h = Mix64(h ^ LoadWord(s, w % Words(s)));
    StoreWord(out.data, w, h);
  }
  WriteOtherOutputs(context, seed);
  FoldDamage(out.data, before, OthersHash(context, out.data));
  // State: read, modify, write, after the inputs were checked.
  const std::uint64_t h = Absorb(seed, out.data);
  for (std::size_t i = 0; i < context.num_inputs(); ++i) {
    const TensorView in = context.input(i);
    if (InArena(in) && in.tensor->is_variable)
      FillStream(in.data, Mix64(Absorb(h ^ (0x4000 + i), in.data)));
  }
}

}  // namespace memplan::runtime
