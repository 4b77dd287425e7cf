// libFuzzer entry for the ONNX reader: any bytes must either read or end in an
// InputError. Anything else escaping (another exception, a crash, a sanitizer report)
// is a bug; each input that found one is kept in tests/data/onnx_fuzz/ as a regression.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "src/formats/onnx/onnx_isolate.h"

// In-process: a crash inside libonnx must stop the fuzzer (memplan would turn it into an
// InputError from a child process), so that each one is found and checked for beforehand.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  memplan::formats::SetIsolation(false);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    memplan::ReadOnnx(bytes, "fuzz.onnx");
  } catch (const memplan::InputError&) {
    // Rejected cleanly: what bad input should do.
  }
  return 0;
}
