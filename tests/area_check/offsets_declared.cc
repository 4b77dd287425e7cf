// A file of area offsets that includes only what offsets declares (core) and its own
// headers: the include check passes it.
#include "memplan/offsets.h"
#include "memplan/problem.h"
#include "src/offsets/placement.h"
