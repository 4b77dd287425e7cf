// The inferred ModelProto -> memplan's Graph: constants folded, tensors sized, nodes
// that run listed in file order.
#include <fmt/format.h>

#include <algorithm>

#include <fmt/ranges.h>
#include <map>

#include <set>
#include <unordered_map>
#include <unordered_set>

#include "memplan/error.h"
#include "memplan/remedy.h"
#include "src/formats/onnx/onnx_internal.h"
#include "src/formats/onnx/onnx_schemas.h"

namespace memplan::formats {

namespace {

// What inference left known about one value.
struct ValueType {
  std::string kind;                  // "" for a tensor; "sequence", "map", ... otherwise
  std::int32_t onnx_type = 0;        // TensorProto.DataType; 0 = unknown
  bool has_shape = false;            // rank known
  std::vector<std::int64_t> dims;    // -1 where a dimension is not a number
  std::vector<std::string> symbols;  // per dimension: its dim_param, or empty
};

ValueType FromTypeProto(const onnx::TypeProto& type) {
  ValueType v;
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType:
      break;
    case onnx::TypeProto::VALUE_NOT_SET:
      return v;
    case onnx::TypeProto::kSequenceType:
      v.kind = "sequence";
      return v;
    case onnx::TypeProto::kMapType:
      v.kind = "map";
      return v;
    case onnx::TypeProto::kOptionalType:
      v.kind = "optional";
      return v;
    case onnx::TypeProto::kSparseTensorType:
      v.kind = "sparse tensor";
      return v;
    default:
      v.kind = "non-tensor value";
      return v;
  }
  const onnx::TypeProto_Tensor& tensor = type.tensor_type();
  v.onnx_type = tensor.elem_type();
  v.has_shape = tensor.has_shape();
  for (const auto& dim : tensor.shape().dim()) {
    v.dims.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
    v.symbols.push_back(dim.has_dim_param() ? dim.dim_param() : std::string());
  }
  return v;
}

ValueType FromInitializer(const onnx::TensorProto& tensor) {
  ValueType v;
  v.onnx_type = tensor.data_type();
  v.has_shape = true;
  v.dims.assign(tensor.dims().begin(), tensor.dims().end());
  v.symbols.resize(v.dims.size());
  return v;
}

// How complete a value's type is, to pick the best of several declarations.
int Completeness(const ValueType& v) {
  int score = (v.onnx_type != 0) + v.has_shape;
  if (v.has_shape && std::ranges::all_of(v.dims, [](std::int64_t d) { return d >= 0; })) ++score;
  return score;
}

// Name -> the most complete type among graph inputs, value_info and outputs.
std::unordered_map<std::string, ValueType> InferredTypes(const onnx::GraphProto& graph) {
  std::unordered_map<std::string, ValueType> types;
  auto add = [&](const onnx::ValueInfoProto& info) {
    ValueType v = FromTypeProto(info.type());
    auto [it, inserted] = types.emplace(info.name(), v);
    if (!inserted && Completeness(v) > Completeness(it->second)) it->second = std::move(v);
  };
  for (const auto& v : graph.value_info()) add(v);
  for (const auto& v : graph.output()) add(v);
  for (const auto& v : graph.input()) add(v);
  return types;
}

std::string DimsText(const ValueType& v) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < v.dims.size(); ++i)
    parts.push_back(v.dims[i] >= 0         ? std::to_string(v.dims[i])
                    : v.symbols[i].empty() ? std::string("?")
                                           : Printable(v.symbols[i]));
  return fmt::format("[{}]", fmt::join(parts, ","));
}

// Why a tensor cannot be sized, when it is absurdly large rather than unknown.
struct Absurd {
  std::string why;
};

