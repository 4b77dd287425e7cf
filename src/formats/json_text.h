#pragma once
// Parsing a JSON input (records, plan files) into nlohmann::json, with every way the
// text can be malformed reported as an InputError at its line and column.

#include <nlohmann/json.hpp>
#include <string_view>

namespace memplan {

// The parsed document. InputError "source:line:column: malformed JSON: ..." for a syntax
// error and for a number JSON allows but nlohmann cannot hold (e.g. 1e999, which it
// reports as out_of_range rather than parse_error).
nlohmann::json ParseJsonText(std::string_view text, std::string_view source);

}  // namespace memplan
