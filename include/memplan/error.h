#pragma once
// Errors memplan reports to its callers. The command maps them to exit codes:
// InputError -> 1 (the input is wrong), UsageError -> 2 (the call is wrong).
// InternalError means a bug in memplan (e.g. a strategy produced an invalid plan).

#include <stdexcept>
#include <string>

namespace memplan {

// Something in the user's input (a file, a record, a tensor, an op) is wrong.
// The message names what is wrong and where.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The call itself is wrong: an unknown strategy, conflicting options.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// memplan broke one of its own promises; never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace memplan
