// The targets the TFLM model knows (include/memplan/tflm_target.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "memplan/error.h"
#include "memplan/tflm_target.h"

namespace memplan {

namespace {

struct CortexM {
  std::string_view name;
  std::string_view core;
  ArmExtensions extensions;
};

// The cores CMSIS-NN tells apart by their extensions (its ARM_MATH_DSP and ARM_MATH_MVEI).
constexpr std::array<CortexM, 7> kCortexM = {{
    {"cortex-m0", "Cortex-M0/M0+ (Armv6-M, no DSP extension)", ArmExtensions::kNone},
    {"cortex-m3", "Cortex-M3 (Armv7-M, no DSP extension)", ArmExtensions::kNone},
    {"cortex-m4", "Cortex-M4 (Armv7E-M, DSP extension)", ArmExtensions::kDsp},
    {"cortex-m7", "Cortex-M7 (Armv7E-M, DSP extension)", ArmExtensions::kDsp},
    {"cortex-m33", "Cortex-M33 (Armv8-M Mainline, DSP extension)", ArmExtensions::kDsp},
    {"cortex-m55", "Cortex-M55 (Armv8.1-M, Helium MVE)", ArmExtensions::kMve},
    {"cortex-m85", "Cortex-M85 (Armv8.1-M, Helium MVE)", ArmExtensions::kMve},
}};

}  // namespace

TargetAbi TflmTargetNamed(std::string_view name) {
  if (name == "host64")
    return {"host64", "x86-64 Linux host (LP64: 8-byte pointers and size_t)", 8, 8};
  if (name == "arm32")
    return {"arm32",
            "32-bit ARM Linux (AAPCS: 4-byte pointers, 8-byte int64 alignment, 4-byte enums)", 4,
            8};
  for (const CortexM& m : kCortexM)
    if (name == m.name) {
      TargetAbi abi{std::string(m.name),
                    fmt::format("{} bare metal, arm-none-eabi (AAPCS: 4-byte pointers, 8-byte "
                                "int64 alignment, 1-byte enums)",
                                m.core),
                    4, 8};
      abi.enum_bytes = 1;
      abi.extensions = m.extensions;
      return abi;
    }
  throw UsageError(
      fmt::format("unknown target '{}' (known: {})", name, fmt::join(TflmTargetNames(), ", ")));
}

std::vector<std::string> TflmTargetNames() {
  std::vector<std::string> names = {"host64", "arm32"};
  for (const CortexM& m : kCortexM) names.emplace_back(m.name);
  return names;
}

TflmKernels TflmKernelsNamed(std::string_view name) {
  if (name == "reference") return TflmKernels::kReference;
  if (name == "cmsis-nn") return TflmKernels::kCmsisNn;
  throw UsageError(fmt::format("unknown kernel set '{}' (known: reference, cmsis-nn)", name));
}

std::string_view TflmKernelsName(TflmKernels kernels) {
  return kernels == TflmKernels::kCmsisNn ? "cmsis-nn" : "reference";
}

TargetAbi WithTflmKernels(TargetAbi target, TflmKernels kernels) {
  if (kernels == TflmKernels::kCmsisNn && !target.name.starts_with("cortex-m"))
    throw UsageError(fmt::format(
        "the CMSIS-NN kernel set is modelled for the Cortex-M targets, not '{}'", target.name));
  target.kernels = kernels;
  return target;
}

}  // namespace memplan
