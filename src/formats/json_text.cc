// JSON text to nlohmann::json with positioned InputErrors.
#include "src/formats/json_text.h"

#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/records_io.h"

namespace memplan {

namespace {

using Json = nlohmann::json;

// A SAX handler that keeps nothing but where the first error is: nlohmann's exceptions
// other than parse_error (out_of_range 406 for an overflowing number) carry no position,
// but every error reaches the SAX handler with one.
class ErrorPosition : public nlohmann::json_sax<Json> {
 public:
  std::size_t position = 0;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t byte, const std::string&,
                   const nlohmann::detail::exception&) override {
    position = byte;
    return false;
  }
};

}  // namespace

Json ParseJsonText(std::string_view text, std::string_view source) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    ErrorPosition sax;
    Json::sax_parse(text, &sax);
    // nlohmann counts the byte after the offending one.
    const auto [line, column] = LineColumn(text, sax.position == 0 ? 0 : sax.position - 1);
    std::string what = e.what();
    if (auto cut = what.find("parse error"); cut != std::string::npos)
      what = what.substr(cut);
    else if (auto end = what.find("] ");
             what.starts_with("[json.exception") && end != std::string::npos)
      what = what.substr(end + 2);
    throw InputError(fmt::format("{}:{}:{}: malformed JSON: {}", source, line, column, what));
  }
}

}  // namespace memplan
