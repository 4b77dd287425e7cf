#pragma once
// A workload is what the command plans: records from a records file, or records
// derived from a model (.tflite, .onnx, zoo:NAME) together with the graph.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memplan/graph.h"
#include "memplan/lifetimes.h"
#include "memplan/problem.h"
#include "memplan/shape_binding.h"
#include "memplan/textures.h"

namespace memplan {

struct LoadOptions {
  // Leave graph inputs and outputs out; intervals from producer to last consumer
  // (the accounting of the TensorFlow Lite memory paper).
  bool intermediates_only = false;
  // Values for symbolic or batch dimensions: --dim NAME=VALUE.
  std::vector<std::pair<std::string, std::int64_t>> dims;
  // Whole shapes for named tensors: --shape TENSOR=1x224x224x3.
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> shapes;
  // Custom-op outputs sized by their kernels: from the ops' options (default) or as stored.
  KernelSizedOutputs kernel_sized = KernelSizedOutputs::kFromOptions;
};

// Steps a picture marks with a band and a label (e.g. the stage of a split model).
struct StepBand {
  Step first = 0;     // first step inside the band
  Step last = 0;      // last step inside it (inclusive)
  std::string label;  // what the band is, e.g. "split stage: 4x4 patches, ops 0..120"
};

struct Workload {
  std::string label;               // the input as the user named it
  std::string kind;                // "records", "tflite", "onnx", "zoo"
  Problem problem;                 // the records to plan
  std::optional<Graph> graph;      // the model, when the input is one
  std::vector<TensorRef> origins;  // per record: the tensor it stands for (models only)
  std::size_t ops = 0;             // operators in the model (0 for records)
  // Records whose sizes have dimensions (GPU textures, BHWC shapes): then `problem` is
  // empty and only the texture strategies apply (include/memplan/texture_records.h).
  std::optional<TextureProblem> textures;
  // Lines the reader wants the user to see beside the figures, each starting "note: " (e.g.
  // which sizes it chose) or "warning: " (e.g. a --dim binding that bound nothing).
  std::vector<std::string> notes;
  std::vector<StepOp> step_ops;      // per step: the op that runs then (models only)
  std::vector<StepBand> step_bands;  // ranges of steps pictures mark (set by the caller)
};

// The workload of a model's graph: its records in the accounting `options` asks for
// (TFLM's by default, the paper's with intermediates_only). `kind` as in Workload.
Workload GraphWorkload(Graph graph, std::string_view label, std::string kind,
                       const LoadOptions& options);

// Loads "file.json", "file.csv", "model.tflite", "model.onnx" or "zoo:NAME".
// InputError naming the input when it cannot.
Workload LoadWorkload(std::string_view spec, const LoadOptions& options = {});

// The built-in inputs (`memplan zoo`): name and one-line description.
struct ZooEntry {
  std::string name;
  std::string description;
  std::string open_dimension;  // the dimension a built-in model leaves open, or empty
};
std::vector<ZooEntry> ZooEntries();

}  // namespace memplan
