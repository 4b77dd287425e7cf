// The targets the TFLM model knows (include/memplan/tflm_target.h).
#include <fmt/format.h>

#include "memplan/error.h"
#include "memplan/tflm_target.h"

namespace memplan {

TargetAbi TflmTargetNamed(std::string_view name) {
  if (name == "host64")
    return {"host64", "x86-64 Linux host (LP64: 8-byte pointers and size_t)", 8, 8};
  if (name == "arm32")
    return {"arm32", "32-bit ARM (AAPCS, as on Cortex-M: 4-byte pointers, 8-byte int64 alignment)",
            4, 8};
  throw UsageError(fmt::format("unknown target '{}' (known: host64, arm32)", name));
}

std::vector<std::string> TflmTargetNames() {
  return {"host64", "arm32"};
}

}  // namespace memplan