// Fills type, shape and bytes (or why_unsized). Throws Absurd for shapes whose size
// overflows or exceeds kMaxTensorBytes; the caller decides whether that matters.
void SizeTensor(Tensor& tensor, const ValueType& v) {
  tensor.shape = v.dims;
  if (!v.kind.empty()) {
    tensor.why_unsized = fmt::format("it is a {}, not a tensor", v.kind);
    return;
  }
  if (v.onnx_type == 0) {
    tensor.why_unsized = "no element type known after shape inference";
    return;
  }
  const auto type = DataTypeFromOnnx(v.onnx_type);
  if (!type) {
    tensor.why_unsized =
        fmt::format("{} is not an element type memplan can size", OnnxTypeName(v.onnx_type));
    return;
  }
  tensor.type = *type;
  if (!DataTypeBits(*type)) {
    tensor.why_unsized = fmt::format("{} tensors have no static size", OnnxTypeName(v.onnx_type));
    return;
  }
  if (!v.has_shape) {
    tensor.why_unsized = "no shape known after shape inference";
    return;
  }
  std::uint64_t elements = 1;
  bool overflow = false;
  bool empty = false;  // a zero dimension makes the product 0, however large the others
  for (std::size_t i = 0; i < v.dims.size(); ++i) {
    if (v.dims[i] < 0) {
      tensor.why_unsized = v.symbols[i].empty()
                               ? fmt::format("dimension {} of {} is unknown", i, DimsText(v))
                               : fmt::format("dimension {} of {} is symbolic", i, DimsText(v));
      return;
    }
    const auto d = static_cast<std::uint64_t>(v.dims[i]);
    empty = empty || d == 0;
    if (d != 0 && elements > std::numeric_limits<std::uint64_t>::max() / d) overflow = true;
    elements *= d;
  }
  if (empty) elements = 0;
  const auto bytes = overflow && !empty ? std::nullopt : TensorBytes(*type, elements);
  if (!bytes)
    throw Absurd{fmt::format("shape {} of {} is too large: its size overflows 64 bits", DimsText(v),
                             OnnxTypeName(v.onnx_type))};
  if (*bytes > kMaxTensorBytes)
    throw Absurd{fmt::format("shape {} of {} is {} bytes, more than memplan plans (2^50)",
                             DimsText(v), OnnxTypeName(v.onnx_type), *bytes)};
  tensor.bytes = bytes;
}

bool IsStatic(const ValueType& v) {
  return v.kind.empty() && v.has_shape &&
         std::ranges::all_of(v.dims, [](std::int64_t d) { return d >= 0; });
}

// docs/accounting.md: a node is folded when it is Constant, when every input it reads is a
// constant (transitively; this covers ConstantOfShape of an initializer), or when it is a
// Shape of a statically shaped tensor. Only default-domain, deterministic operators fold.
bool IsFolded(const onnx::NodeProto& node, const std::unordered_set<std::string>& constants,
              const std::unordered_map<std::string, ValueType>& types) {
  if (!IsDefaultDomain(node) || IsRandom(node.op_type())) return false;
  if (node.op_type() == "Constant") return true;
  if (node.op_type() == "Shape" && node.input_size() >= 1) {
    const auto it = types.find(node.input(0));
    if (it != types.end() && IsStatic(it->second)) return true;
  }
  for (const std::string& input : node.input())
    if (!input.empty() && !constants.contains(input)) return false;
  return true;
}

// One graph being built: the main graph, or a subgraph an If, Loop or Scan node runs.
struct Scope {
  const onnx::GraphProto* proto = nullptr;
  std::size_t subgraph = 0;  // its index in Graph::subgraphs
  Scope* parent = nullptr;   // the graph around it; null for the main graph
  // The calling op's inputs in the parent: an outer tensor the subgraph reads is added there,
  // so it stays alive while the node runs (ONNX Runtime passes such implicit inputs by
  // reference; docs/accounting.md).
  std::vector<std::int32_t>* caller_inputs = nullptr;
  std::string where;                                    // "" or ": subgraph 'body' of node ..."
  std::unordered_map<std::string, ValueType> types;     // after inference
  std::unordered_set<std::string> constants;            // initializers and folded outputs
  std::unordered_map<std::string, std::int32_t> index;  // tensor name -> index
};

class GraphBuilder {
 public:
  GraphBuilder(const onnx::ModelProto& model, std::string_view source, OnnxUnsized unsized)
      : model_(model),
        source_(source),
        unsized_(unsized),
        opsets_(OpsetsOf(model.opset_import())) {}

  OnnxModel Build() {
    result_.graph.source = std::string(source_);
    result_.graph.format = "onnx";
    result_.file_nodes = static_cast<std::size_t>(model_.graph().node_size());
    result_.opset = DefaultOpset(model_);
    Scope main;
    main.proto = &model_.graph();
    BuildScope(main);
    result_.warnings = std::move(notes_);
    if (result_.unsized_tensors > 0) result_.open_sizes = OpenSizesText();
    return std::move(result_);
  }

 private:
  Subgraph& Sub(const Scope& scope) { return result_.graph.subgraphs[scope.subgraph]; }

