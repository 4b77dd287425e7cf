#pragma once
// The whole arena TensorFlow Lite Micro needs for a model on a target
// (include/memplan/tflm_target.h) as `memplan arena` reports it: PrintAllocations' lines and
// the arena sizes to paste, the ops whose memory is unknown, the refusal of a model TFLM's
// kernels will not run, and the figures as JSON.
#include <nlohmann/json.hpp>
#include <string>

#include "memplan/tflm_target.h"

namespace memplan {

// PrintAllocations' lines, arena_used_bytes(), the smallest tensor_arena_size with and
// without the recording interpreter (as lines to paste) and the two-buffer sizes; every
// figure marked as a lower bound when an op's memory is unknown.
std::string TflmArenaText(const TflmArenaFigures& figures);

// One "LOWER BOUND: ..." line per group of ops whose memory is not modelled.
std::string TflmOpNotesText(const TflmOpCheck& check);

// Why TFLM will refuse `model` on `target`: a line, then every refused op and why.
std::string TflmRefusalText(const std::string& model, const TargetAbi& target,
                            const TflmOpCheck& check);

// {"model", "target", "kernels", "tflm_commit", "head", "tail", ..., "categories",
//  "unsupported_ops", "unmodelled_ops"}.
nlohmann::ordered_json TflmArenaJson(const std::string& model, const TflmArenaFigures& figures);

}  // namespace memplan
