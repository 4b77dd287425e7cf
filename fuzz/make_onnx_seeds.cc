// Writes the ONNX seeds the shared models do not cover: constant folding feeding Resize,
// ONNX Runtime's com.microsoft operators, stored shapes that disagree with inference, and
// opset 18/23 operators (tests/onnx_sample_models.h builds them). Usage:
//   fuzz_make_onnx_seeds DIR
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/onnx_sample_models.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  for (const auto& [name, model] : memplan::testing::SampleOnnxModels()) {
    std::ofstream out(dir / name, std::ios::binary);
    out << model.Bytes();
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", (dir / name).c_str());
      return 1;
    }
  }
  return 0;
}