  void BuildScope(Scope& scope) {
    const onnx::GraphProto& graph = *scope.proto;
    scope.subgraph = result_.graph.subgraphs.size();
    result_.graph.subgraphs.emplace_back().name = graph.name();
    scope.types = InferredTypes(graph);

    for (const auto& initializer : graph.initializer()) scope.constants.insert(initializer.name());
    for (const auto& sparse : graph.sparse_initializer())
      scope.constants.insert(sparse.values().name());

    // Graph inputs first, then initializers, then node outputs in node order: planned
    // tensors end up in the add order docs/accounting.md gives (the TFLM tie-break).
    for (const auto& input : graph.input()) {
      if (scope.constants.contains(input.name())) continue;
      const std::int32_t t = Add(scope, input.name(), Lookup(scope, input.name()), false, -1);
      Sub(scope).inputs.push_back(t);
    }
    for (const auto& initializer : graph.initializer())
      Add(scope, initializer.name(), FromInitializer(initializer), true, -1);
    for (const auto& sparse : graph.sparse_initializer()) {
      ValueType v = FromInitializer(sparse.values());
      v.dims.assign(sparse.dims().begin(), sparse.dims().end());  // the dense shape
      v.symbols.resize(v.dims.size());
      Add(scope, sparse.values().name(), v, true, -1);
    }

    for (int i = 0; i < graph.node_size(); ++i) {
      const onnx::NodeProto& node = graph.node(i);
      Operator op;
      op.type = node.op_type();
      op.name = node.name();
      // Resolved first: a subgraph learns here which outer names are constants.
      for (const std::string& input : node.input())
        op.inputs.push_back(input.empty() ? -1 : Resolve(scope, input));
      const bool calls = HasControlFlow(node);
      const bool folded = !calls && IsFolded(node, scope.constants, scope.types);
      if (folded) {
        if (scope.parent == nullptr) ++result_.folded_nodes;
        for (const std::string& output : node.output())
          if (!output.empty()) scope.constants.insert(output);
      }
      if (calls) {
        // then_branch before else_branch, as the runtime tries them; Loop and Scan: the body.
        for (const char* name : {"then_branch", "else_branch", "body"})
          for (const auto& attribute : node.attribute())
            if (attribute.name() == name && IsControlFlowSubgraph(node, attribute)) {
              Scope child;
              child.proto = &attribute.g();
              child.parent = &scope;
              child.caller_inputs = &op.inputs;
              child.where = scope.where + ": " + DescribeSubgraph(node, i, attribute.name());
              BuildScope(child);
              op.called_subgraphs.push_back(static_cast<std::int32_t>(child.subgraph));
            }
      }
      for (const std::string& output : node.output())
        if (!output.empty())
          op.outputs.push_back(Add(scope, output, Lookup(scope, output), folded, i));
      if (!folded) Sub(scope).ops.push_back(std::move(op));
    }
    for (const auto& output : graph.output())
      Sub(scope).outputs.push_back(Resolve(scope, output.name()));

    ReportUnsized(scope);
  }

  static bool HasControlFlow(const onnx::NodeProto& node) {
    return std::ranges::any_of(node.attribute(), [&](const onnx::AttributeProto& a) {
      return IsControlFlowSubgraph(node, a);
    });
  }

  // The index of `name` as `scope` sees it: its own tensor, or a stand-in for a tensor of an
  // enclosing graph. The stand-in takes no memory (the outer tensor is what lives); the outer
  // tensor becomes an input of the calling op, at every level in between.
  std::int32_t Resolve(Scope& scope, const std::string& name) {
    if (const auto it = scope.index.find(name); it != scope.index.end()) return it->second;
    if (scope.parent == nullptr)
      throw InputError(
          fmt::format("{}{}: '{}' is defined nowhere", source_, scope.where, Printable(name)));
    const std::int32_t outer = Resolve(*scope.parent, name);
    const Tensor& from = Sub(*scope.parent).tensors[static_cast<std::size_t>(outer)];
    Tensor standin;
    standin.name = from.name;
    standin.type = from.type;
    standin.shape = from.shape;
    standin.is_constant = from.is_constant;
    standin.bytes = from.is_constant ? from.bytes : std::optional<Bytes>(0);
    if (from.is_constant) scope.constants.insert(name);
    std::vector<std::int32_t>& caller = *scope.caller_inputs;
    if (!from.is_constant && std::find(caller.begin(), caller.end(), outer) == caller.end())
      caller.push_back(outer);
    const auto index = static_cast<std::int32_t>(Sub(scope).tensors.size());
    scope.index.emplace(name, index);
    Sub(scope).tensors.push_back(std::move(standin));
    return index;
  }

  static ValueType Lookup(const Scope& scope, const std::string& name) {
    const auto it = scope.types.find(name);
    return it == scope.types.end() ? ValueType{} : it->second;
  }

