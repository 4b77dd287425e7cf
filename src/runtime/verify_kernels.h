#pragma once
// The verification kernels' pieces, shared by the generic checksum kernel
// (verification_kernels.cc) and the kernels of ops that may share memory in place
// (sharing_kernels.cc).
#include <cstdint>

#include "memplan/kernel.h"

namespace memplan::runtime {

struct VerifyOpData {
  std::uint64_t seed = 0;  // op identity: node index and op type
};

// Init of every verification kernel: the op's seed in persistent memory.
void* InitVerify(OpContext& context);

// The checksum kernel: every output a stream of the hash of every input byte, then
// everything read back (an output over a live input of the same op changes the result).
void EvalVerifyGeneric(OpContext& context);

// Reshape-like ops (ShareKind::kAlias): output 0 gets input 0's bytes unchanged, in
// every layout. Falls back to the generic kernel where the op is not shaped for it.
void EvalAlias(OpContext& context);

// Element-wise ops (ShareKind::kOverwrite): output word w from word w of every input,
// written after it was read, so output 0 may be its input's memory. Falls back to the
// generic kernel where the op is not shaped for it.
void EvalElementwise(OpContext& context);

}  // namespace memplan::runtime
