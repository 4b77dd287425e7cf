#include "memplan/table.h"

#include <fmt/format.h>

#include <algorithm>

namespace memplan {

namespace {

// Display width: counts UTF-8 code points, not bytes, so '×' and '…' align.
std::size_t Width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

}  // namespace

std::string RenderTable(const std::vector<TableColumn>& columns,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) width[c] = Width(columns[c].header);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < columns.size() && c < row.size(); ++c)
      width[c] = std::max(width[c], Width(row[c]));

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - Width(cell), ' ');
      if (c) out += "  ";
      out += columns[c].right_aligned ? pad + cell : cell + pad;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<std::string> header;
  for (const auto& col : columns) header.push_back(col.header);
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string WithThousands(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string HumanBytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  std::string number = fmt::format("{:.2f}", value);
  while (number.back() == '0') number.pop_back();
  if (number.back() == '.') number.pop_back();
  return number + " " + kUnits[unit];
}

}  // namespace memplan
