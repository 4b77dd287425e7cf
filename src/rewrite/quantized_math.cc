#include "src/rewrite/quantized_math.h"

#include <cmath>
#include <limits>

namespace memplan::rewrite {

QuantizedMultiplier QuantizeMultiplier(double real) {
  if (real == 0.0) return {};
  int shift = 0;
  const double mantissa = std::frexp(real, &shift);
  auto fixed = static_cast<std::int64_t>(std::round(mantissa * static_cast<double>(1LL << 31)));
  if (fixed == (1LL << 31)) {
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) return {};
  return {static_cast<std::int32_t>(fixed), shift};
}

std::int32_t SaturatingRoundingDoublingHighMul(std::int32_t a, std::int32_t b) {
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  if (a == kMin && b == kMin) return std::numeric_limits<std::int32_t>::max();
  const std::int64_t product = std::int64_t{a} * std::int64_t{b};
  const std::int64_t nudge = product >= 0 ? (1LL << 30) : (1 - (1LL << 30));
  return static_cast<std::int32_t>((product + nudge) / (1LL << 31));
}

std::int32_t RoundingDivideByPOT(std::int32_t x, int exponent) {
  if (exponent <= 0) return x;
  const std::int32_t mask = static_cast<std::int32_t>((1LL << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

std::int32_t MultiplyByQuantizedMultiplier(std::int32_t x, QuantizedMultiplier m) {
  const int left = m.shift > 0 ? m.shift : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  const auto shifted = static_cast<std::int32_t>(static_cast<std::int64_t>(x) * (1LL << left));
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(shifted, m.multiplier), right);
}

}  // namespace memplan::rewrite
