#pragma once
// A model as C++ source for firmware: a header and a source file that hold the model's bytes
// as a 16-byte-aligned array and its TensorFlow Lite Micro arena sizes as constants, in a
// namespace of their own so that several models link into one program. The text is plain
// C++11 (firmware toolchains are often old), the same for the same input byte for byte.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/tflm_target.h"

namespace memplan {

// What goes into the two files.
struct CcModelSource {
  std::string name;              // the namespace; a C identifier (CcIdentifierProblem)
  std::string header_file;       // the header's file name, as the source file includes it
  std::string_view model;        // the model's bytes, as the firmware will load them
  TflmArenaFigures arena;        // the arena TFLM needs for exactly these bytes
  std::string kernels;           // the kernels the figures are for ("reference", ...)
  std::string generator;         // what wrote it, e.g. "memplan 0.1.0"
  std::vector<std::string> how;  // the call that made it, one line each (comments)
};

struct CcModelFiles {
  std::string header;  // NAME.h: declarations and the constants
  std::string source;  // NAME.cc: the array
};

// The two files' text. UsageError when `name` is not a usable identifier.
CcModelFiles WriteCcModelSource(const CcModelSource& source);

// Why `name` cannot name the namespace (not a C identifier, a C or C++ keyword, or reserved
// for the implementation), empty when it can.
std::string CcIdentifierProblem(std::string_view name);

// An identifier made from a file name's stem: "person_detect_96_int8.tflite" gives
// "person_detect_96_int8"; other characters become '_', and "model_" goes before a stem
// that would not start as an identifier may.
std::string CcIdentifierFromFileName(std::string_view file_name);

}  // namespace memplan
