// Shape inference: ONNX's own, plus the Dropout-mask rule, repeated until stable.
#include <fmt/format.h>
#include <onnx/shape_inference/implementation.h>

#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_fold.h"
#include "src/formats/onnx/onnx_internal.h"
#include "src/formats/onnx/onnx_schemas.h"
#include "src/formats/onnx/onnx_symbolic.h"

namespace memplan::formats {

namespace {

// ONNX 1.12 prints warnings ("Unsupported operator ...") to std::cerr; memplan reports
// problems itself, so the text is kept out of the user's terminal while inference runs.
// std::cerr is process-wide: the mutex keeps two readers from swapping it at once.
class CerrCapture {
 public:
  CerrCapture() : lock_(Mutex()), saved_(std::cerr.rdbuf(captured_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(saved_); }
  CerrCapture(const CerrCapture&) = delete;
  CerrCapture& operator=(const CerrCapture&) = delete;

 private:
  static std::mutex& Mutex() {
    static std::mutex mutex;
    return mutex;
  }
  std::lock_guard<std::mutex> lock_;  // held while std::cerr points at `captured_`
  std::ostringstream captured_;       // what ONNX printed
  std::streambuf* saved_;             // std::cerr's own buffer, restored on exit
};

// `text` on one line: line breaks become "; ".
std::string OneLine(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      if (!out.empty() && !out.ends_with("; ")) out += "; ";
    } else {
      out += c;
    }
  }
  while (out.ends_with("; ")) out.resize(out.size() - 2);
  return Printable(out, 400);
}

// One pass of ONNX's inference; `strict` makes node errors throw instead of being skipped.
// Returns the values data propagation derived.
PropagatedValues InferOnce(onnx::ModelProto& model, bool strict) {
  const onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                            /*strict_mode_val=*/strict ? 1 : 0,
                                            /*data_prop_val=*/true);
  CerrCapture quiet;
  // Values data propagation derives (shapes computed by Shape, Gather, Concat, ...);
  // fresh each pass, as ONNX refuses to record a value twice.
  PropagatedValues propagated;
  onnx::shape_inference::InferShapes(model, &Schemas(), options, &propagated);
  return propagated;
}

// One pass; where stored declarations contradict inference, they are dropped (with a
// warning each) and the pass runs again, a bounded number of times.
// Returns the values data propagation derived.
PropagatedValues RunOnnxInference(onnx::ModelProto& model, std::string_view source,
                                  std::vector<std::string>& warnings) {
  // Each retry drops what one comparison finds, normally all at once; inference writes new
  // declarations each time, so a conflict no declaration causes must not go round forever.
  constexpr int kMaxRetries = 8;
  bool dropped_all = false;  // the last resort is taken once
  for (int retry = 0;; ++retry) {
    try {
      return InferOnce(model, /*strict=*/false);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      const std::string why = OneLine(e.what());
      auto infer = [](onnx::ModelProto& m) { InferOnce(m, /*strict=*/false); };
      if (retry == kMaxRetries)
        throw InputError(
            fmt::format("{}: ONNX shape inference rejects the model: {}", source, why));
      if (DropConflictingDeclarations(model, infer, warnings) > 0) continue;
      // "Inferred shape and existing shape differ", "Inferred elem type differs from
      // existing elem type": stored shapes against computed ones.
      if (!dropped_all && why.find("Inferred") != std::string::npos &&
          why.find("existing") != std::string::npos) {
        dropped_all = true;
        if (DropAllDeclarations(model, why, warnings) > 0) continue;
      }
      throw InputError(fmt::format("{}: ONNX shape inference rejects the model: {}", source, why));
    }
  }
}

// Name -> declared or inferred type, over graph inputs, outputs and value_info.
std::unordered_map<std::string, onnx::ValueInfoProto*> ValueInfos(onnx::GraphProto& graph) {
  std::unordered_map<std::string, onnx::ValueInfoProto*> infos;
  for (auto& v : *graph.mutable_value_info()) infos.emplace(v.name(), &v);
  for (auto& v : *graph.mutable_output()) infos.emplace(v.name(), &v);
  for (auto& v : *graph.mutable_input()) infos[v.name()] = &v;
  return infos;
}

