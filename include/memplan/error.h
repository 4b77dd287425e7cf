#pragma once
// Errors memplan reports to its callers. The command maps them to exit codes:
// InputError -> 1 (the input is wrong), UsageError -> 2 (the call is wrong).
// InternalError means a bug in memplan (e.g. a strategy produced an invalid plan).

#include <stdexcept>
#include <string>
#include <string_view>

#include "memplan/text.h"

namespace memplan {

// Every message is made printable text when the error is made (include/memplan/text.h):
// names copied from a corrupt file cannot put raw bytes on a terminal or into JSON.

// Something in the user's input (a file, a record, a tensor, an op) is wrong.
// The message names what is wrong and where.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::string_view what) : std::runtime_error(PrintableText(what)) {}
};

// The call itself is wrong: an unknown strategy, conflicting options.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(std::string_view what) : std::runtime_error(PrintableText(what)) {}
};

// memplan broke one of its own promises; never the user's fault.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(std::string_view what) : std::logic_error(PrintableText(what)) {}
};

}  // namespace memplan
