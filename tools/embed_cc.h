#pragma once
// The C++ source output of `memplan embed -o NAME.cc`: which calls ask for it, the two files'
// paths, and writing them.
#include <filesystem>
#include <string>

#include "memplan/cc_source.h"

namespace memplan::cli {

// Whether `embed` writes C++ source: `emit` ("tflite", "cc" or "" for the extension of
// `out`: .cc, .cpp or .cxx). UsageError when the two disagree.
bool EmitsCcSource(const std::string& emit, const std::string& out);

struct CcOutputs {
  std::filesystem::path header;  // NAME.h
  std::filesystem::path source;  // NAME.cc as given
};
CcOutputs CcOutputsFor(const std::string& out);

// Writes both files, each atomically; nothing is written when either cannot be.
void WriteCcOutputs(const CcOutputs& outputs, const CcModelFiles& files);

}  // namespace memplan::cli