// The declaration of `name` a rule fills in: the existing one, or a new value_info entry.
onnx::ValueInfoProto* DeclarationOf(onnx::GraphProto& graph,
                                    std::unordered_map<std::string, onnx::ValueInfoProto*>& infos,
                                    const std::string& name) {
  if (const auto it = infos.find(name); it != infos.end()) return it->second;
  onnx::ValueInfoProto* added = graph.add_value_info();
  added->set_name(name);
  infos.emplace(name, added);
  return added;
}

bool HasTensorTypeAndShape(const onnx::ValueInfoProto* v) {
  return v && v->type().has_tensor_type() && v->type().tensor_type().elem_type() != 0 &&
         v->type().tensor_type().has_shape();
}

// The project rule (docs/accounting.md): ONNX 1.12 infers nothing for the mask output of
// Dropout-7 (opset < 10). The mask has the input's shape; its element type is the
// input's before opset 10 and bool from opset 10 on. Fills only what is missing;
// returns whether anything changed.
bool ApplyDropoutMaskRule(onnx::ModelProto& model) {
  onnx::GraphProto& graph = *model.mutable_graph();
  const std::int64_t opset = DefaultOpset(model);
  auto infos = ValueInfos(graph);
  bool changed = false;
  for (const auto& node : graph.node()) {
    if (node.op_type() != "Dropout" || !IsDefaultDomain(node) || node.input_size() < 1 ||
        node.output_size() < 2 || node.output(1).empty())
      continue;
    const auto input = infos.find(node.input(0));
    if (input == infos.end() || !HasTensorTypeAndShape(input->second)) continue;
    const onnx::TypeProto_Tensor& from = input->second->type().tensor_type();
    const auto mask = infos.find(node.output(1));
    if (mask != infos.end() && HasTensorTypeAndShape(mask->second)) continue;
    onnx::ValueInfoProto* target = DeclarationOf(graph, infos, node.output(1));
    onnx::TypeProto_Tensor* to = target->mutable_type()->mutable_tensor_type();
    if (to->elem_type() == 0)
      to->set_elem_type(opset < 10 ? from.elem_type() : onnx::TensorProto::BOOL);
    if (!to->has_shape()) *to->mutable_shape() = from.shape();
    changed = true;
  }
  return changed;
}

bool SameStaticShape(const onnx::TypeProto_Tensor& a, const onnx::TypeProto_Tensor& b) {
  if (!a.has_shape() || !b.has_shape() || a.shape().dim_size() != b.shape().dim_size())
    return false;
  for (int i = 0; i < a.shape().dim_size(); ++i) {
    const auto& x = a.shape().dim(i);
    const auto& y = b.shape().dim(i);
    if (!x.has_dim_value() || !y.has_dim_value() || x.dim_value() != y.dim_value()) return false;
  }
  return true;
}

// The project rule for Loop (docs/accounting.md): ONNX 1.12 gives a Loop's final carried
// values a type but no shape, since a body may change a value's shape from one iteration to
// the next. When the body's output has exactly the static shape of the value that enters
// the loop, no iteration can change it: the final value has that shape. Fills only what is
// missing, in every graph (subgraphs included); returns whether anything changed.
bool ApplyLoopCarriedRule(onnx::GraphProto& graph) {
  bool changed = false;
  auto infos = ValueInfos(graph);
  for (auto& node : *graph.mutable_node()) {
    for (auto& attribute : *node.mutable_attribute())
      if (attribute.has_g()) changed |= ApplyLoopCarriedRule(*attribute.mutable_g());
    if (node.op_type() != "Loop" || !IsDefaultDomain(node)) continue;
    const onnx::GraphProto* body = nullptr;
    for (const auto& attribute : node.attribute())
      if (attribute.name() == "body" && attribute.has_g()) body = &attribute.g();
    if (!body) continue;
    // Inputs M, cond, v_1..v_N; body outputs cond, v_1..v_N, scan outputs; node outputs
    // v_1..v_N, scan outputs.
    const int carried = node.input_size() - 2;
    for (int k = 0; k < carried && k < node.output_size() && k + 1 < body->output_size(); ++k) {
      if (node.output(k).empty()) continue;
      const auto entering = infos.find(node.input(k + 2));
      if (entering == infos.end() || !HasTensorTypeAndShape(entering->second)) continue;
      const onnx::ValueInfoProto& leaving = body->output(k + 1);
      if (!leaving.type().has_tensor_type() ||
          !SameStaticShape(entering->second->type().tensor_type(), leaving.type().tensor_type()))
        continue;
      const auto final_value = infos.find(node.output(k));
      if (final_value != infos.end() && HasTensorTypeAndShape(final_value->second)) continue;
      *DeclarationOf(graph, infos, node.output(k))->mutable_type() = entering->second->type();
      changed = true;
    }
  }
  return changed;
}

