#pragma once
// The builders of the built-in models, one file each; zoo_models.cc lists them.
#include "memplan/graph.h"

namespace memplan::zoo {

Graph BuildMobileNetV1();
Graph BuildMobileNetV2();
Graph BuildResNet50();
Graph BuildInceptionV3();
Graph BuildGpt2Small();

}  // namespace memplan::zoo
