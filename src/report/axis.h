#pragma once
// Tick marks for the axes of a memory map: "nice" values (1, 2, 5 × 10^k) labelled in
// the unit that suits the range (B, KiB, MiB, GiB for bytes; plain numbers for steps).
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan::report {

struct Tick {
  double value = 0;   // position on the axis, in bytes or steps
  std::string label;  // e.g. "512 KiB", "1.5 MiB", "40"
};

// Ticks from 0 to at most `max_bytes`, about `target` of them.
std::vector<Tick> ByteTicks(double max_bytes, int target);

// Integer ticks from 0 to at most `max_step`, about `target` of them.
std::vector<Tick> StepTicks(double max_step, int target);

}  // namespace memplan::report
