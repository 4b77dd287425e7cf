#pragma once
// What a model holds, as `memplan inspect` reports it. A .tflite model: subgraphs, ops by
// type, tensors by kind and bytes, metadata, the tensors TensorFlow Lite Micro plans (16-byte
// units) and their lower bound, and its offline memory plan checked against TFLM's lifetimes
// (offline-placed buffers alive together whose bytes overlap; Vela's scratch areas apart).
// An .onnx model: IR version, producer and operator sets, graph inputs and outputs with their
// types and shapes (after the bindings and inference), nodes in the file, folded and run,
// constants, and the records `plan` derives. Each comes as a struct and as JSON; the command
// words the tables.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "memplan/onnx.h"
#include "memplan/tflite.h"
#include "memplan/tflite_shapes.h"
#include "memplan/vela.h"
#include "memplan/workload.h"

namespace memplan {

// A tensor TensorFlow Lite Micro would plan, as its planner would see it.
struct TflmPlannedTensor {
  TensorRef ref;
  std::string name;
  Bytes size = 0;  // rounded up to 16
  Step first = -1, last = -1;
  std::optional<Bytes> offline_offset;
};

// What inspect reports of a .tflite model (or a built-in one, as a .tflite file would hold it).
struct TfliteInspection {
  TfliteModel model;
  std::map<std::string, std::size_t> ops_by_type;
  std::size_t constant_tensors = 0, variable_tensors = 0;
  Bytes constant_bytes = 0, variable_bytes = 0;
  std::vector<TflmPlannedTensor> planned;
  std::vector<TensorRef> unsized;  // would be planned, but have no size
  Bytes planned_bytes = 0, lower_bound = 0;
  std::vector<std::pair<std::size_t, std::size_t>> overlaps;  // indices into `planned`
  bool overlap_check_stopped = false;
  std::vector<std::string> warnings;       // dimension bindings that bound nothing
  std::vector<TfliteInputDimension> open;  // -1s of the inputs' shape_signature
  std::vector<TfliteInputDimension> dims;  // every axis of the inputs, open or stored
  // A Vela-compiled model's scratch areas; `area_of` per planned tensor: the index of the
  // area it belongs to (the scratch or a tensor inside it), or -1.
  std::vector<VelaScratchArea> scratch_areas;
  std::vector<std::ptrdiff_t> area_of;
};

// What inspect reports of an ONNX model.
struct OnnxInspection {
  OnnxModel model;                                 // as read, shapes inferred
  std::map<std::string, std::size_t> ops_by_type;  // ops that run, "domain:type" or "type"
  std::size_t constant_tensors = 0;                // initializers and folded outputs
  Bytes constant_bytes = 0;                        // their bytes, where sized
  std::size_t planned = 0;                         // records `plan` plans (same derivation)
  Bytes planned_bytes = 0;                         // their sizes added up
  Bytes lower_bound = 0;                           // the offsets lower bound of those records
};

// Inspects a .tflite file or "zoo:NAME" (a built-in model: no file, no metadata, no
// bindings). The bindings of `load` resize the inputs; a resized model's offline plan is
// not checked (its offsets were chosen for the stored sizes). InputError for an unknown
// built-in model or a bad file; UsageError for bindings on a built-in model.
TfliteInspection InspectTflite(const std::string& input, const LoadOptions& load);

// {"input", "format", "schema_version", ..., "planned", "unsized", "open_dimensions",
//  "input_dimensions", "metadata", "offline_plan"}.
nlohmann::ordered_json TfliteInspectionJson(const std::string& input, const TfliteInspection& in);

// Inspects an .onnx file; the planned records only once every size is known.
OnnxInspection InspectOnnx(const std::string& input, const LoadOptions& load);

// {"input", "format": "onnx", "ir_version", ..., "planned", "subgraphs", "warnings"}.
nlohmann::ordered_json OnnxInspectionJson(const std::string& input, const OnnxInspection& in);

// Tensor `r` of graph `g`.
const Tensor& InspectedTensor(const Graph& g, TensorRef r);

// An ONNX tensor's shape, open dimensions by the name the model gives them ("[N, 3, ?, ?]").
std::string OnnxShapeText(const OnnxModel& m, const Tensor& t);

// What calls each subgraph: "Loop 'loop' in subgraph 0"; empty for the main graph.
std::vector<std::string> SubgraphCallers(const Graph& g);

}  // namespace memplan
