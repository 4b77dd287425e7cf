#pragma once
// Where the parts of a memory-map picture go: the map on top, the live-bytes curve
// under it on the same time axis, then step numbers and op names. Shared by the map
// (svg_map.cc) and the time axis (svg_time_axis.cc) so their columns line up.
#include <vector>

#include "memplan/memory_map.h"

namespace memplan::report {

struct Layout {
  double width = 1200;        // the whole picture, in SVG user units
  double height = 700;        // grows with the op names' band
  double left = 110;          // x of step 0 (room for the byte or object labels)
  double right = 936;         // x after the last step (the summary panel is to the right)
  double map_top = 76;        // the map's plot
  double map_bottom = 496;    //
  double curve_top = 516;     // the live-bytes curve's plot
  double curve_bottom = 606;  //
  double ops_top = 0;         // where op names start (0: the input has no ops)
  double steps = 1;           // columns across (>= 1)

  double X(double step) const { return left + step / steps * (right - left); }
};

// The layout of a picture over `steps` steps; `standalone`: room for a title above and
// the summary panel on the right (the HTML page has both around the map); `op_names`: a
// band for the op names under the step numbers.
Layout MakeLayout(Step steps, bool standalone, bool op_names);

}  // namespace memplan::report
