#pragma once
// The inputs of one call: each argument as given, a folder as the inputs inside it.
#include <string>
#include <vector>

namespace memplan::cli {

struct BatchInputs {
  std::vector<std::string> inputs;  // in order; a folder's files sorted by name
  // More than one argument or a folder: results are reported per input (JSON: an
  // array, even of one), and a bad input does not stop the others.
  bool batch = false;
};

// Expands the folders among `args` into the .tflite, .onnx, .json and .csv files they
// hold (not recursive). InputError for a folder with none of them.
BatchInputs ExpandInputs(const std::vector<std::string>& args);

}  // namespace memplan::cli
