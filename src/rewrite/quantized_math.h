#pragma once
// The fixed-point arithmetic of TensorFlow Lite Micro's int8 reference kernels, restated
// (docs/below-the-bound.md, "The reference evaluator"): a real multiplier becomes a Q31
// mantissa and a power-of-two shift; an int32 accumulator is scaled by rounding-doubling
// high multiplication, then a rounding right shift.
#include <cstdint>

namespace memplan::rewrite {

// A real multiplier as TFLite stores it: multiplier * 2^(shift - 31).
struct QuantizedMultiplier {
  std::int32_t multiplier = 0;  // Q31 mantissa in [2^30, 2^31), or 0
  int shift = 0;                // power of two; positive shifts left
};

// frexp, the mantissa rounded to Q31 (2^31 carries into the exponent), tiny values to 0.
QuantizedMultiplier QuantizeMultiplier(double real);

// (a * b * 2 + 2^31 rounding) >> 32 with round-half-away-from-zero; saturates the one
// overflowing case (both INT32_MIN).
std::int32_t SaturatingRoundingDoublingHighMul(std::int32_t a, std::int32_t b);

// x / 2^exponent rounded to nearest, ties away from zero.
std::int32_t RoundingDivideByPOT(std::int32_t x, int exponent);

// x * multiplier * 2^(shift - 31), as the conv, depthwise and pooling kernels scale.
std::int32_t MultiplyByQuantizedMultiplier(std::int32_t x, QuantizedMultiplier m);

}  // namespace memplan::rewrite
