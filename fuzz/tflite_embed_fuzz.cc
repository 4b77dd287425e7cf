// libFuzzer target for `memplan embed`: any bytes through the .tflite reader; when they
// read, EmbedInTflite writes a trivial offline plan into them and the output must read
// back as the same graph carrying that plan. EmbedInTflite may refuse a model it cannot
// reproduce (InputError); once it returns bytes, any failure to read them is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "memplan/error.h"
#include "memplan/tflite.h"

namespace {

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "embed round trip failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  memplan::TfliteModel model;
  try {
    model = memplan::ParseTflite(bytes, "fuzz.tflite");
  } catch (const memplan::InputError&) {
    return 0;
  }
  // A trivial plan: every tensor online but the first of each 16 bytes-apart pair, so both
  // -1 and real offsets are written; the embedder does not check the plan, only writes it.
  memplan::TfliteEmbedding embedding;
  const std::size_t tensors = model.graph.TensorCount();
  for (std::size_t i = 0; i < tensors; ++i)
    embedding.offline_offsets.push_back(i % 2 == 0 ? static_cast<std::int32_t>(16 * (i % 1024))
                                                   : -1);
  std::string written;
  try {
    written = memplan::EmbedInTflite(bytes, "fuzz.tflite", embedding);
  } catch (const memplan::InputError&) {
    return 0;
  }
  memplan::TfliteModel back;
  try {
    back = memplan::ParseTflite(written, "embedded.tflite");
  } catch (const memplan::InputError& e) {
    Fail(std::string("the output does not read: ") + e.what());
  }
  const std::string difference = memplan::GraphDifference(model.graph, back.graph);
  if (!difference.empty()) Fail("the graph changed: " + difference);
  if (!back.offline_plan || back.offline_plan->offsets != embedding.offline_offsets)
    Fail("the offline plan did not come back");
  return 0;
}
