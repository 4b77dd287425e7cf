#pragma once
// A .tflite model held whole in memory (the flatbuffers object API of the rewrite's own
// schema), so a rewrite can change it and write it anew.
#include <memory>
#include <string>
#include <string_view>

#include "tflite_model_generated.h"

namespace memplan::rewrite {

// Verifies and unpacks a model. InputError naming `source` for bytes that are not a
// TensorFlow Lite model, for data stored outside the flatbuffer, and for an op whose
// builtin options are of a type the rewrite's schema does not declare (they would be lost).
// With `unknown_options` set, such an op is not refused: the message goes there instead
// (for callers that then leave the model as it is).
std::unique_ptr<fb::ModelT> LoadModel(std::string_view bytes, std::string_view source,
                                      std::string* unknown_options = nullptr);

// Serialises a model (file identifier "TFL3").
std::string SaveModel(const fb::ModelT& model);

// The builtin operator code of an op ("builtin_code", or the deprecated byte in old
// files); -1 for a custom op or an index out of range.
int BuiltinCodeOf(const fb::ModelT& model, const fb::OperatorT& op);

}  // namespace memplan::rewrite
