#pragma once
// The builders of the built-in models, one file each; zoo_models.cc lists them.
#include "memplan/graph.h"

namespace memplan::graph::zoo {

Graph BuildMobileNetV1();
Graph BuildMobileNetV2();
Graph BuildResNet50();
Graph BuildInceptionV3();
Graph BuildGpt2Small();
// GPT-2 small over `tokens` tokens (zoo:gpt2 has 128).
Graph BuildGpt2(std::int64_t tokens);
Graph BuildConformerS();
// Conformer (S) over `frames` input frames (zoo:conformer_s has 400; at least 7).
Graph BuildConformerS(std::int64_t frames);

}  // namespace memplan::graph::zoo
