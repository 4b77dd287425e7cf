#pragma once
// Text shown to people: names and strings taken from files (an op type, a tensor name, a
// metadata key) can hold any bytes. Every message memplan prints passes through
// PrintableText, so a corrupt file never puts invalid UTF-8 or terminal control codes on
// a user's screen or into a JSON report.
#include <string>
#include <string_view>

namespace memplan {

// `bytes` with every byte that is not part of valid, printable UTF-8 written as \xNN:
// control characters (newlines and tabs excepted), DEL, and malformed or overlong UTF-8
// sequences. Valid printable UTF-8 (e.g. "é", "→") is kept as it is.
std::string PrintableText(std::string_view bytes);

// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or values above
// U+10FFFF), as ONNX requires of its strings.
bool IsValidUtf8(std::string_view text);

}  // namespace memplan
