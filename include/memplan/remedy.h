#pragma once
// What the caller can set to get past an error about a model's sizes: bind an open
// dimension, give a tensor a shape, choose another accounting. The message says it in
// words, naming the thing and the value; the remedies say it as data, so that a front end
// can add how its users set it (the command names its flags, e.g. --dim batch=1).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/error.h"

namespace memplan {

struct Remedy {
  enum class Kind {
    kBindDimension,      // give the open dimension `name` the size `value`
    kBindShape,          // give tensor `name` the shape `value` ("1x10x4"; "" is a scalar)
    kIntermediatesOnly,  // plan in the intermediates-only accounting
    kKernelSizedStored,  // plan custom ops' run-time-sized outputs as stored (one element)
  };
  Kind kind;
  std::string name;   // the dimension or tensor (the binding kinds)
  std::string value;  // the size or shape; "N" or "D1xD2" where the caller must choose
};

// The remedies an error carries. Copying shares them, so copying the error cannot fail.
class Remedies {
 public:
  explicit Remedies(std::vector<Remedy> list)
      : list_(std::make_shared<const std::vector<Remedy>>(std::move(list))) {}
  const std::vector<Remedy>& remedies() const { return *list_; }

 private:
  std::shared_ptr<const std::vector<Remedy>> list_;
};

// An InputError or a UsageError with remedies; caught as the error it derives from, and
// its remedies found with RemediesOf.
class InputErrorWithRemedies : public InputError, public Remedies {
 public:
  InputErrorWithRemedies(std::string_view what, std::vector<Remedy> list)
      : InputError(what), Remedies(std::move(list)) {}
};
class UsageErrorWithRemedies : public UsageError, public Remedies {
 public:
  UsageErrorWithRemedies(std::string_view what, std::vector<Remedy> list)
      : UsageError(what), Remedies(std::move(list)) {}
};

// The remedies `error` carries; none for an error without.
inline const std::vector<Remedy>& RemediesOf(const std::exception& error) {
  static const std::vector<Remedy> kNone;
  const auto* with = dynamic_cast<const Remedies*>(&error);
  return with ? with->remedies() : kNone;
}

}  // namespace memplan
