#pragma once
// The first thing done with a .tflite file: check it is one, then let the flatbuffers
// verifier prove every offset, vector and string lies inside it. Only then may the
// generated accessors be used.
#include <string_view>

#include "memplan_tflite_generated.h"

namespace memplan::formats {

namespace fb = memplan::tflite::fb;

// The verified root table. InputError "{source}: ..." for a file that is too short,
// carries another file identifier, is over 2 GiB, or fails verification (with the first
// part that fails: the root, a subgraph's tensor or op, a buffer, ...).
const fb::Model* VerifiedModel(std::string_view bytes, std::string_view source);

}  // namespace memplan::formats