  // A --shape on the output of an operator memplan has no rule for gives a shape but no
  // element type: the node's first typed input lends its type, with a warning.
  ValueType WithBorrowedType(const Scope& scope, const std::string& name, const ValueType& v,
                             int producer) {
    if (producer < 0 || !v.kind.empty() || v.onnx_type != 0 || !v.has_shape) return v;
    const onnx::NodeProto& node = scope.proto->node(producer);
    if (NoRuleText(node, name).empty()) return v;
    for (const std::string& input : node.input()) {
      const ValueType from = Lookup(scope, input);
      if (!from.kind.empty() || from.onnx_type == 0) continue;
      ValueType typed = v;
      typed.onnx_type = from.onnx_type;
      notes_.push_back(fmt::format(
          "warning: tensor '{}': element type {} taken from input '{}' of {}, which memplan has "
          "no shape rule for",
          Printable(name), OnnxTypeName(from.onnx_type), Printable(input),
          DescribeNode(node, producer)));
      return typed;
    }
    return v;
  }

  std::int32_t Add(Scope& scope, const std::string& name, const ValueType& given, bool constant,
                   int producer) {
    const ValueType v = constant ? given : WithBorrowedType(scope, name, given, producer);
    Tensor tensor;
    tensor.name = name;
    tensor.is_constant = constant;
    try {
      SizeTensor(tensor, v);
    } catch (const Absurd& absurd) {
      // A constant's size never matters: it is not planned.
      if (!constant)
        throw InputError(fmt::format("{}{}: tensor '{}': {}", source_, scope.where, Printable(name),
                                     absurd.why));
      tensor.why_unsized = absurd.why;
    }
    if (!tensor.bytes && producer >= 0 && !constant && v.onnx_type == 0 && !v.has_shape) {
      const onnx::NodeProto& node = scope.proto->node(producer);
      tensor.why_unsized +=
          fmt::format(" (output of {}{})", DescribeNode(node, producer), NoRuleText(node, name));
    }
    for (std::size_t axis = 0; axis < v.symbols.size(); ++axis) {
      const std::string& symbol = v.symbols[axis];
      if (symbol.empty() || constant) continue;
      open_symbols_.insert(Printable(symbol));
      if (producer >= 0)  // where a name ONNX made up first appears, for messages
        symbol_origins_.emplace(
            Printable(symbol),
            fmt::format("dimension {} of '{}' ({}{})", axis, Printable(name),
                        DescribeNode(scope.proto->node(producer), producer), scope.where));
    }
    if (!constant && v.kind.empty() && v.has_shape && !IsStatic(v))
      result_.open_shapes.emplace(name, DimsText(v));
    const auto index = static_cast<std::int32_t>(Sub(scope).tensors.size());
    scope.index.emplace(name, index);
    Sub(scope).tensors.push_back(std::move(tensor));
    return index;
  }

  // Why inference could not type a node's outputs, when memplan has no rule for it:
  // ", an operator memplan has no shape rule for (domain 'd', opset N); give its outputs'
  // shapes with --shape NAME=AxBxC", or "" when a rule exists (then the cause is upstream).
  std::string NoRuleText(const onnx::NodeProto& node, const std::string& output) const {
    const std::string domain = IsDefaultDomain(node) ? std::string("ai.onnx") : node.domain();
    auto opset = opsets_.find(node.domain());
    if (opset == opsets_.end() && IsDefaultDomain(node))
      opset = opsets_.find(node.domain().empty() ? "ai.onnx" : "");
    const int version = opset == opsets_.end() ? -1 : opset->second;
    if (version >= 0 && Schemas().GetSchema(node.op_type(), version, node.domain())) return "";
    const std::string where =
        version < 0 ? fmt::format("domain '{}', which the model does not import", Printable(domain))
                    : fmt::format("domain '{}', opset {}", Printable(domain), version);
    return fmt::format(
        ": {} is an operator memplan has no shape rule for ({}); give its outputs' shapes "
        "(shape of {}: AxBxC)",
        Printable(node.op_type()), where, Printable(output));
  }

