// The built-in in-place rule sets (docs/below-the-bound.md).
#include <fmt/format.h>

#include <algorithm>

#include "memplan/error.h"
#include "memplan/inplace.h"

namespace memplan {

namespace {

constexpr std::uint32_t kInput0 = 1u;
constexpr std::uint32_t kInputs01 = 3u;
// TensorFlow Lite looks at the first three inputs only (kTfLiteMaxSharableOpInputs).
constexpr std::uint32_t kInputs012 = 7u;
constexpr std::uint32_t kAnyInput = ~0u;

using Rules = std::vector<InPlaceRule>;

void Add(Rules& rules, std::initializer_list<const char*> ops, std::uint32_t inputs, ShareKind kind,
         const char* why) {
  for (const char* op : ops) rules.push_back({op, inputs, kind, why});
}

// ---- reasons, one line each -------------------------------------------------------

constexpr const char* kTfliteBinary =
    "TFLite CPU declares Input0Shared|Input1Shared; output i reads both operands at i "
    "(the equal-bytes rule picks the full-shape one) before writing i";
constexpr const char* kTfliteSoftmax =
    "TFLite CPU declares Input0Shared: each row's maximum and sum are taken before the "
    "row is written";
constexpr const char* kDynamicUpdateSlice =
    "the kernel copies the operand only when the pointers differ, then writes the update "
    "over it";
constexpr const char* kTfliteAlias =
    "TFLite CPU declares Input0Shared|DataUnmodified: the output's bytes are the input's";
constexpr const char* kOnnxAsTfliteBinary =
    "ONNX counterpart of TFLite's ADD/SUB/MUL/DIV (Input0Shared|Input1Shared)";
constexpr const char* kOnnxAsTfliteSoftmax = "ONNX counterpart of TFLite's SOFTMAX (Input0Shared)";
constexpr const char* kOnnxAsTfliteAlias =
    "ONNX counterpart of TFLite's RESHAPE/SQUEEZE/EXPAND_DIMS (DataUnmodified)";

constexpr const char* kTflmReshape =
    "TFLM's RESHAPE skips its copy when input and output are the same memory";
constexpr const char* kTflmExpandDims =
    "TFLM's EXPAND_DIMS copies element by element: on the same memory each element is "
    "rewritten with itself";
constexpr const char* kUnary =
    "element-wise: output i depends only on input i, read just before it is written";
constexpr const char* kBinary =
    "element-wise: output i reads the full-shape operand at i (equal bytes) before "
    "writing i; the broadcast operand is never the shared one";
constexpr const char* kTflmSoftmax =
    "reference Softmax, per row: the maximum over the input row, then exp written at the "
    "index just read (float, int16) or the row sum read-only then each output written "
    "after its input (int8), then normalised in the output row; int8->int16 is a "
    "widening the equal-bytes rule excludes";
constexpr const char* kL2Norm =
    "the row's norm is taken over the input before anything is written, then each output "
    "element is written after its input element is read";
constexpr const char* kLogSoftmax =
    "the row's maximum and sum of exponentials are taken before anything is written, "
    "then output i is computed from input i";
constexpr const char* kConvert =
    "element-wise conversion between equal widths (equal bytes): output i from input i";
constexpr const char* kAffine =
    "per-channel affine with constant scale and shift: element-wise on the data operand";
constexpr const char* kAlias = "reshape-like: the output's bytes are the input's, unchanged";
constexpr const char* kOnnxNoOp =
    "a no-op at inference (converters remove it): the output's bytes are the input's";
constexpr const char* kSqueezeAlias =
    "reshape-like; note TFLM's SQUEEZE memcpy()s onto itself, so `tflm` leaves it out";

// ---- the sets -----------------------------------------------------------------------

const std::initializer_list<const char*> kTfliteUnary = {
    "RELU",       "RELU6",  "RELU_N1_TO_1", "RELU_0_TO_1", "LEAKY_RELU", "LOGISTIC", "TANH",
    "HARD_SWISH", "ELU",    "ABS",          "NEG",         "EXP",        "LOG",      "SQRT",
    "RSQRT",      "SQUARE", "SIN",          "COS",         "FLOOR",      "CEIL",     "ROUND"};
const std::initializer_list<const char*> kTfliteBinaryOps = {
    "ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM"};
const std::initializer_list<const char*> kOnnxUnary = {
    "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Clip",  "Elu", "Abs", "Neg",      "Exp",
    "Log",  "Sqrt",      "Floor",   "Ceil", "Round", "Sin", "Cos", "HardSwish"};
const std::initializer_list<const char*> kOnnxBinary = {"Add", "Sub", "Mul", "Div", "Max", "Min"};

Rules TfliteRules() {
  Rules r;
  Add(r, {"ADD", "SUB", "MUL", "DIV"}, kInputs01, ShareKind::kOverwrite, kTfliteBinary);
  Add(r, {"SOFTMAX"}, kInput0, ShareKind::kOverwrite, kTfliteSoftmax);
  Add(r, {"DYNAMIC_UPDATE_SLICE"}, kInput0, ShareKind::kOverwrite, kDynamicUpdateSlice);
  Add(r, {"RESHAPE", "SQUEEZE", "EXPAND_DIMS", "BITCAST"}, kInput0, ShareKind::kAlias,
      kTfliteAlias);
  // ONNX graphs planned with TensorFlow Lite's rules: the same operators by their ONNX names.
  Add(r, {"Add", "Sub", "Mul", "Div"}, kInputs01, ShareKind::kOverwrite, kOnnxAsTfliteBinary);
  Add(r, {"Sum"}, kInputs012, ShareKind::kOverwrite, kOnnxAsTfliteBinary);
  Add(r, {"Softmax"}, kInput0, ShareKind::kOverwrite, kOnnxAsTfliteSoftmax);
  Add(r, {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}, kInput0, ShareKind::kAlias,
      kOnnxAsTfliteAlias);
  Add(r, {"Identity", "Dropout"}, kInput0, ShareKind::kAlias, kOnnxNoOp);
  return r;
}

Rules TflmRules() {
  Rules r;
  Add(r, {"RESHAPE"}, kInput0, ShareKind::kAlias, kTflmReshape);
  Add(r, {"EXPAND_DIMS"}, kInput0, ShareKind::kAlias, kTflmExpandDims);
  Add(r, {"DYNAMIC_UPDATE_SLICE"}, kInput0, ShareKind::kOverwrite, kDynamicUpdateSlice);
  Add(r, kTfliteUnary, kInput0, ShareKind::kOverwrite, kUnary);
  Add(r, {"QUANTIZE", "CAST"}, kInput0, ShareKind::kOverwrite, kConvert);
  Add(r, kTfliteBinaryOps, kInputs01, ShareKind::kOverwrite, kBinary);
  Add(r, {"SOFTMAX"}, kInput0, ShareKind::kOverwrite, kTflmSoftmax);
  Add(r, {"L2_NORMALIZATION"}, kInput0, ShareKind::kOverwrite, kL2Norm);
  // ONNX names of the same kernels (what a converter turns them into).
  Add(r, {"Reshape", "Flatten"}, kInput0, ShareKind::kAlias, kTflmReshape);
  Add(r, {"Unsqueeze"}, kInput0, ShareKind::kAlias, kTflmExpandDims);
  Add(r, {"Identity", "Dropout"}, kInput0, ShareKind::kAlias, kOnnxNoOp);
  Add(r, kOnnxUnary, kInput0, ShareKind::kOverwrite, kUnary);
  Add(r, kOnnxBinary, kInputs01, ShareKind::kOverwrite, kBinary);
  Add(r, {"Sum"}, kAnyInput, ShareKind::kOverwrite, kBinary);
  Add(r, {"Softmax"}, kInput0, ShareKind::kOverwrite, kTflmSoftmax);
  return r;
}

Rules AllRules() {
  Rules r = TflmRules();
  // Replace the TFLM-specific reasons where `all` allows more.
  Add(r, {"SQUEEZE", "BITCAST"}, kInput0, ShareKind::kAlias, kSqueezeAlias);
  Add(r, {"Squeeze"}, kInput0, ShareKind::kAlias, kAlias);
  Add(r, {"LOG_SOFTMAX"}, kInput0, ShareKind::kOverwrite, kLogSoftmax);
  Add(r, {"BatchNormalization"}, kInput0, ShareKind::kOverwrite, kAffine);
  return r;
}

InPlaceRuleSet MakeSet(std::string name, std::string summary, bool single_consumer, Rules rules) {
  std::sort(rules.begin(), rules.end(),
            [](const InPlaceRule& a, const InPlaceRule& b) { return a.op < b.op; });
  return {std::move(name), std::move(summary), single_consumer, std::move(rules)};
}

const std::vector<InPlaceRuleSet>& BuiltinSets() {
  static const std::vector<InPlaceRuleSet> sets = {
      MakeSet("none", "no output shares an input's memory (default; figures stay comparable)",
              false, {}),
      MakeSet("tflite",
              "TensorFlow Lite CPU's ArenaPlanner: ADD, SUB, MUL, DIV, SOFTMAX, "
              "DYNAMIC_UPDATE_SLICE overwrite an input read by no other op; RESHAPE, SQUEEZE, "
              "EXPAND_DIMS, BITCAST alias",
              true, TfliteRules()),
      MakeSet("tflm",
              "what TensorFlow Lite Micro's reference kernels tolerate on identical memory "
              "(for an offline plan): RESHAPE/EXPAND_DIMS aliases, element-wise ops, SOFTMAX, "
              "DYNAMIC_UPDATE_SLICE; not SQUEEZE",
              false, TflmRules()),
      MakeSet("all",
              "every op safe with element-wise loops (memplan's runtime, your own kernels): "
              "tflm + SQUEEZE/BITCAST, LOG_SOFTMAX, ONNX Squeeze and BatchNormalization",
              false, AllRules()),
  };
  return sets;
}

}  // namespace

const InPlaceRule* InPlaceRuleSet::Find(std::string_view op) const {
  const auto it =
      std::lower_bound(rules.begin(), rules.end(), op,
                       [](const InPlaceRule& r, std::string_view o) { return r.op < o; });
  return it != rules.end() && it->op == op ? &*it : nullptr;
}

std::span<const InPlaceRuleSet> InPlaceRuleSets() {
  return BuiltinSets();
}

const InPlaceRuleSet* FindInPlaceRuleSet(std::string_view name) {
  for (const InPlaceRuleSet& set : BuiltinSets())
    if (set.name == name) return &set;
  return nullptr;
}

const InPlaceRuleSet& InPlaceRuleSetNamed(std::string_view name) {
  if (const InPlaceRuleSet* set = FindInPlaceRuleSet(name)) return *set;
  std::string known;
  for (const InPlaceRuleSet& set : BuiltinSets()) known += (known.empty() ? "" : ", ") + set.name;
  throw UsageError(fmt::format("unknown in-place rule set '{}'; choose one of: {}", name, known));
}

InPlaceRuleSet WithoutOps(const InPlaceRuleSet& set, const std::vector<std::string>& ops) {
  InPlaceRuleSet out = set;
  for (const std::string& op : ops) {
    out.name += "-" + op;
    std::erase_if(out.rules, [&](const InPlaceRule& r) { return r.op == op; });
  }
  return out;
}

}  // namespace memplan
