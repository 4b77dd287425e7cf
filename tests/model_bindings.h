#pragma once
// What some shared models leave open, bound the way a user would with --shape and --dim:
// the outputs of the custom ops TFLite_Detection_PostProcess and PosenetDecoderOp, as
// their options size them (docs/import.md), and the symbolic dimensions of the ONNX
// decoder. Tests and benchmarks load shared models through SharedModelOptions.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memplan/workload.h"

namespace memplan::testing {

inline std::vector<std::pair<std::string, std::vector<std::int64_t>>> KernelSizedShapes(
    std::string_view file) {
  if (file.find("ssd_mobilenet") != std::string_view::npos)
    return {{"TFLite_Detection_PostProcess", {1, 10, 4}},
            {"TFLite_Detection_PostProcess:1", {1, 10}},
            {"TFLite_Detection_PostProcess:2", {1, 10}},
            {"TFLite_Detection_PostProcess:3", {1}}};
  if (file.find("posenet") != std::string_view::npos)
    return {{"poses", {1, 20, 17, 2}},
            {"poses:1", {1, 20, 17}},
            {"poses:2", {1, 20}},
            {"poses:3", {1}}};
  return {};
}

// The symbolic dimensions a shared model leaves open, bound as its MANIFEST.tsv line
// suggests (the LFM2 decoder: 25 tensors, 16 ops with these values).
inline std::vector<std::pair<std::string, std::int64_t>> OpenDimensions(std::string_view file) {
  if (file.find("tiny_random_lfm2_decoder") != std::string_view::npos)
    return {{"batch_size", 1},
            {"sequence_length", 16},
            {"past_sequence_length", 16},
            {"total_sequence_length", 32}};
  return {};
}

// Load options with those shapes and dimensions bound (none for the other models).
inline LoadOptions SharedModelOptions(std::string_view file) {
  LoadOptions options;
  options.shapes = KernelSizedShapes(file);
  options.dims = OpenDimensions(file);
  return options;
}

}  // namespace memplan::testing
