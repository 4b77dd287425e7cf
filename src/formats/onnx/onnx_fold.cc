// One folding pass over the main graph (onnx_fold.h): evaluates what can be evaluated and
// writes the results into the model as Constant nodes, where ONNX's inference reads them.
#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "src/formats/onnx/onnx_fold.h"
#include "src/formats/onnx/onnx_internal.h"

namespace memplan::formats {

namespace {

// Values folding may hold at once, summed over tensors: a model with many large constant
// chains stops folding there instead of filling memory (shape arithmetic needs little).
constexpr std::int64_t kMaxHeldElements = 8 * kMaxFoldElements;

// The value a Constant node holds, from whichever attribute carries it.
std::optional<ConstTensor> ConstantValue(const onnx::NodeProto& node) {
  for (const auto& a : node.attribute()) {
    ConstTensor v;
    if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR)
      return FromTensorProto(a.t());
    if (a.name() == "value_int" && a.type() == onnx::AttributeProto::INT) {
      v.type = onnx::TensorProto::INT64;
      v.ints = {a.i()};
      return v;
    }
    if (a.name() == "value_ints" && a.type() == onnx::AttributeProto::INTS) {
      if (a.ints_size() > kMaxFoldElements) return std::nullopt;
      v.type = onnx::TensorProto::INT64;
      v.ints.assign(a.ints().begin(), a.ints().end());
      v.dims = {a.ints_size()};
      return v;
    }
    if (a.name() == "value_float" && a.type() == onnx::AttributeProto::FLOAT) {
      v.type = onnx::TensorProto::FLOAT;
      v.reals = {a.f()};
      return v;
    }
    if (a.name() == "value_floats" && a.type() == onnx::AttributeProto::FLOATS) {
      if (a.floats_size() > kMaxFoldElements) return std::nullopt;
      v.type = onnx::TensorProto::FLOAT;
      v.reals.assign(a.floats().begin(), a.floats().end());
      v.dims = {a.floats_size()};
      return v;
    }
  }
  return std::nullopt;
}

// Static dims inference left on a value (graph input, value_info or output) or stored
// with an initializer, if any.
std::unordered_map<std::string, std::vector<std::int64_t>> StaticDims(const onnx::GraphProto& g) {
  std::unordered_map<std::string, std::vector<std::int64_t>> dims;
  auto add = [&](const onnx::ValueInfoProto& info) {
    if (!info.type().has_tensor_type() || !info.type().tensor_type().has_shape()) return;
    std::vector<std::int64_t> d;
    for (const auto& dim : info.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0) return;
      d.push_back(dim.dim_value());
    }
    dims.emplace(info.name(), std::move(d));
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& v : g.output()) add(v);
  // Initializers too large to evaluate still have their dims (Shape of a weight).
  for (const auto& t : g.initializer())
    dims.emplace(t.name(), std::vector<std::int64_t>(t.dims().begin(), t.dims().end()));
  return dims;
}

// Inputs whose values decide an output's shape (default domain, plus ONNX Runtime's
// GroupQueryAttention's total_sequence_length): what folding exists to feed.
std::vector<int> ShapeInputs(const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  if (node.domain() == "com.microsoft")
    return op == "GroupQueryAttention" ? std::vector<int>{6} : std::vector<int>{};
  if (!IsDefaultDomain(node)) return {};
  if (op == "Reshape" || op == "Expand" || op == "Tile" || op == "Upsample" || op == "Split" ||
      op == "Squeeze" || op == "Unsqueeze" || op == "TopK" || op == "OneHot" ||
      op == "CenterCropPad" || op == "Compress" || op.starts_with("Reduce"))
    return {1};
  if (op == "ConstantOfShape" || op == "NonZero") return {0};
  if (op == "Resize" || op == "Pad") return {1, 2, 3};
  if (op == "Slice") return {1, 2, 3, 4};
  if (op == "Range") return {0, 1, 2};
  if (op == "If") return {0};    // a known condition decides which branch runs
  if (op == "Loop") return {0};  // the trip count is the length of its scan outputs
  if (op == "Col2Im") return {1, 2};
  return {};
}

