// Checks what memplan_tflm_model compiled into this program against the command's own
// outputs: the array is the model `memplan embed -o x.tflite` writes, byte for byte, and each
// constant is the figure `memplan arena x.tflite --format json` gives on its target.
//   firmware_check EMBEDDED.tflite ARENA_ARM32.json ARENA_HOST64.json
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "model_arm32.h"
#include "model_host64.h"

namespace {

int failures = 0;

void Expect(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok) ++failures;
}

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool SameBytes(const std::string& expected, const unsigned char* model, std::size_t size) {
  return !expected.empty() && expected.size() == size &&
         expected.compare(0, size, reinterpret_cast<const char*>(model), size) == 0;
}

void CheckSizes(const char* json_path, const char* target, std::size_t arena,
                std::size_t persistent, std::size_t non_persistent) {
  const nlohmann::json j = nlohmann::json::parse(ReadFile(json_path));
  const std::string prefix = std::string(target) + ": ";
  Expect(j.at("target") == target, prefix + "the arena figures are for this target");
  Expect(j.at("minimal_arena_bytes_micro_interpreter") == arena,
         prefix + "kTensorArenaSize " + std::to_string(arena));
  Expect(j.at("two_buffers").at("persistent_safe") == persistent,
         prefix + "kPersistentArenaSize " + std::to_string(persistent));
  Expect(j.at("two_buffers").at("non_persistent") == non_persistent,
         prefix + "kNonPersistentArenaSize " + std::to_string(non_persistent));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr,
                 "usage: firmware_check EMBEDDED.tflite ARENA_ARM32.json "
                 "ARENA_HOST64.json\n");
    return 2;
  }
  const std::string embedded = ReadFile(argv[1]);
  Expect(SameBytes(embedded, model_arm32::kModel, model_arm32::kModelSize),
         "model_arm32::kModel is memplan embed's model (" + std::to_string(embedded.size()) +
             " bytes)");
  Expect(SameBytes(embedded, model_host64::kModel, model_host64::kModelSize),
         "model_host64::kModel is the same model");
  Expect(reinterpret_cast<std::uintptr_t>(model_arm32::kModel) % 16 == 0,
         "the array is 16-byte aligned");
  CheckSizes(argv[2], "arm32", model_arm32::kTensorArenaSize, model_arm32::kPersistentArenaSize,
             model_arm32::kNonPersistentArenaSize);
  CheckSizes(argv[3], "host64", model_host64::kTensorArenaSize, model_host64::kPersistentArenaSize,
             model_host64::kNonPersistentArenaSize);
  return failures == 0 ? 0 : 1;
}
