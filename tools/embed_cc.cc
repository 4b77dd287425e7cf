// The C++ source output of memplan embed (tools/embed_cc.h).
#include "tools/embed_cc.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "memplan/error.h"
#include "memplan/records_io.h"

namespace memplan::cli {

namespace {

bool HasCcExtension(const std::string& out) {
  std::string extension = std::filesystem::path(out).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::array<std::string, 3> kSource = {".cc", ".cpp", ".cxx"};
  return std::find(kSource.begin(), kSource.end(), extension) != kSource.end();
}

// Fails early with the path and the reason when a file cannot be created or replaced there,
// so that neither file is written when one of them could not be.
void CheckWritable(const std::filesystem::path& path) {
  const std::filesystem::path probe = path.string() + ".memplan-probe";
  {
    std::ofstream out(probe, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
  }
  std::error_code ignored;
  std::filesystem::remove(probe, ignored);
}

}  // namespace

bool EmitsCcSource(const std::string& emit, const std::string& out) {
  const bool cc_name = HasCcExtension(out);
  if (emit.empty()) return cc_name;
  if (emit == "cc" && !cc_name)
    throw UsageError(fmt::format(
        "C++ source goes to a file named NAME.cc (or .cpp, .cxx), with NAME.h beside it; '{}' "
        "is not one",
        out));
  if (emit == "tflite" && cc_name)
    throw UsageError(
        fmt::format("a .tflite model would be written to the C++ source file '{}'", out));
  return emit == "cc";
}

CcOutputs CcOutputsFor(const std::string& out) {
  CcOutputs outputs;
  outputs.source = out;
  outputs.header = std::filesystem::path(out).replace_extension(".h");
  return outputs;
}

void WriteCcOutputs(const CcOutputs& outputs, const CcModelFiles& files) {
  CheckWritable(outputs.header);
  CheckWritable(outputs.source);
  WriteFileAtomically(outputs.header, files.header);
  WriteFileAtomically(outputs.source, files.source);
}

}  // namespace memplan::cli
