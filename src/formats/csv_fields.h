#pragma once
// Lines and comma-separated fields of a CSV records file, with the 1-based line and column
// every message names. Shared by the MiniMalloc and the texture CSV readers.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace memplan::formats {

// A field's text without surrounding blanks, and where it starts.
struct Field {
  std::string_view text;  // trimmed
  std::size_t column;     // 1-based column of the field's first character
};

// `s` without leading and trailing blanks (and a trailing carriage return).
std::string_view Trim(std::string_view s);

// The lines of `text` (without their newlines).
std::vector<std::string_view> Lines(std::string_view text);

// The comma-separated fields of one line.
std::vector<Field> SplitLine(std::string_view line);

// The field as a signed integer; InputError "source:line:column: NAME 'x' is not an
// integer" otherwise.
std::int64_t Integer(const Field& f, std::string_view source, std::size_t line,
                     std::string_view column_name);

}  // namespace memplan::formats
