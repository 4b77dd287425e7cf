#pragma once
// The shapes two shared models leave to their custom ops (anchors.md §2.4): the
// outputs of TFLite_Detection_PostProcess and PosenetDecoderOp, as their options size
// them. Tests and benchmarks bind them the way a user would with --shape.
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

// Load options with those shapes bound (none for the other models).
inline LoadOptions SharedModelOptions(std::string_view file) {
  LoadOptions options;
  options.shapes = KernelSizedShapes(file);
  return options;
}

}  // namespace memplan::testing
