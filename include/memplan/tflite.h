#pragma once
// TensorFlow Lite models (.tflite): reading one into a Graph, its offline memory plan
// (TFLM's OfflineMemoryAllocation metadata), and writing models (tests, exports, and
// tools that embed a plan). Every input is distrusted: the flatbuffers verifier runs
// first, then every index is checked; a bad file is an InputError naming it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/graph.h"
#include "memplan/workload.h"

namespace memplan {

// The name TFLM looks for (an exact match) in Model.metadata.
inline constexpr std::string_view kOfflinePlanMetadata = "OfflineMemoryAllocation";

// TFLM's offline plan: little-endian 32-bit words [version, subgraphs, N, offset x N].
struct OfflinePlan {
  std::uint32_t version = 0;          // word 0 (Vela writes 0, TFLM's tests 1); TFLM ignores it
  std::uint32_t subgraphs = 0;        // word 1 as stored; TFLM ignores it
  std::vector<std::int32_t> offsets;  // one per tensor of all subgraphs; -1 = plan online
  std::uint32_t metadata_index = 0;   // its position in Model.metadata
  std::uint32_t buffer_index = 0;     // the Model.buffers entry holding the words
  // Why TFLM would refuse it (e.g. N differs from the tensor count), empty when usable.
  // A usable plan is also in Graph::fixed_offsets.
  std::string problem;
};

// The bytes of an OfflineMemoryAllocation buffer: version, subgraphs, N, then the offsets.
std::vector<std::uint8_t> EncodeOfflinePlan(std::uint32_t version, std::uint32_t subgraphs,
                                            const std::vector<std::int32_t>& offsets);

// One Model.metadata entry.
struct TfliteMetadata {
  std::string name;          // e.g. "min_runtime_version", "OfflineMemoryAllocation"
  std::uint32_t buffer = 0;  // index into Model.buffers
  std::uint64_t bytes = 0;   // size of that buffer's data
};

// What shape propagation (tflite_shapes.h) reads from an operator's builtin options; the
// fields an op's options do not have keep their defaults.
struct TfliteOpOptions {
  // CONV_2D, DEPTHWISE_CONV_2D and the 2-D pools: padding 0 = SAME, 1 = VALID, -1 = none.
  std::int32_t padding = -1;
  std::int32_t stride_w = 1, stride_h = 1;
  std::int32_t dilation_w = 1, dilation_h = 1;
  std::int32_t filter_w = 0, filter_h = 0;  // pools
  bool keep_num_dims = false;               // FULLY_CONNECTED
  bool keep_dims = false;                   // MEAN, SUM and the other reductions
  std::int32_t axis = 0;                    // CONCATENATION, PACK, UNPACK
  std::int32_t count = 0;                   // PACK values_count, UNPACK num
  // RESHAPE new_shape (when `has_new_shape`), SQUEEZE squeeze_dims.
  bool has_new_shape = false;
  std::vector<std::int32_t> dims;
  // STRIDED_SLICE.
  std::int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
               shrink_axis_mask = 0;
  bool slice_offset = false;
  bool adj_x = false, adj_y = false;  // BATCH_MATMUL
};

// What memplan reads from a .tflite file.
struct TfliteModel {
  Graph graph;  // format "tflite"; source = the name given to the reader
  std::uint32_t schema_version = 0;
  std::string description;     // Model.description
  std::size_t buffers = 0;     // entries in Model.buffers (0 is the empty sentinel)
  std::size_t file_bytes = 0;  // size of the file
  std::vector<TfliteMetadata> metadata;
  std::optional<OfflinePlan> offline_plan;  // when an OfflineMemoryAllocation entry exists
  // Per subgraph, per tensor: the Model.buffers index it refers to (for writers).
  std::vector<std::vector<std::uint32_t>> tensor_buffers;
  // Per subgraph, per tensor: shape_signature as stored (-1 = open at run time); empty
  // when the file has none.
  std::vector<std::vector<std::vector<std::int64_t>>> shape_signatures;
  // Per subgraph, per op: the options shape propagation reads.
  std::vector<std::vector<TfliteOpOptions>> op_options;
  // Per subgraph, per tensor: the values of a constant int32 or int64 tensor of at most
  // kSmallConstantElements elements (shapes, axes, paddings), row-major; nullopt otherwise.
  std::vector<std::vector<std::optional<std::vector<std::int64_t>>>> small_int_constants;
};

// Constants larger than this are never shape arguments worth reading.
inline constexpr std::size_t kSmallConstantElements = 64;

// Reads a model held in memory; `source` names it in messages. InputError for anything
// that is not a well-formed TensorFlow Lite model.
TfliteModel ParseTflite(std::string_view bytes, std::string_view source);

// Reads a .tflite file (InputError naming the file when it cannot).
TfliteModel ReadTfliteFile(const std::filesystem::path& path, std::string_view source = {});

// The workload of a model already read (what LoadWorkload gives for a .tflite file):
// shape bindings applied, records in the accounting `options` asks for. InputError for an
// unusable offline plan (TFLM accounting) or tensors left without a size.
Workload TfliteWorkload(TfliteModel model, std::string_view label, const LoadOptions& options);

// Builtin operator names: "CONV_2D" for 3, "builtin(999)" for an unknown code.
std::string BuiltinOperatorName(std::int32_t code);
// The code of a builtin operator name, or nullopt.
std::optional<std::int32_t> BuiltinOperatorCode(std::string_view name);

// What `memplan embed` changes in an existing .tflite file.
struct TfliteEmbedding {
  // The OfflineMemoryAllocation metadata to write (replacing any existing entry): one
  // offset per tensor of all subgraphs (subgraph 0 first), -1 = planned online.
  std::vector<std::int32_t> offline_offsets;
  std::uint32_t offline_version = 1;  // word 0 (TFLM ignores it; its tests write 1)
  // Per subgraph: the file's op indices in the order to write them; a subgraph with an
  // empty list (or no entry) keeps its order.
  std::vector<std::vector<std::int32_t>> op_order;
};

// The model `bytes` with `embedding` applied, everything else kept byte for byte:
// sub-tables, buffers and fields memplan's schema does not declare (quantization,
// builtin options, signature defs, ...) are not re-serialised but referenced where they
// are. The result is read back and compared before it is returned. InputError naming
// `source` for models this cannot reproduce faithfully: data stored outside the
// flatbuffer (buffer or custom-option offsets, models over 2 GiB), Model (or, when
// reordering, SubGraph) fields newer than the official schema memplan knows, or an
// `op_order` that is not a permutation of a subgraph's ops.
std::string EmbedInTflite(std::string_view bytes, std::string_view source,
                          const TfliteEmbedding& embedding);

// The first difference between two graphs read from models (subgraph names, inputs and
// outputs; tensor names, types, shapes, sizes, constant and variable flags; op types,
// inputs, outputs, intermediates and called subgraphs), or empty when they are equal.
// Offline offsets (fixed_offsets), source and format are not compared.
std::string GraphDifference(const Graph& a, const Graph& b);

// Options for writing a graph as .tflite.
struct TfliteWriteOptions {
  // Writes an OfflineMemoryAllocation metadata entry with these offsets (one per tensor
  // of all subgraphs, -1 = online) when set.
  std::optional<std::vector<std::int32_t>> offline_offsets;
  std::uint32_t offline_version = 1;  // word 0 of that metadata
  // Writes shape_signature with -1 as the first dimension of every non-constant tensor
  // of rank > 0, as converters do for Keras models (the stored shape stays static).
  bool dynamic_batch_signature = false;
  // Flexbuffers (or other) custom options for ops: (subgraph, op, bytes).
  struct CustomOptions {
    std::int32_t subgraph = 0;        // subgraph of the op
    std::int32_t op = 0;              // index of the op in it
    std::vector<std::uint8_t> bytes;  // Operator.custom_options
  };
  std::vector<CustomOptions> custom_options;
  std::string description = "written by memplan";  // Model.description
};

// Serializes a graph: every tensor (constants get a buffer of zeros of their size,
// at least one byte), ops with builtin codes for builtin names and CUSTOM otherwise,
// IF/WHILE/CALL_ONCE options from called_subgraphs, subgraph inputs and outputs. Writes
// the graph as given, indices unchecked, so tests can build broken models too.
std::string WriteTflite(const Graph& graph, const TfliteWriteOptions& options = {});

}  // namespace memplan
