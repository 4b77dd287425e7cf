// A file of area offsets that includes an internal header of area exact: never allowed,
// whatever the area declares.
#include "src/exact/instance.h"
