// CSV lines and fields for the records readers.
#include "src/formats/csv_fields.h"

#include <fmt/format.h>

#include <charconv>

#include "memplan/error.h"

namespace memplan::formats {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::vector<Field> SplitLine(std::string_view line) {
  std::vector<Field> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    const std::string_view raw = line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    fields.push_back({Trim(raw), start + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

std::int64_t Integer(const Field& f, std::string_view source, std::size_t line,
                     std::string_view column_name) {
  std::int64_t value = 0;
  const char* end = f.text.data() + f.text.size();
  auto [ptr, ec] = std::from_chars(f.text.data(), end, value);
  if (f.text.empty() || ec != std::errc() || ptr != end)
    throw InputError(fmt::format("{}:{}:{}: {} '{}' is not an integer{}", source, line, f.column,
                                 column_name, f.text,
                                 ec == std::errc::result_out_of_range ? " (out of range)" : ""));
  return value;
}

}  // namespace memplan::formats