// Element count of a static shape, nullopt when a dimension is not a number (or the
// product overflows).
std::optional<std::uint64_t> StaticElements(const onnx::TypeProto_Tensor& t) {
  if (!t.has_shape()) return std::nullopt;
  std::uint64_t count = 1;
  for (const auto& d : t.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return std::nullopt;
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(d.dim_value()), &count))
      return std::nullopt;
  }
  return count;
}

// The project rule for a Loop's scan outputs (docs/accounting.md): each is the body's
// per-iteration value stacked once per iteration, and ONNX 1.12 leaves its length unknown.
// With a known trip count M the loop runs at most M times, so a scan output whose
// per-iteration shape is static is [M, ...] (the most the runtime can need). Fills only
// what is missing, in every graph; returns whether anything changed.
bool ApplyLoopScanOutputRule(onnx::GraphProto& graph) {
  bool changed = false;
  auto infos = ValueInfos(graph);
  for (auto& node : *graph.mutable_node()) {
    for (auto& attribute : *node.mutable_attribute())
      if (attribute.has_g()) changed |= ApplyLoopScanOutputRule(*attribute.mutable_g());
    if (node.op_type() != "Loop" || !IsDefaultDomain(node) || node.input_size() < 2 ||
        node.input(0).empty())
      continue;
    const onnx::GraphProto* body = nullptr;
    for (const auto& attribute : node.attribute())
      if (attribute.name() == "body" && attribute.has_g()) body = &attribute.g();
    const auto trips = KnownScalar(graph, node.input(0));
    if (!body || !trips || *trips < 0) continue;
    // Node outputs: v_1..v_N, then the scan outputs; body outputs: cond, v_1..v_N, scans.
    const int carried = node.input_size() - 2;
    for (int k = carried; k < node.output_size() && k + 1 < body->output_size(); ++k) {
      if (node.output(k).empty()) continue;
      const auto& each = body->output(k + 1).type().tensor_type();
      if (!StaticElements(each) || each.elem_type() == 0) continue;
      const auto existing = infos.find(node.output(k));
      if (existing != infos.end() && existing->second->type().has_tensor_type() &&
          StaticElements(existing->second->type().tensor_type()))
        continue;
      onnx::TypeProto_Tensor stacked;
      stacked.set_elem_type(each.elem_type());
      stacked.mutable_shape()->add_dim()->set_dim_value(*trips);
      for (const auto& d : each.shape().dim()) *stacked.mutable_shape()->add_dim() = d;
      *DeclarationOf(graph, infos, node.output(k))->mutable_type()->mutable_tensor_type() = stacked;
      changed = true;
    }
  }
  return changed;
}

std::string StaticShapeText(const onnx::TypeProto_Tensor& t) {
  std::string text = "[";
  for (const auto& d : t.shape().dim())
    text += (text.size() > 1 ? "," : "") + std::to_string(d.dim_value());
  return text + "]";
}

