#pragma once
// Plain-text tables for terminals: aligned columns, numbers right-aligned.

#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

struct TableColumn {
  std::string header;
  bool right_aligned = false;  // numbers are right-aligned
};

// Renders rows under a header row; every row has one cell per column.
std::string RenderTable(const std::vector<TableColumn>& columns,
                        const std::vector<std::vector<std::string>>& rows);

// 27591112 -> "27,591,112".
std::string WithThousands(std::uint64_t value);

// Bytes in the largest binary unit that keeps the number >= 1, with up to two decimals:
// 124 -> "124 B", 1536 -> "1.5 KiB", 27591112 -> "26.31 MiB".
std::string HumanBytes(std::uint64_t bytes);

}  // namespace memplan
