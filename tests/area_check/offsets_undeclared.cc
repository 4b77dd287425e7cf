// A file of area offsets that includes the .tflite reader's header: offsets does not
// declare formats, so the include check fails the build on it.
#include "memplan/offsets.h"
#include "memplan/tflite.h"
