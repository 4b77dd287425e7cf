#include "tools/batch_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string_view>

#include "memplan/error.h"

namespace memplan::cli {

namespace {

// What memplan reads (see LoadWorkload); other files in a folder are left alone.
bool Readable(const std::filesystem::path& path) {
  constexpr std::array<std::string_view, 4> kExtensions = {".tflite", ".onnx", ".json", ".csv"};
  const std::string ext = path.extension().string();
  return std::find(kExtensions.begin(), kExtensions.end(), ext) != kExtensions.end();
}

}  // namespace

BatchInputs ExpandInputs(const std::vector<std::string>& args) {
  BatchInputs out;
  out.batch = args.size() > 1;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (arg.starts_with("zoo:") || !std::filesystem::is_directory(arg, ec)) {
      out.inputs.push_back(arg);
      continue;
    }
    out.batch = true;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(arg, ec))
      if (entry.is_regular_file(ec) && Readable(entry.path()))
        files.push_back(entry.path().string());
    if (ec) throw InputError(fmt::format("{}: cannot list the folder: {}", arg, ec.message()));
    if (files.empty())
      throw InputError(
          fmt::format("{}: no .tflite, .onnx, .json or .csv file in this folder", arg));
    std::sort(files.begin(), files.end());
    out.inputs.insert(out.inputs.end(), files.begin(), files.end());
  }
  return out;
}

}  // namespace memplan::cli
