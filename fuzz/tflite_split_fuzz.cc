// libFuzzer target for `memplan split`: any bytes through the rewrite's reader; when they
// read, the first splittable chain (up to three ops) is rewritten as 2x2 patches, and a
// rewrite that returns bytes must read back with memplan's .tflite reader as a valid graph.
// InputError is the only acceptable refusal; anything else is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/error.h"
#include "memplan/split.h"
#include "memplan/tflite.h"

namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "split failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<memplan::SplitChain> chains;
  try {
    chains = memplan::SplittableChains(bytes, "fuzz.tflite");
  } catch (const memplan::InputError&) {
    return 0;
  }
  if (chains.empty()) return 0;
  memplan::SplitRequest request;
  request.stage = memplan::SplitStage{chains[0].ops.first_op,
                                      std::min(chains[0].ops.last_op, chains[0].ops.first_op + 2)};
  request.patches = memplan::PatchGrid{2, 2};
  memplan::SplitResult result;
  try {
    result = memplan::SplitTflite(bytes, "fuzz.tflite", request);
  } catch (const memplan::InputError&) {
    return 0;
  }
  try {
    const memplan::TfliteModel back = memplan::ParseTflite(result.bytes, "split.tflite");
    memplan::ValidateGraph(back.graph);
  } catch (const memplan::InputError& e) {
    // The original may itself break rules the rewrite does not look at (e.g. a tensor
    // another subgraph misuses); only a model that read before must read after.
    try {
      memplan::ValidateGraph(memplan::ParseTflite(bytes, "fuzz.tflite").graph);
    } catch (const memplan::InputError&) {
      return 0;
    }
    Fail(std::string("the rewritten model does not read: ") + e.what());
  }
  return 0;
}
