#include "src/report/axis.h"

#include <fmt/format.h>

#include <cmath>

namespace memplan::report {

namespace {

// The one of 1, 2, 5 × 10^k (k >= 0 when `integral`) nearest to `raw` on a log scale,
// so the number of ticks stays near the target.
double NiceStep(double raw, bool integral) {
  if (!(raw > 0)) return 1;
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  if (integral && power < 1) power = 1;
  double best = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (std::abs(std::log(m * power / raw)) < std::abs(std::log(best / raw))) best = m * power;
  return best;
}

// 1.5 -> "1.5", 2 -> "2", 0.25 -> "0.25".
std::string Short(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::vector<Tick> ByteTicks(double max_bytes, int target) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  // The unit in which the top of the axis reads at least 2 (so "1536 KiB" not "1.5 MiB"
  // only when the range is under 2 MiB).
  int unit = 0;
  double scale = 1;
  while (unit < 4 && max_bytes / (scale * 1024) >= 2) {
    scale *= 1024;
    ++unit;
  }
  const double step = NiceStep(max_bytes / scale / std::max(target, 1), unit == 0);
  std::vector<Tick> ticks;
  for (int k = 0;; ++k) {
    const double v = k * step;
    if (v * scale > max_bytes * (1 + 1e-9)) break;
    ticks.push_back({v * scale, fmt::format("{} {}", Short(v), kUnits[unit])});
  }
  return ticks;
}

std::vector<Tick> StepTicks(double max_step, int target) {
  const double step = NiceStep(max_step / std::max(target, 1), true);
  std::vector<Tick> ticks;
  for (int k = 0;; ++k) {
    const double v = k * step;
    if (v > max_step * (1 + 1e-9)) break;
    ticks.push_back({v, fmt::format("{}", static_cast<long long>(v))});
  }
  return ticks;
}

}  // namespace memplan::report
