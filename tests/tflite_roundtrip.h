#pragma once
// Graphs go through a real .tflite file in tests: writer -> bytes -> reader.
#include <string>

#include "memplan/tflite.h"

namespace memplan::testing {

// Writes `graph` as .tflite and reads it back (source "test.tflite").
inline TfliteModel ThroughTflite(const Graph& graph, const TfliteWriteOptions& options = {}) {
  return ParseTflite(WriteTflite(graph, options), "test.tflite");
}

}  // namespace memplan::testing
