#pragma once
// Text and numbers for SVG/HTML output.
#include <string>
#include <string_view>

namespace memplan::report {

// Escapes &, <, >, " and ' and replaces what XML 1.0 forbids (control characters,
// invalid UTF-8) with '?', so any tensor name yields well-formed XML.
std::string XmlEscape(std::string_view text);

// A coordinate with at most two decimals and no trailing zeros: 12.5, 3, 0.07.
std::string Coord(double value);

// Cuts `text` to at most `max_chars` code points, ending in "…" when cut.
std::string Ellipsize(std::string_view text, std::size_t max_chars);

// Keeps the end of `text` (where tensor names differ: ".../conv_3/Relu6"), starting with
// "…" when cut, at most `max_chars` code points in all.
std::string EllipsizeFront(std::string_view text, std::size_t max_chars);

// Code points in UTF-8 text (its approximate width in characters).
std::size_t CodePoints(std::string_view text);

}  // namespace memplan::report