// The project rule for If (docs/import.md): a condition known only at run time leaves an
// output whose branches compute different static shapes without one (ONNX makes the
// differing dimensions unknown). The runtime allocates what the branch that runs
// computes, so the output is planned at the larger branch's shape, with a note saying so.
// Fills only what is missing, in every graph; returns whether anything changed.
bool ApplyIfLargerBranchRule(onnx::GraphProto& graph, std::vector<std::string>& notes) {
  bool changed = false;
  auto infos = ValueInfos(graph);
  for (int i = 0; i < graph.node_size(); ++i) {
    onnx::NodeProto& node = *graph.mutable_node(i);
    for (auto& attribute : *node.mutable_attribute())
      if (attribute.has_g()) changed |= ApplyIfLargerBranchRule(*attribute.mutable_g(), notes);
    if (node.op_type() != "If" || !IsDefaultDomain(node)) continue;
    const onnx::GraphProto* branches[2] = {nullptr, nullptr};
    for (const auto& attribute : node.attribute()) {
      if (!IsControlFlowSubgraph(node, attribute)) continue;
      branches[attribute.name() == "then_branch" ? 0 : 1] = &attribute.g();
    }
    if (!branches[0] || !branches[1]) continue;
    for (int k = 0; k < node.output_size(); ++k) {
      if (node.output(k).empty() || k >= branches[0]->output_size() ||
          k >= branches[1]->output_size())
        continue;
      const auto& then_type = branches[0]->output(k).type().tensor_type();
      const auto& else_type = branches[1]->output(k).type().tensor_type();
      const auto then_count = StaticElements(then_type);
      const auto else_count = StaticElements(else_type);
      if (!then_count || !else_count || then_type.elem_type() == 0 ||
          then_type.elem_type() != else_type.elem_type())
        continue;
      const auto existing = infos.find(node.output(k));
      if (existing != infos.end() && existing->second->type().has_tensor_type() &&
          StaticElements(existing->second->type().tensor_type()))
        continue;
      const bool then_larger = *then_count >= *else_count;
      onnx::ValueInfoProto* target = DeclarationOf(graph, infos, node.output(k));
      *target->mutable_type()->mutable_tensor_type() = then_larger ? then_type : else_type;
      notes.push_back(fmt::format(
          "note: output '{}' of {}: the branch that runs is decided at run time; planned at the "
          "larger branch's shape {} (then_branch {}, else_branch {})",
          Printable(node.output(k)), DescribeNode(node, i),
          StaticShapeText(then_larger ? then_type : else_type), StaticShapeText(then_type),
          StaticShapeText(else_type)));
      changed = true;
    }
  }
  return changed;
}

// Whether a subgraph of If, Loop or Scan declares value_info or typed outputs.
bool HasSubgraphDeclarations(const onnx::GraphProto& graph) {
  for (const auto& node : graph.node())
    for (const auto& attribute : node.attribute()) {
      if (!IsControlFlowSubgraph(node, attribute)) continue;
      const onnx::GraphProto& sub = attribute.g();
      if (sub.value_info_size() > 0 || HasSubgraphDeclarations(sub)) return true;
      for (const auto& output : sub.output())
        if (output.has_type()) return true;
    }
  return false;
}

}  // namespace

std::string FirstNodeInferenceError(const onnx::ModelProto& model) {
  onnx::ModelProto copy = model;
  try {
    InferOnce(copy, /*strict=*/true);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    // "[ShapeInferenceError] Shape inference error(s): (op_type:...): ...\n(op_type:...)..."
    std::string_view text = e.what();
    text = text.substr(0, text.find('\n'));
    constexpr std::string_view kPrefix = "Shape inference error(s): ";
    if (const auto at = text.find(kPrefix); at != std::string_view::npos)
      text.remove_prefix(at + kPrefix.size());
    return OneLine(text);
  }
  return "";
}

std::size_t InferShapesToFixpoint(onnx::ModelProto& model, std::string_view source,
                                  std::vector<std::string>& warnings) {
  std::size_t ruled = 0;  // nodes a project rule may settle
  for (const auto& node : model.graph().node())
    ruled += node.op_type() == "Dropout" || node.op_type() == "Loop" || node.op_type() == "If" ||
             node.op_type() == "Range" || node.op_type() == "ConstantOfShape" ||
             node.op_type() == "Expand";
  // Each pass that changes something settles at least one mask, loop, If or symbolic value,
  // or folds at least one node, so this bound is never hit unless inference undoes a rule; then the
  // last pass's result stands.
  const std::size_t max_passes = ruled + static_cast<std::size_t>(model.graph().node_size()) + 1;
  // Constants computed from initializers and Constant nodes need no inference: fold them
  // first, so the first pass already sees their values.
  FoldConstants(model);
  // A subgraph's stored shape that contradicts inference is no error for ONNX: the If or
  // Loop running it simply stays untyped. So subgraph declarations are checked up front.
  if (HasSubgraphDeclarations(model.graph()))
    DropConflictingDeclarations(
        model, [](onnx::ModelProto& m) { InferOnce(m, /*strict=*/false); }, warnings);
  std::size_t passes = 0;
  bool changed = false;
  do {
    const PropagatedValues values = RunOnnxInference(model, source, warnings);
    ++passes;
    // Every rule and the folding run every pass (no short-circuit): each fills what the
    // others cannot.
    const bool masks = ApplyDropoutMaskRule(model);
    const bool carried = ApplyLoopCarriedRule(*model.mutable_graph());
    const bool larger = ApplyIfLargerBranchRule(*model.mutable_graph(), warnings);
    const bool stacked = ApplyLoopScanOutputRule(*model.mutable_graph());
    const bool symbolic = ApplySymbolicValueRules(model, values);
    const bool folded = FoldConstants(model) > 0;
    changed = masks || carried || larger || stacked || symbolic || folded;
  } while (changed && passes <= max_passes);
  return passes;
}

}  // namespace memplan::formats

