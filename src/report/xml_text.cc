#include "src/report/xml_text.h"

#include <fmt/format.h>

#include <cmath>

namespace memplan::report {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one.
std::size_t Utf8Length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t n = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF)
    n = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    n = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    n = 4;
  else
    return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  // Overlong three-byte forms, surrogates and code points past U+10FFFF.
  if (n == 3 && lead == 0xE0 && byte(i + 1) < 0xA0) return 0;
  if (n == 3 && lead == 0xED && byte(i + 1) >= 0xA0) return 0;
  if (n == 4 && lead == 0xF0 && byte(i + 1) < 0x90) return 0;
  if (n == 4 && lead == 0xF4 && byte(i + 1) >= 0x90) return 0;
  return n;
}

}  // namespace

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t n = Utf8Length(text, i);
    if (n == 0) {
      out += '?';
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
                       c == 0x7F
                   ? '?'
                   : c;
    }
    ++i;
  }
  return out;
}

std::string Coord(double value) {
  if (!std::isfinite(value)) return "0";
  std::string s = fmt::format("{:.2f}", value);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

std::size_t CodePoints(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string Ellipsize(std::string_view text, std::size_t max_chars) {
  if (CodePoints(text) <= max_chars) return std::string(text);
  if (max_chars == 0) return "";
  std::string out;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts && ++kept == max_chars) break;
    out += text[i];
  }
  return out + "…";
}

std::string EllipsizeFront(std::string_view text, std::size_t max_chars) {
  const std::size_t total = CodePoints(text);
  if (total <= max_chars) return std::string(text);
  if (max_chars == 0) return "";
  // Skip the first total - (max_chars - 1) code points.
  std::size_t skip = total - (max_chars - 1), i = 0;
  for (; i < text.size(); ++i) {
    const bool starts = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts && skip-- == 0) break;
  }
  return "…" + std::string(text.substr(i));
}

}  // namespace memplan::report