// The values worth computing: inputs at shape positions and, walking back, everything
// they are computed from. Large constant chains that only feed weights stay unevaluated
// (they are folded all the same: BuildGraph folds every node whose inputs are constant).
// A subgraph of If, Loop or Scan may want values of the graphs around it (names are unique
// across a model's graphs, so its wants are added as they are).
std::unordered_set<std::string> FeedsShapes(const onnx::GraphProto& graph) {
  std::unordered_set<std::string> wanted;
  for (int i = graph.node_size() - 1; i >= 0; --i) {
    const onnx::NodeProto& node = graph.node(i);
    for (const auto& attribute : node.attribute())
      if (IsControlFlowSubgraph(node, attribute)) wanted.merge(FeedsShapes(attribute.g()));
    for (const int k : ShapeInputs(node))
      if (k < node.input_size() && !node.input(k).empty()) wanted.insert(node.input(k));
    bool feeds = false;
    for (const std::string& output : node.output()) feeds = feeds || wanted.contains(output);
    if (feeds)
      for (const std::string& input : node.input())
        if (!input.empty()) wanted.insert(input);
  }
  return wanted;
}

// `node` becomes a Constant of the same name holding `value`.
void ReplaceWithConstant(onnx::NodeProto& node, const ConstTensor& value) {
  const std::string output = node.output(0);
  node.clear_input();
  node.clear_attribute();
  node.clear_domain();
  node.set_op_type("Constant");
  auto* attribute = node.add_attribute();
  attribute->set_name("value");
  attribute->set_type(onnx::AttributeProto::TENSOR);
  *attribute->mutable_t() = ToTensorProto(value, output);
}

// What a subgraph sees of the graphs around it: their known values and static dims.
struct Outer {
  std::function<const ConstTensor*(const std::string&)> lookup;
  std::function<const std::vector<std::int64_t>*(const std::string&)> dims;
};

// An If whose condition is a known value runs one branch only. As ONNX Runtime's optimizer
// does, that branch's nodes take the If's place (its outputs passed on through Identity
// nodes named after the If), so inference and planning see what runs; the other branch,
// which these inputs may not even give shapes to, is dropped. Returns the Ifs replaced.
std::size_t InlineDecidedIfs(onnx::GraphProto& graph,
                             const std::function<const ConstTensor*(const std::string&)>& lookup) {
  std::size_t inlined = 0;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    const onnx::GraphProto* branch = nullptr;
    if (node.op_type() == "If" && IsDefaultDomain(node) && node.input_size() == 1) {
      const ConstTensor* cond = lookup(node.input(0));
      if (cond && cond->Elements() == 1 && cond->ints.size() == 1) {
        const std::string taken = cond->ints[0] != 0 ? "then_branch" : "else_branch";
        for (const auto& attribute : node.attribute())
          if (attribute.name() == taken && IsControlFlowSubgraph(node, attribute))
            branch = &attribute.g();
      }
    }
    if (!branch || branch->output_size() != node.output_size()) {
      *nodes.Add() = std::move(node);
      continue;
    }
    // A branch's copies of this graph's own values (CopyOuterValues) are here already.
    std::unordered_set<std::string> present;
    for (const auto& initializer : graph.initializer()) present.insert(initializer.name());
    for (const auto& initializer : branch->initializer())
      if (!present.contains(initializer.name())) *graph.add_initializer() = initializer;
    for (const auto& sparse : branch->sparse_initializer())
      *graph.add_sparse_initializer() = sparse;
    for (const auto& info : branch->value_info()) *graph.add_value_info() = info;
    for (const auto& inner : branch->node()) *nodes.Add() = inner;
    for (int k = 0; k < node.output_size(); ++k) {
      if (node.output(k).empty()) continue;
      onnx::NodeProto& pass = *nodes.Add();
      pass.set_op_type("Identity");
      pass.set_name(node.name() + "/taken_branch_output_" + std::to_string(k));
      pass.add_input(branch->output(k).name());
      pass.add_output(node.output(k));
    }
    ++inlined;
  }
  graph.mutable_node()->Swap(&nodes);  // every node was moved into `nodes`
  return inlined;
}

