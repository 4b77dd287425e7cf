#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "memplan/error.h"
#include "memplan/records_io.h"

namespace memplan {

std::string ReadFileBytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: is a directory, not a file", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: read failed", path.string()));
  return std::move(buffer).str();
}

void WriteFileAtomically(const std::filesystem::path& path, std::string_view content) {
  std::random_device entropy;
  const auto temp = std::filesystem::path(
      path.string() + fmt::format(".tmp{:08x}", static_cast<unsigned>(entropy())));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw InputError(fmt::format("{}: write failed", path.string()));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw InputError(fmt::format("{}: cannot replace: {}", path.string(), ec.message()));
  }
}

std::pair<std::size_t, std::size_t> LineColumn(std::string_view text, std::size_t position) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < position && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace memplan
