#pragma once
// A model as the planners see it: subgraphs of tensors and operators in execution
// order. Readers (TFLite, ONNX) and the built-in zoo produce it; lifetimes.h turns it
// into usage records. Nothing here knows about file formats.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// Element types, numbered as TensorFlow Lite's TensorType so .tflite files map 1:1.
enum class DataType : int {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt32 = 2,
  kUInt8 = 3,
  kInt64 = 4,
  kString = 5,
  kBool = 6,
  kInt16 = 7,
  kComplex64 = 8,
  kInt8 = 9,
  kFloat64 = 10,
  kComplex128 = 11,
  kUInt64 = 12,
  kResource = 13,
  kVariant = 14,
  kUInt32 = 15,
  kUInt16 = 16,
  kInt4 = 17,
  kBFloat16 = 18,
  // Types ONNX defines and TensorFlow Lite does not; numbered apart so new TensorType
  // values never collide with them.
  kFloat8E4M3FN = 100,
  kFloat8E4M3FNUZ = 101,
  kFloat8E5M2 = 102,
  kFloat8E5M2FNUZ = 103,
  kUInt4 = 104,
  kFloat4E2M1 = 105,
};

// "float32", "int4", ...; "type(N)" for an unknown value.
std::string DataTypeName(DataType type);
// Bits per element, or nullopt for types with no static size (string, resource, variant).
std::optional<unsigned> DataTypeBits(DataType type);

// Bytes of a tensor with `elements` elements of `type` (4-bit types pack two to a byte,
// rounded up); nullopt when the type has no static size or the product overflows.
std::optional<Bytes> TensorBytes(DataType type, std::uint64_t elements);

// Elements of a static shape (1 for a scalar []); nullopt when a dimension is negative
// (unknown) or the product overflows 64 bits.
std::optional<std::uint64_t> ShapeElements(const std::vector<std::int64_t>& shape);

// "[1,224,224,3]" for messages.
std::string ShapeText(const std::vector<std::int64_t>& shape);

struct Tensor {
  std::string name;
  DataType type = DataType::kFloat32;
  std::vector<std::int64_t> shape;  // static shape; -1 for a dimension not known
  // Byte size when the shape and type are static; nullopt otherwise (see `why_unsized`).
  std::optional<Bytes> bytes;
  std::string why_unsized;   // why `bytes` is empty, for messages
  bool is_constant = false;  // has data in the model (weights, folded constants)
  bool is_variable = false;  // persistent state (TFLite variable tensors)
  // When `bytes` is empty: the shape the reader expects at run time (e.g. from a custom
  // op's options), offered in messages as a ready --shape binding; empty when unknown.
  std::vector<std::int64_t> likely_shape;
  // Scales of its affine quantization when the model gives both scales and zero points
  // (TensorFlow Lite Micro then builds quantization structs for it); 0 = not quantized.
  std::uint32_t quant_channels = 0;
};

struct Operator {
  std::string type;                  // "CONV_2D", "Conv", or a custom op's name
  std::string name;                  // node name where the format has one, else empty
  std::vector<std::int32_t> inputs;  // tensor indices in the subgraph; -1 = absent optional
  std::vector<std::int32_t> outputs;
  std::vector<std::int32_t> intermediates;  // TFLite intermediates (e.g. LSTM), may be empty
  // Subgraphs this op runs (IF then/else, WHILE cond/body, CALL_ONCE init), in the
  // order the runtime visits them.
  std::vector<std::int32_t> called_subgraphs;
  // Small op parameters some consumers need (.tflite): BATCH_MATMUL {adj_x, adj_y};
  // CONV_2D {padding (0 SAME, 1 VALID), stride_w, stride_h, dilation_w, dilation_h};
  // DEPTHWISE_CONV_2D the same and depth_multiplier; AVERAGE_POOL_2D, MAX_POOL_2D
  // {padding, stride_w, stride_h, filter_w, filter_h}; TRANSPOSE_CONV {padding, stride_w,
  // stride_h}; a custom op {the size of its custom options}. Empty when the model does not say
  // (ops made by a rewrite).
  std::vector<std::int64_t> int_params;
};

struct Subgraph {
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<Operator> ops;  // in execution order
  std::vector<std::int32_t> inputs;
  std::vector<std::int32_t> outputs;
};

struct Graph {
  std::string source;               // the file or zoo name it came from
  std::string format;               // "tflite", "onnx", "zoo"
  std::vector<Subgraph> subgraphs;  // subgraph 0 is the entry point
  // Offsets planned ahead of time (TFLM's OfflineMemoryAllocation metadata): empty, or
  // one per tensor of every subgraph (subgraph 0 first, then 1, ...); -1 = plan online.
  std::vector<std::int64_t> fixed_offsets;

  std::size_t TensorCount() const;
  std::size_t OpCount() const;
};

// Checks that every index in the graph points somewhere (tensors of op inputs, outputs
// and intermediates, subgraph inputs and outputs, called subgraphs, fixed offsets), that
// no op reads a tensor a later op produces, that no subgraph calls itself, and that
// control flow does not visit an absurd number of ops. InputError naming the graph's
// source, the subgraph, the op and the tensor otherwise.
void ValidateGraph(const Graph& graph);

// Ops that run when subgraph 0 runs once, counting called subgraphs each time they are
// called (both branches of an IF); saturates at UINT64_MAX. The graph must be valid.
std::uint64_t OpVisits(const Graph& graph);

// Where a record came from in a graph.
struct TensorRef {
  std::int32_t subgraph = 0;
  std::int32_t tensor = 0;
  friend bool operator==(const TensorRef&, const TensorRef&) = default;
};

}  // namespace memplan
