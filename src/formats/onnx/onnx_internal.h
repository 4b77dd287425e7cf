#pragma once
// The steps of the ONNX reader, in the order ReadOnnx (onnx_read.cc) runs them:
// parse -> check structure -> bind dimensions -> infer shapes -> build the Graph.
// Only src/formats/onnx/ includes this header (it pulls in the ONNX protobuf types).

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "memplan/graph.h"
#include "memplan/onnx.h"
#include "memplan/text.h"
#include "memplan/workload.h"
#include "src/formats/onnx/onnx_isolate.h"

namespace memplan::formats {

// Largest serialized model accepted: protobuf cannot parse messages of 2 GiB or more
// (bigger ONNX models keep their weights in external data files).
inline constexpr std::size_t kMaxModelBytes = (std::size_t{1} << 31) - 1;

// Largest single tensor memplan plans (1 PiB): far beyond any real activation, and low
// enough that rounding and summing sizes can never overflow 64 bits.
inline constexpr Bytes kMaxTensorBytes = Bytes{1} << 50;

// The serialized bytes as a ModelProto with a graph. InputError naming `source` when the
// bytes do not parse (corrupt, truncated, not protobuf) or the model has no graph.
onnx::ModelProto ParseModel(std::string_view bytes, std::string_view source);

// memplan's element type for an ONNX TensorProto.DataType, or nullopt when memplan cannot
// size it (UNDEFINED, unknown numbers).
std::optional<DataType> DataTypeFromOnnx(std::int32_t elem_type);
// "FLOAT", "INT64", ... as ONNX names them; "element type N" for numbers ONNX does not define.
std::string OnnxTypeName(std::int32_t elem_type);

// `text` fit for a one-line message: control characters escaped, shortened past `limit`.
std::string Printable(std::string_view text, std::size_t limit = 80);

// "node 'conv1' (Conv)", or "node #12 (Relu)" when the node has no name.
std::string DescribeNode(const onnx::NodeProto& node, int index);

// True for nodes of the default operator set ("" or "ai.onnx").
bool IsDefaultDomain(const onnx::NodeProto& node);

// Random generators give a new value each run: they never fold, even without inputs.
bool IsRandom(const std::string& op);

// The version of the default operator set the model imports (0 when it imports none).
std::int64_t DefaultOpset(const onnx::ModelProto& model);

// Sorts the nodes of `graph` and of its control-flow subgraphs topologically, keeping file
// order among nodes that may run in either order (a sorted graph is left as it is); nodes
// on a cycle stay after the rest, for CheckStructure to name. Returns the graphs reordered.
std::size_t SortNodesTopologically(onnx::GraphProto& graph);

// Checks what memplan relies on before anything else looks at the graph: nodes in
// topological order (every input is a graph input, an initializer or an earlier node's
// output), every name produced once, graph outputs defined; the same in the subgraphs of If,
// Loop and Scan (which may also read the names of the graphs around them), and no other graph
// attribute. InputError naming the node, the subgraph and the tensor otherwise.
void CheckStructure(const onnx::GraphProto& graph, std::string_view source);

// Whether `attribute` of `node` is a subgraph memplan plans: If's then_branch and
// else_branch, the body of Loop and Scan (default domain).
bool IsControlFlowSubgraph(const onnx::NodeProto& node, const onnx::AttributeProto& attribute);

// "subgraph 'body' of node 'loop' (Loop)" for messages.
std::string DescribeSubgraph(const onnx::NodeProto& node, int index, const std::string& attribute);

// Operator-set versions by domain, exactly as ONNX's inference looks them up.
using Opsets = std::unordered_map<std::string, int>;
template <typename Imports>
Opsets OpsetsOf(const Imports& imports) {
  Opsets opsets;
  for (const auto& opset : imports) opsets[opset.domain()] = static_cast<int>(opset.version());
  return opsets;
}

// Checks what ONNX 1.12's inference functions take for granted (onnx_guard.cc): each
// node of the main graph and of every model-local function matches its operator schema,
// size attributes (strides, dilations, ...) are positive, and functions do not call
// themselves. InputError naming the node or function otherwise.
void CheckNodesForInference(const onnx::ModelProto& model, std::string_view source);

// The node checks of CheckNodesForInference on one list of nodes; `where` prefixes the
// node in messages ("function 'f': ").
void CheckNodesAgainstSchemas(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                              const Opsets& opsets, const std::string& where,
                              std::string_view source);

// Model-local functions (onnx_functions.cc): unique names, checked bodies without
// subgraphs, no call cycles, a bounded number of nodes once calls are expanded.
void CheckFunctions(const onnx::ModelProto& model, std::string_view source);

// Gives every dimension of a graph input that has neither a size nor a name (dim_value -1,
// or nothing: what old exporters write for a free batch) the name "INPUT:AXIS", so that
// --dim can bind it and messages can name it; negative sizes elsewhere become unknown.
void NameAnonymousDims(onnx::GraphProto& graph);

// Applies --dim NAME=VALUE to every declared dimension called NAME (graph inputs,
// outputs, value_info; "batch", when no dimension has that name, binds the open leading
// dimension of every graph input) and --shape TENSOR=AxB to a graph input or node output,
// before inference. UsageError for negative values and names the model lacks.
// The --dim and --shape bindings, after NameAnonymousDims; returns a warning per --dim
// that bound nothing.
std::vector<std::string> ApplyBindings(onnx::GraphProto& graph, const LoadOptions& options,
                                       std::string_view source);

// Folds constants (onnx_fold.h), then runs ONNX shape inference (type checks off, node
// errors not fatal, data propagation on), the Dropout-mask rule and folding again until
// none of them adds anything; returns the number of inference passes.
// Stored value_info or output declarations that contradict what inference computes are
// dropped (DropConflictingDeclarations), each with a "warning: ..." line in `warnings`.
// InputError naming `source` when inference still rejects the model.
std::size_t InferShapesToFixpoint(onnx::ModelProto& model, std::string_view source,
                                  std::vector<std::string>& warnings);

// Runs `infer` on a copy of `model` without value_info and output types, and removes
// from `model` each declaration whose element type, rank or a numeric dimension differs
// from what the copy computed; appends a warning per removal; returns how many.
std::size_t DropConflictingDeclarations(onnx::ModelProto& model,
                                        const std::function<void(onnx::ModelProto&)>& infer,
                                        std::vector<std::string>& warnings);

// The last resort when inference rejects stored shapes that DropConflictingDeclarations
// cannot pin down (the conflict only shows once other stored shapes are used): removes
// every value_info entry and output type, in every graph, with one warning that gives
// ONNX's reason `why` and names the tensors; returns how many.
std::size_t DropAllDeclarations(onnx::ModelProto& model, std::string_view why,
                                std::vector<std::string>& warnings);

// Why inference left tensors untyped: the first node error ONNX reports when the
// inferred model is inferred again in strict mode ("(op_type:Split, node name: n):
// ..."), or "" when it reports none. Only for messages: it costs one more pass.
std::string FirstNodeInferenceError(const onnx::ModelProto& model);

// Runs `work` (which calls into libonnx) in a forked child process and returns what it
// returned; the errors it throws (InputError, UsageError, std::bad_alloc) are thrown here
// too. A child that dies by a signal, or runs longer than a time limit, becomes an
// InputError naming `source` and `what` ("ONNX's shape inference"). Where no process can
// be started, `work` runs in this one.
std::string RunIsolated(std::string_view source, std::string_view what,
                        const std::function<std::string()>& work);
// True in the child process RunIsolated started (where the answer must be serialized).
bool IsIsolated();

// CheckNodesForInference and InferShapesToFixpoint, run through RunIsolated: `model`
// becomes the inferred model, `warnings` gains the inference warnings; returns the passes.
std::size_t CheckAndInferIsolated(onnx::ModelProto& model, std::string_view source,
                                  std::vector<std::string>& warnings);

// Maps the inferred model to memplan's Graph, folding nodes computed from constants.
// InputError for tensors that need planning but cannot be sized (kError), or they stay
// unsized and OnnxModel::open_sizes says why (kKeep).
OnnxModel BuildGraph(const onnx::ModelProto& model, std::string_view source,
                     OnnxUnsized unsized = OnnxUnsized::kError);

}  // namespace memplan::formats