namespace memplan::formats {

namespace {

// The child's answer: passes, warnings, how many of the model's first initializers are
// left out (the parent holds them unchanged), then the inferred model.
void PutNumber(std::string& out, std::uint64_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

std::uint64_t TakeNumber(std::string_view& in) {
  std::uint64_t v = 0;
  if (in.size() < sizeof v) throw InternalError("ONNX inference answer cut short");
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return v;
}

std::string TakeText(std::string_view& in) {
  const std::uint64_t size = TakeNumber(in);
  if (in.size() < size) throw InternalError("ONNX inference answer cut short");
  std::string text(in.substr(0, size));
  in.remove_prefix(size);
  return text;
}

// The inferred model for the parent. Initializers are the bulk of a model and inference
// never changes them (folding only appends those of an If branch it takes), so the first
// `names.size()` are left out when they are the parent's; the count left out comes first.
void PutInferredModel(std::string& out, onnx::ModelProto& model,
                      const std::vector<std::string>& names) {
  auto* initializers = model.mutable_graph()->mutable_initializer();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> all;
  all.Swap(initializers);
  bool unchanged = static_cast<std::size_t>(all.size()) >= names.size();
  for (std::size_t i = 0; unchanged && i < names.size(); ++i)
    unchanged = all[static_cast<int>(i)].name() == names[i];
  const std::size_t left_out = unchanged ? names.size() : 0;
  for (int i = static_cast<int>(left_out); i < all.size(); ++i) *initializers->Add() = all[i];
  PutNumber(out, left_out);
  const bool serialized = model.AppendToString(&out);
  initializers->Clear();
  initializers->Swap(&all);
  if (!serialized) throw InternalError("the inferred ONNX model does not serialize");
}

}  // namespace

std::size_t CheckAndInferIsolated(onnx::ModelProto& model, std::string_view source,
                                  std::vector<std::string>& warnings) {
  std::vector<std::string> names;
  for (const auto& init : model.graph().initializer()) names.push_back(init.name());
  // Set where the work ran: in a child they stay as they are here.
  bool ran_here = false;
  std::vector<std::string> found;
  std::size_t passes = 0;
  const std::string answer = RunIsolated(source, "ONNX's shape inference", [&] {
    CheckNodesForInference(model, source);
    passes = InferShapesToFixpoint(model, source, found);
    ran_here = true;
    std::string out;
    if (!IsIsolated()) return out;
    PutNumber(out, passes);
    PutNumber(out, found.size());
    for (const std::string& w : found) {
      PutNumber(out, w.size());
      out += w;
    }
    PutInferredModel(out, model, names);
    return out;
  });
  if (ran_here) {
    warnings.insert(warnings.end(), found.begin(), found.end());
    return passes;
  }
  std::string_view in = answer;
  passes = TakeNumber(in);
  for (std::uint64_t n = TakeNumber(in); n > 0; --n) warnings.push_back(TakeText(in));
  const std::uint64_t left_out = TakeNumber(in);
  if (left_out > names.size()) throw InternalError("the ONNX inference answer is inconsistent");
  onnx::ModelProto inferred;
  if (!inferred.ParseFromArray(in.data(), static_cast<int>(in.size())))
    throw InternalError("the inferred ONNX model does not parse");
  // The parent's own initializers first, in file order, then what folding appended.
  auto* mine = model.mutable_graph()->mutable_initializer();
  mine->DeleteSubrange(static_cast<int>(left_out), mine->size() - static_cast<int>(left_out));
  for (auto& added : *inferred.mutable_graph()->mutable_initializer())
    *mine->Add() = std::move(added);
  inferred.mutable_graph()->mutable_initializer()->Swap(mine);
  model = std::move(inferred);
  return passes;
}

}  // namespace memplan::formats
