#pragma once
// Reads ONNX models (.onnx) into a Graph: one subgraph whose operators are the nodes that
// run at inference time, in file order. Shapes come from ONNX shape inference with data
// propagation, repeated to a fixpoint with memplan's Dropout-mask rule and constant
// folding of shape arithmetic, against ONNX 1.12's schemas plus memplan's rules for ONNX
// Runtime's com.microsoft operators and newer opsets; nodes computed from constants only
// are folded away (docs/import.md, docs/accounting.md).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "memplan/graph.h"
#include "memplan/workload.h"

namespace memplan {

// A model as read, with what the reader did to it.
struct OnnxModel {
  // format "onnx"; subgraph 0 holds graph inputs, initializers and node outputs in that
  // order (graph inputs and runtime outputs in this order are the records' add order).
  Graph graph;
  std::size_t file_nodes = 0;  // nodes in the file's main graph
  // Main-graph nodes after each If with a known condition was replaced by the branch it
  // takes (equal to file_nodes when there was none); folded_nodes counts among these.
  std::size_t graph_nodes = 0;
  std::size_t folded_nodes = 0;  // of those, computed from constants only (not run)
  std::int64_t opset = 0;        // version of the default ("ai.onnx") operator set
  // Every operator set the model imports: domain ("ai.onnx" for the default) and version.
  std::vector<std::pair<std::string, std::int64_t>> opset_imports;
  // The domain of each operator type that is not the default's (e.g. "Attention" ->
  // "com.microsoft"), for reports.
  std::map<std::string, std::string> op_domains;
  std::int64_t ir_version = 0;       // the file's IR version
  std::string producer;              // producer name and version, as the file gives them
  std::size_t inference_passes = 0;  // shape-inference passes until nothing changed
  // --dim bindings that bound nothing in this model, then stored shapes that disagreed
  // with the computed ones and were replaced (each a "warning: ..." line).
  std::vector<std::string> warnings;
  // Read with OnnxUnsized::kKeep (inspect): the tensors that need planning but have no
  // static size, and what is still open ("'x': dimension 0 of [N,3] is symbolic; open: N
  // (x)"), empty when everything is sized.
  std::size_t unsized_tensors = 0;
  std::string open_sizes;
  // Tensors whose shape is not all numbers, as inference left it: "[N,3,?,?]" (the names
  // of symbolic dimensions, "?" for unknown ones).
  std::map<std::string, std::string> open_shapes;
};

// What ReadOnnx does with tensors that need planning but have no static size: refuse the
// model (planning needs every size), or keep them unsized (inspect shows what it can).
enum class OnnxUnsized { kError, kKeep };

// Reads a serialized ModelProto. `source` names it in messages. options.dims binds
// symbolic dimensions (dim_param) by name ("batch", when no dimension has that name, binds
// every graph input's open leading dimension); options.shapes gives whole shapes to graph
// inputs or node outputs; UsageError for a --shape naming no tensor; a --dim naming no
// dimension binds nothing and is listed in OnnxModel::warnings. InputError naming
// `source` (and the node or tensor) for bytes that are not an ONNX model, nodes out of
// topological order, subgraphs (If, Loop, Scan), element types memplan cannot size,
// overflowing shapes, and tensors that still have no static shape after inference (with
// the names to bind).
OnnxModel ReadOnnx(std::string_view bytes, std::string_view source, const LoadOptions& options = {},
                   OnnxUnsized unsized = OnnxUnsized::kError);

// ReadOnnx on a file's contents; the path names it in messages.
OnnxModel LoadOnnx(const std::filesystem::path& path, const LoadOptions& options = {},
                   OnnxUnsized unsized = OnnxUnsized::kError);

}  // namespace memplan
