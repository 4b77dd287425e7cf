#pragma once
// Deterministic, well-separated fill colours for the rectangles of a memory map.
#include <cstddef>
#include <string>

namespace memplan::report {

// "#rrggbb" for colour number `key` (a record or an object index). Successive keys
// step the hue by the golden angle, so neighbours in index order stay far apart;
// saturation and lightness cycle so keys whose hues come close still differ.
std::string FillColour(std::size_t key);

}  // namespace memplan::report
