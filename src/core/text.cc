// PrintableText: the bytes of a message, escaped where they are not printable UTF-8.
#include "memplan/text.h"

#include <cstdint>

namespace memplan {

namespace {

void Escape(std::string& out, unsigned char byte) {
  constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

// The code point of the valid UTF-8 sequence of 2 to 4 bytes starting at text[i] and its
// length; length 0 when it is not one: a bad lead byte, a missing continuation, an overlong
// form, a surrogate or a value above U+10FFFF.
struct Decoded {
  std::size_t length = 0;
  std::uint32_t code = 0;
};
Decoded DecodeMultiByte(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if ((lead & 0xe0) == 0xc0) {
    length = 2;
    code = lead & 0x1f;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
    code = lead & 0x0f;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
    code = lead & 0x07;
  } else {
    return {};
  }
  if (i + length > text.size()) return {};
  for (std::size_t k = 1; k < length; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xc0) != 0x80) return {};
    code = (code << 6) | (c & 0x3f);
  }
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return {};
  return {length, code};
}

}  // namespace

std::string PrintableText(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const auto byte = static_cast<unsigned char>(bytes[i]);
    if (byte < 0x80) {
      if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f)
        Escape(out, byte);
      else
        out += static_cast<char>(byte);
      ++i;
      continue;
    }
    const Decoded d = DecodeMultiByte(bytes, i);
    // C1 control characters (U+0080..U+009F) are terminal controls too.
    const std::size_t length = d.code >= 0x80 && d.code <= 0x9f ? 0 : d.length;
    if (length == 0) {
      Escape(out, byte);
      ++i;
      continue;
    }
    out.append(bytes.substr(i, length));
    i += length;
  }
  return out;
}

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const Decoded d = DecodeMultiByte(text, i);
    if (d.length == 0) return false;
    i += d.length;
  }
  return true;
}

}  // namespace memplan