// One folding pass over `graph` and, as each control-flow node is reached, its subgraphs.
// ONNX 1.12's inference of a subgraph sees the outer graphs' names as types, never as
// values: a Pad or Reshape in an If branch reading the main graph's initializer gets no shape
// (PyTorch's dynamo exporter writes branches like that). So each value the subgraph wants
// from outside, where it is known, becomes an initializer of the subgraph under the same
// name. Returns the number added.
std::size_t CopyOuterValues(onnx::GraphProto& graph, const Outer& outer,
                            const std::unordered_set<std::string>& wanted) {
  std::unordered_set<std::string> local;
  for (const auto& v : graph.input()) local.insert(v.name());
  for (const auto& t : graph.initializer()) local.insert(t.name());
  for (const auto& node : graph.node())
    for (const std::string& output : node.output()) local.insert(output);
  std::vector<std::string> names;
  for (const std::string& name : wanted)
    if (!local.contains(name)) names.push_back(name);
  std::sort(names.begin(), names.end());  // file order does not matter; keep runs identical
  std::size_t added = 0;
  for (const std::string& name : names)
    if (const ConstTensor* value = outer.lookup(name)) {
      *graph.add_initializer() = ToTensorProto(*value, name);
      ++added;
    }
  return added;
}

std::size_t FoldGraph(onnx::GraphProto& graph, std::int64_t opset, const Outer* outer,
                      std::int64_t& held) {
  const std::size_t copied = outer ? CopyOuterValues(graph, *outer, FeedsShapes(graph)) : 0;
  std::unordered_map<std::string, const onnx::TensorProto*> initializers;
  for (const auto& init : graph.initializer()) initializers.emplace(init.name(), &init);
  const auto static_dims = StaticDims(graph);
  const auto wanted = FeedsShapes(graph);
  std::unordered_map<std::string, std::optional<ConstTensor>> values;  // nullopt: not usable
  auto remember = [&](const std::string& name, std::optional<ConstTensor> v) -> const ConstTensor* {
    if (v && held + v->Elements() > kMaxHeldElements) v.reset();
    if (v) held += v->Elements();
    auto& slot = values[name] = std::move(v);
    return slot ? &*slot : nullptr;
  };
  std::function<const ConstTensor*(const std::string&)> lookup =
      [&](const std::string& name) -> const ConstTensor* {
    if (const auto it = values.find(name); it != values.end())
      return it->second ? &*it->second : nullptr;
    const auto init = initializers.find(name);
    if (init != initializers.end()) return remember(name, FromTensorProto(*init->second));
    return outer ? outer->lookup(name) : nullptr;
  };
  std::function<const std::vector<std::int64_t>*(const std::string&)> dims_of =
      [&](const std::string& name) -> const std::vector<std::int64_t>* {
    if (const auto it = static_dims.find(name); it != static_dims.end()) return &it->second;
    return outer ? outer->dims(name) : nullptr;
  };
  const Outer here{lookup, dims_of};

  std::size_t folded = 0;
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (auto& attribute : *node.mutable_attribute())
      if (IsControlFlowSubgraph(node, attribute))
        folded += FoldGraph(*attribute.mutable_g(), opset, &here, held);
    if (!IsDefaultDomain(node) || IsRandom(node.op_type()) || node.output_size() != 1 ||
        !wanted.contains(node.output(0)))
      continue;
    if (node.op_type() == "Constant") {
      remember(node.output(0), ConstantValue(node));
      continue;
    }
    std::vector<const ConstTensor*> inputs;
    bool known = true;
    for (const std::string& input : node.input()) {
      if (input.empty()) {
        inputs.push_back(nullptr);
        continue;
      }
      inputs.push_back(lookup(input));
      known = known && inputs.back();
    }
    std::optional<ConstTensor> result;
    if (known) {
      result = EvaluateNode(node, opset, inputs);
    } else if ((node.op_type() == "Shape" || node.op_type() == "Size") && node.input_size() >= 1) {
      // The values of a runtime tensor are unknown, but a static shape is enough.
      if (const auto* dims = dims_of(node.input(0))) result = EvaluateShapeOf(node, *dims);
    }
    if (!result || !remember(node.output(0), std::move(result))) continue;
    ReplaceWithConstant(node, *values[node.output(0)]);
    ++folded;
  }
  return copied + folded + InlineDecidedIfs(graph, lookup);
}

}  // namespace

std::size_t FoldConstants(onnx::ModelProto& model) {
  std::int64_t held = 0;  // values held at once, over all graphs
  return FoldGraph(*model.mutable_graph(), DefaultOpset(model), nullptr, held);
}

}  // namespace memplan::formats
