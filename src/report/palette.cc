#include "src/report/palette.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace memplan::report {

namespace {

// HSL (h in degrees, s and l in [0, 1]) to 8-bit RGB channels.
double Channel(double h, double s, double l, double n) {
  const double k = std::fmod(n + h / 30.0, 12.0);
  const double a = s * std::min(l, 1.0 - l);
  return l - a * std::max(-1.0, std::min({k - 3.0, 9.0 - k, 1.0}));
}

int Byte(double v) {
  return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

}  // namespace

std::string FillColour(std::size_t key) {
  constexpr double kGoldenAngle = 137.50776405003785;
  const double hue = std::fmod(static_cast<double>(key % 100000) * kGoldenAngle, 360.0);
  static constexpr double kSaturation[] = {0.62, 0.48, 0.70};
  static constexpr double kLightness[] = {0.64, 0.74, 0.58, 0.69};
  const double s = kSaturation[key % 3];
  const double l = kLightness[(key / 3) % 4];
  return fmt::format("#{:02x}{:02x}{:02x}", Byte(Channel(hue, s, l, 0)),
                     Byte(Channel(hue, s, l, 8)), Byte(Channel(hue, s, l, 4)));
}

}  // namespace memplan::report
