#pragma once
// The exact solver's view of a problem: sizes in units of their greatest common
// divisor, time cut into sections (maximal runs of steps with the same live free
// records; a fixed record live at any step of a section is an obstacle in all of it,
// since every free record of the section is live at that step too),
// each free record's span of sections, who overlaps whom, and the fixed records as
// obstacles per section.
#include <cstdint>
#include <utility>
#include <vector>

#include "memplan/problem.h"

namespace memplan::exact {

using Units = std::uint64_t;

// A byte range [begin, end) in units that fixed records occupy.
using Interval = std::pair<Units, Units>;

struct Instance {
  Bytes unit = 1;   // bytes per unit: every canonical offset and size is a multiple of it
  Units align = 1;  // alignment in units
  std::vector<std::size_t> record;         // free buffer -> record index (non-zero, not fixed)
  std::vector<Units> size;                 // free buffer size in units
  std::vector<int> lo, hi;                 // free buffer span: sections lo..hi inclusive
  std::vector<Step> steps;                 // free buffer lifetime in steps (for orderings)
  int sections = 0;                        // number of sections
  std::vector<Step> section_steps;         // steps in each section (for orderings)
  std::vector<std::vector<int>> overlaps;  // free buffers overlapping each one
  std::vector<std::vector<int>> section_buffers;  // free buffers live in each section
  // Per section: merged, sorted byte ranges taken by fixed records live at any of its
  // steps (usually empty), and the units they cover up to the end of each range.
  std::vector<std::vector<Interval>> obstacles;
  std::vector<std::vector<Units>> obstacle_prefix;
  // Per free buffer: merged, sorted ranges of the fixed records overlapping it in time.
  std::vector<std::vector<Interval>> buffer_obstacles;
  Units fixed_top = 0;  // highest end of a fixed record, in units
  bool any_obstacles = false;

  std::size_t buffers() const { return size.size(); }

  // Rounds up to the alignment.
  Units Align(Units v) const { return align <= 1 ? v : (v + align - 1) / align * align; }

  // The lowest aligned start >= `start` where buffer b clears every fixed record it
  // overlaps in time.
  Units Lift(int b, Units start) const;

  // Free units in [floor, capacity) of section s that no fixed record takes.
  Units Available(int s, Units floor, Units capacity) const;
};

// Builds the instance of a validated problem.
Instance BuildInstance(const Problem& problem);

}  // namespace memplan::exact
