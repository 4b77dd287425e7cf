// Shape inference: ONNX's own, plus the Dropout-mask rule, repeated until stable.
#include <fmt/format.h>
#include <onnx/shape_inference/implementation.h>

#include <iostream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "memplan/error.h"
#include "src/formats/onnx/onnx_fold.h"
#include "src/formats/onnx/onnx_internal.h"
#include "src/formats/onnx/onnx_schemas.h"

namespace memplan::onnx_reader {

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
void InferOnce(onnx::ModelProto& model, bool strict) {
  const onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                            /*strict_mode_val=*/strict ? 1 : 0,
                                            /*data_prop_val=*/true);
  CerrCapture quiet;
  // Values data propagation derives (shapes computed by Shape, Gather, Concat, ...);
  // fresh each pass, as ONNX refuses to record a value twice.
  std::unordered_map<std::string, onnx::TensorShapeProto> propagated;
  onnx::shape_inference::InferShapes(model, &Schemas(), options, &propagated);
}

// One pass; where stored declarations contradict inference, they are dropped (with a
// warning each) and the pass runs again. Each retry removes at least one declaration.
void RunOnnxInference(onnx::ModelProto& model, std::string_view source,
                      std::vector<std::string>& warnings) {
  while (true) {
    try {
      InferOnce(model, /*strict=*/false);
      return;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      const std::string why = OneLine(e.what());
      auto infer = [](onnx::ModelProto& m) { InferOnce(m, /*strict=*/false); };
      if (DropConflictingDeclarations(model, infer, warnings) > 0) continue;
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
    ruled += node.op_type() == "Dropout" || node.op_type() == "Loop";
  // Each pass that changes something settles at least one mask or loop value, or folds at
  // least one node, so this bound is never hit unless inference undoes a rule; then the last
  // pass's result stands.
  const std::size_t max_passes = ruled + static_cast<std::size_t>(model.graph().node_size()) + 1;
  // Constants computed from initializers and Constant nodes need no inference: fold them
  // first, so the first pass already sees their values.
  FoldConstants(model);
  std::size_t passes = 0;
  bool changed = false;
  do {
    RunOnnxInference(model, source, warnings);
    ++passes;
    // Every rule and the folding run every pass (no short-circuit): each fills what the
    // others cannot.
    const bool masks = ApplyDropoutMaskRule(model);
    const bool carried = ApplyLoopCarriedRule(*model.mutable_graph());
    const bool folded = FoldConstants(model) > 0;
    changed = masks || carried || folded;
  } while (changed && passes <= max_passes);
  return passes;
}

}  // namespace memplan::onnx_reader