  // The open dimensions a --dim can bind, each once with the graph inputs that carry it;
  // names ONNX's inference made up (unk__0, ...) are only counted: nothing in the file
  // carries them, so --dim cannot bind them (--shape can).
  std::string OpenDimensionsText() const {
    if (open_symbols_.empty()) return {};
    std::map<std::string, std::vector<std::string>> carried;  // name -> inputs
    for (const auto& input : model_.graph().input()) {
      if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape()) continue;
      for (const auto& dim : input.type().tensor_type().shape().dim())
        if (dim.has_dim_param() && open_symbols_.count(Printable(dim.dim_param()))) {
          auto& names = carried[Printable(dim.dim_param())];
          const std::string name = Printable(input.name());
          if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
    }
    std::vector<std::string> listed;
    for (const auto& [name, inputs] : carried)
      listed.push_back(fmt::format("{} ({})", name, fmt::join(inputs, ", ")));
    // The others: where each first appears (the tensor a --shape can give).
    std::vector<std::string> origins;
    for (const std::string& symbol : open_symbols_)
      if (!carried.contains(symbol) && origins.size() < 3)
        if (const auto it = symbol_origins_.find(symbol); it != symbol_origins_.end())
          origins.push_back(it->second);
    const std::size_t invented = open_symbols_.size() - carried.size();
    std::string text =
        listed.empty() ? std::string() : fmt::format(" (open: {})", fmt::join(listed, "; "));
    if (invented > 0)
      text += fmt::format(" [{} more left open by ONNX's inference, not named in the file{}{}]",
                          invented, origins.empty() ? "" : "; first seen as ",
                          fmt::join(origins, ", "));
    return text;
  }

  // What the tensors kept unsized lack: the first few, then the open dimensions.
  std::string OpenSizesText() const {
    const std::size_t shown = std::min<std::size_t>(kept_problems_.size(), 4);
    std::vector<std::string> first(kept_problems_.begin(),
                                   kept_problems_.begin() + static_cast<std::ptrdiff_t>(shown));
    const std::size_t count = result_.unsized_tensors;
    return fmt::format("{}{}{}", fmt::join(first, "; "),
                       count > shown ? fmt::format("; and {} more", count - shown) : std::string(),
                       OpenDimensionsText());
  }

  // Every tensor that needs planning must have a size.
  void ReportUnsized(const Scope& scope) {
    std::vector<std::string> problems;
    std::size_t count = 0;
    for (const Tensor& t : Sub(scope).tensors) {
      if (t.is_constant || t.bytes) continue;
      if (++count <= 4)
        problems.push_back(fmt::format("'{}': {}", Printable(t.name), t.why_unsized));
    }
    if (count == 0) return;
    const std::string more = count > problems.size()
                                 ? fmt::format("; and {} more", count - problems.size())
                                 : std::string();
    const std::string dims = OpenDimensionsText();
    if (unsized_ == OnnxUnsized::kKeep) {
      // Said once for the whole model, when it is built (OpenSizesText).
      result_.unsized_tensors += count;
      kept_problems_.insert(kept_problems_.end(), problems.begin(), problems.end());
      return;
    }
    const std::string node_error = NodeInferenceErrorIsolated();
    const std::string reported =
        node_error.empty() ? std::string() : fmt::format("; ONNX reports {}", node_error);
    throw InputErrorWithRemedies(
        fmt::format("{}{}: {} tensor{} cannot be sized after ONNX shape inference: {}{}{}; bind "
                    "dimensions{} or whole shapes",
                    source_, scope.where, count, count == 1 ? "" : "s", fmt::join(problems, "; "),
                    more, reported, dims),
        {{Remedy::Kind::kBindDimension, "NAME", "VALUE"},
         {Remedy::Kind::kBindShape, "TENSOR", "AxBxC"}});
  }

  // FirstNodeInferenceError, in a child process: only for the message, so a crash there
  // is said in its place.
  std::string NodeInferenceErrorIsolated() const {
    try {
      return RunIsolated(source_, "ONNX's shape inference",
                         [this] { return FirstNodeInferenceError(model_); });
    } catch (const InputError& e) {
      return e.what();
    }
  }

  const onnx::ModelProto& model_;
  std::string_view source_;
  OnnxUnsized unsized_;                     // refuse unsized tensors, or keep them
  std::vector<std::string> kept_problems_;  // why tensors kept unsized have no size
  OnnxModel result_;                        // what Build returns
  std::set<std::string> open_symbols_;      // dim_params left on tensors that need planning
  std::map<std::string, std::string> symbol_origins_;  // dim_param -> where it first appears
  Opsets opsets_;                                      // operator-set versions by domain
  std::vector<std::string> notes_;                     // warnings for OnnxModel::warnings
};

}  // namespace

OnnxModel BuildGraph(const onnx::ModelProto& model, std::string_view source, OnnxUnsized unsized) {
  return GraphBuilder(model, source, unsized).Build();
}

}  // namespace memplan::formats
