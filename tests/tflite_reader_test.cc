// The .tflite reader: what it reads, and that every kind of bad file is an InputError
// naming the file and the problem (never a crash or an out-of-bounds read).
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <random>

#include "memplan/error.h"
#include "memplan/lifetimes.h"
#include "memplan/remedy.h"
#include "memplan/shape_binding.h"
#include "memplan_tflite_generated.h"
#include "tests/graph_builder.h"
#include "tests/tflite_roundtrip.h"

namespace memplan {
namespace {

namespace fb = memplan::tflite::fb;
using testing::GraphBuilder;
using testing::ThroughTflite;

// The InputError message of `f`, or a test failure.
template <typename F>
std::string InputErrorOf(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

// The bindings the InputError of `f` offers as remedies: "shape det=1x10x4, dimension batch=N".
template <typename F>
std::string BindingsOffered(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    std::string out;
    for (const Remedy& r : RemediesOf(e))
      out += (out.empty() ? "" : ", ") +
             std::string(r.kind == Remedy::Kind::kBindShape ? "shape " : "dimension ") + r.name +
             "=" + r.value;
    return out;
  }
  ADD_FAILURE() << "expected an InputError";
  return {};
}

std::string ParseError(const std::string& bytes) {
  return InputErrorOf([&] { ParseTflite(bytes, "test.tflite"); });
}

#define EXPECT_HAS(text, part)                    \
  EXPECT_NE((text).find(part), std::string::npos) \
      << "message: " << (text) << "\nmissing: " << (part)

// input -> ADD(input, w) -> mid -> RELU -> out, with a constant w.
Graph SmallGraph() {
  GraphBuilder b;
  const auto in = b.Typed("input", DataType::kFloat32, {1, 4});
  const auto w = b.Constant("w", 16);
  const auto mid = b.Typed("mid", DataType::kFloat32, {1, 4});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 4});
  b.Inputs({in}).Outputs({out}).Op("ADD", {in, w}, {mid}).Op("RELU", {mid}, {out});
  return b.Build();
}

fb::Model* Mutable(std::string& bytes) {
  return fb::GetMutableModel(bytes.data());
}

TEST(TfliteReader, ReadsTypesShapesSizesAndOps) {
  GraphBuilder b;
  const auto i4 = b.Typed("i4", DataType::kInt4, {3});
  const auto f16 = b.Typed("f16", DataType::kFloat16, {3});
  const auto bf16 = b.Typed("bf16", DataType::kBFloat16, {2});
  const auto c64 = b.Typed("c64", DataType::kComplex64, {2});
  const auto flag = b.Typed("flag", DataType::kBool, {3});
  const auto scalar = b.Typed("scalar", DataType::kFloat64, {});
  const auto text = b.Typed("text", DataType::kString, {2});
  b.Inputs({i4}).Outputs({text});
  b.Op("CUMSUM", {i4, -1}, {f16}).Op("GELU", {f16}, {bf16}).Op("MyCustomOp", {bf16}, {c64});
  b.Op("CONV_2D", {c64}, {flag}).Op("CAST", {flag}, {scalar}).Op("CAST", {scalar}, {text});
  const TfliteModel m = ThroughTflite(b.Build());
  EXPECT_EQ(m.graph.source, "test.tflite");
  EXPECT_EQ(m.graph.format, "tflite");
  EXPECT_EQ(m.schema_version, 3u);
  const Subgraph& sg = m.graph.subgraphs.at(0);
  std::vector<std::optional<Bytes>> bytes;
  for (const Tensor& t : sg.tensors) bytes.push_back(t.bytes);
  EXPECT_EQ(bytes, (std::vector<std::optional<Bytes>>{2, 6, 4, 16, 3, 8, std::nullopt}));
  EXPECT_HAS(sg.tensors[6].why_unsized, "string tensors are sized at run time");
  EXPECT_EQ(sg.tensors[1].shape, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(sg.tensors[1].type, DataType::kFloat16);
  std::vector<std::string> types;
  for (const Operator& op : sg.ops) types.push_back(op.type);
  EXPECT_EQ(types,
            (std::vector<std::string>{"CUMSUM", "GELU", "MyCustomOp", "CONV_2D", "CAST", "CAST"}));
  EXPECT_EQ(sg.ops[0].inputs, (std::vector<std::int32_t>{0, -1}));
}

TEST(TfliteReader, BuiltinCodeIsTheLargerOfItsTwoFields) {
  std::string bytes = WriteTflite(SmallGraph());
  // Old files carry only deprecated_builtin_code (ADD = 0 here, so make it RELU's 19).
  auto* code = Mutable(bytes)->mutable_operator_codes()->GetMutableObject(0);
  ASSERT_TRUE(code->mutate_deprecated_builtin_code(19));
  ASSERT_TRUE(code->mutate_builtin_code(0));
  EXPECT_EQ(ParseTflite(bytes, "t").graph.subgraphs[0].ops[0].type, "RELU");
  EXPECT_EQ(BuiltinOperatorName(129), "CALL_ONCE");
  EXPECT_EQ(BuiltinOperatorName(4242), "builtin(4242)");
  EXPECT_EQ(BuiltinOperatorCode("STABLEHLO_ADD"), 163);
}

TEST(TfliteReader, ConstantsAndVariables) {
  GraphBuilder b;
  const auto in = b.Tensor("in", 8), w = b.Constant("w", 8), v = b.Variable("v", 8);
  const auto out = b.Tensor("out", 8);
  b.Inputs({in}).Outputs({out}).Op("SVDF", {in, w, v}, {out});
  const TfliteModel m = ThroughTflite(b.Build());
  const auto& t = m.graph.subgraphs[0].tensors;
  EXPECT_FALSE(t[0].is_constant);
  EXPECT_TRUE(t[1].is_constant);
  EXPECT_TRUE(t[2].is_variable);
  EXPECT_FALSE(t[2].is_constant);
  EXPECT_EQ(m.buffers, 2u);
  EXPECT_EQ(m.tensor_buffers[0][1], 1u);
}

TEST(TfliteReader, WrongMagicTooShortAndEmpty) {
  std::string bytes = WriteTflite(SmallGraph());
  bytes.replace(4, 4, "ONNX");
  EXPECT_HAS(ParseError(bytes),
             "test.tflite: not a TensorFlow Lite model: the file identifier (bytes 4-7) is 'ONNX', "
             "expected 'TFL3'");
  EXPECT_HAS(ParseError("TFL3"), "test.tflite: too short to be a TensorFlow Lite model (4 bytes)");
  EXPECT_HAS(ParseError(""), "(0 bytes)");
  EXPECT_HAS(ParseError(WriteTflite(Graph{})), "test.tflite: the model has no subgraphs");
}

TEST(TfliteReader, EveryTruncationIsRejected) {
  const std::string bytes = WriteTflite(SmallGraph());
  for (std::size_t n = 8; n < bytes.size(); ++n) {
    const std::string message = ParseError(bytes.substr(0, n));
    EXPECT_HAS(message, "test.tflite: corrupt or truncated TensorFlow Lite model: ");
    EXPECT_HAS(message, "fails flatbuffer verification");
  }
}

TEST(TfliteReader, TruncationIsLocated) {
  const std::string bytes = WriteTflite(SmallGraph());
  // The root offset points past a 12-byte prefix.
  EXPECT_HAS(ParseError(bytes.substr(0, 12)), "the root table offset");
}

TEST(TfliteReader, BitFlipsNeverCrash) {
  const std::string original = WriteTflite(SmallGraph());
  std::mt19937_64 rng(7);
  int rejected = 0, accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string bytes = original;
    for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips)
      bytes[rng() % bytes.size()] ^= static_cast<char>(1u << (rng() % 8));
    try {
      const TfliteModel m = ParseTflite(bytes, "flipped.tflite");
      RecordsFromGraph(m.graph);
      RecordsFromGraph(m.graph, {Accounting::kIntermediatesOnly});
      ++accepted;
    } catch (const InputError& e) {
      EXPECT_HAS(std::string(e.what()), "flipped.tflite");
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 100);
  EXPECT_GT(accepted, 100);  // flips in names or weights are harmless
}

TEST(TfliteReader, DanglingIndices) {
  {
    Graph g = SmallGraph();
    g.subgraphs[0].ops[1].inputs = {99};
    EXPECT_HAS(ParseError(WriteTflite(g)),
               "test.tflite: subgraph 0, op 1 (RELU): input 0 is tensor 99, but the subgraph has 4 "
               "tensors");
  }
  {
    Graph g = SmallGraph();
    g.subgraphs[0].ops[0].inputs = {0, -3};
    EXPECT_HAS(ParseError(WriteTflite(g)),
               "subgraph 0, op 0 (ADD): input 1 is tensor -3, which is negative (only -1, an "
               "omitted optional input, may be)");
  }
  {
    Graph g = SmallGraph();
    g.subgraphs[0].outputs = {7};
    EXPECT_HAS(ParseError(WriteTflite(g)),
               "subgraph 0: output 0 is tensor 7, but the subgraph has 4 tensors");
  }
  {
    Graph g = SmallGraph();
    g.subgraphs[0].ops[1].intermediates = {4};
    EXPECT_HAS(ParseError(WriteTflite(g)), "op 1 (RELU): intermediate 0 is tensor 4");
  }
  {
    Graph g = SmallGraph();
    g.subgraphs[0].ops[1].type = "IF";
    g.subgraphs[0].ops[1].called_subgraphs = {0, 5};
    EXPECT_HAS(ParseError(WriteTflite(g)),
               "subgraph 0, op 1 (IF): calls subgraph 5, but the model has 1 subgraphs");
  }
}

TEST(TfliteReader, DanglingBufferOpcodeAndMetadataIndices) {
  {
    std::string bytes = WriteTflite(SmallGraph());
    auto* tensor = Mutable(bytes)
                       ->mutable_subgraphs()
                       ->GetMutableObject(0)
                       ->mutable_tensors()
                       ->GetMutableObject(1);
    ASSERT_TRUE(tensor->mutate_buffer(999));
    EXPECT_HAS(ParseError(bytes),
               "test.tflite: subgraph 0, tensor 1 'w': buffer index 999, but the model has 2 "
               "buffers");
  }
  {
    std::string bytes = WriteTflite(SmallGraph());
    auto* op = Mutable(bytes)
                   ->mutable_subgraphs()
                   ->GetMutableObject(0)
                   ->mutable_operators()
                   ->GetMutableObject(1);
    ASSERT_TRUE(op->mutate_opcode_index(7));
    EXPECT_HAS(ParseError(bytes),
               "subgraph 0, op 1: operator code index 7, but the model has 2 operator codes");
  }
  {
    TfliteWriteOptions w;
    w.offline_offsets = std::vector<std::int32_t>{-1, -1, -1, -1};
    std::string bytes = WriteTflite(SmallGraph(), w);
    ASSERT_TRUE(Mutable(bytes)->mutable_metadata()->GetMutableObject(0)->mutate_buffer(55));
    EXPECT_HAS(ParseError(bytes),
               "metadata entry 0 ('OfflineMemoryAllocation'): buffer index 55, but the model has 3 "
               "buffers");
  }
}

TEST(TfliteReader, UnknownTypesAndBadShapes) {
  {
    std::string bytes = WriteTflite(SmallGraph());
    auto* t = Mutable(bytes)
                  ->mutable_subgraphs()
                  ->GetMutableObject(0)
                  ->mutable_tensors()
                  ->GetMutableObject(2);
    ASSERT_TRUE(t->mutate_type(static_cast<fb::TensorType>(42)));
    EXPECT_HAS(ParseError(bytes), "subgraph 0, tensor 2 'mid': unknown tensor type 42");
  }
  {
    std::string bytes = WriteTflite(SmallGraph());
    auto* t = Mutable(bytes)
                  ->mutable_subgraphs()
                  ->GetMutableObject(0)
                  ->mutable_tensors()
                  ->GetMutableObject(2);
    t->mutable_shape()->Mutate(1, -7);
    EXPECT_HAS(ParseError(bytes), "tensor 2 'mid': dimension 1 is -7 (a size, or -1 when unknown)");
  }
  {
    Graph g = SmallGraph();
    g.subgraphs[0].tensors[2].shape = {2147483647, 2147483647, 2147483647};
    EXPECT_HAS(ParseError(WriteTflite(g)),
               "tensor 2 'mid': shape [2147483647,2147483647,2147483647] of float32 is absurd");
  }
}

TEST(TfliteReader, OpsMustBeInExecutionOrder) {
  GraphBuilder b;
  const auto in = b.Tensor("in", 4), a = b.Tensor("a", 4), out = b.Tensor("out", 4);
  b.Inputs({in}).Outputs({out}).Op("RELU", {a}, {out}).Op("ABS", {in}, {a});
  EXPECT_HAS(ParseError(WriteTflite(b.Build())),
             "test.tflite: subgraph 0, op 0 (RELU) reads tensor 'a' (#1) before subgraph 0, op 1 "
             "(ABS) produces it (ops must be in execution order)");
}

TEST(TfliteReader, ControlFlowErrors) {
  {
    GraphBuilder b;
    const auto c = b.Typed("c", DataType::kBool, {1}), out = b.Tensor("out", 4);
    b.Inputs({c}).Outputs({out}).Op("IF", {c}, {out});  // no IfOptions written
    EXPECT_HAS(ParseError(WriteTflite(b.Build())),
               "subgraph 0, op 0 (IF): no IfOptions (the subgraphs it runs are unknown)");
  }
  {
    GraphBuilder b;
    const auto c = b.Typed("c", DataType::kBool, {1}), out = b.Tensor("out", 4);
    b.Inputs({c}).Outputs({out}).Op("WHILE", {c}, {out}, {1, 0});
    b.NextSubgraph();
    b.Op("NOOP", {}, {});
    EXPECT_HAS(ParseError(WriteTflite(b.Build())),
               "subgraph 0, op 0 (WHILE) calls subgraph 0, which is already running: control "
               "flow must not recurse");
  }
  {
    // 60 subgraphs, each running the next twice: 2^60 op visits.
    GraphBuilder b;
    for (int s = 0; s < 60; ++s) {
      if (s) b.NextSubgraph();
      const auto c = b.Typed("c", DataType::kBool, {1});
      b.Inputs({c}).Op("IF", {c}, {}, {s + 1, s + 1});
    }
    b.NextSubgraph();
    b.Op("NOOP", {}, {});
    EXPECT_HAS(ParseError(WriteTflite(b.Build())),
               "one run touches tensors more than 100000000 times");
  }
  {
    // Few visits, but each touches 100k tensors: 12 nested IFs run the last subgraph 4096
    // times.
    GraphBuilder b;
    for (int s = 0; s < 12; ++s) {
      if (s) b.NextSubgraph();
      const auto c = b.Typed("c", DataType::kBool, {1});
      b.Inputs({c}).Op("IF", {c}, {}, {s + 1, s + 1});
    }
    b.NextSubgraph();
    const auto x = b.Tensor("x", 4);
    b.Op("ADD_N", std::vector<std::int32_t>(100'000, x), {});
    EXPECT_HAS(ParseError(WriteTflite(b.Build())),
               "one run touches tensors more than 100000000 times");
  }
}

TEST(TfliteReader, OfflinePlanMetadata) {
  TfliteWriteOptions w;
  w.offline_offsets = std::vector<std::int32_t>{0, -1};  // the model has 4 tensors
  w.offline_version = 0;
  const TfliteModel m = ThroughTflite(SmallGraph(), w);
  ASSERT_TRUE(m.offline_plan);
  EXPECT_EQ(m.offline_plan->version, 0u);
  EXPECT_HAS(m.offline_plan->problem,
             "it lists 2 offsets but the model has 4 tensors (TFLM: \"Nbr of offline buffer "
             "offsets (2) in metadata not equal nbr tensors (4)\")");
  EXPECT_TRUE(m.graph.fixed_offsets.empty());
  ASSERT_EQ(m.metadata.size(), 1u);
  EXPECT_EQ(m.metadata[0].name, "OfflineMemoryAllocation");
  EXPECT_EQ(m.metadata[0].bytes, 20u);

  w.offline_offsets = std::vector<std::int32_t>{0, -1, 64, -1};
  const TfliteModel ok = ThroughTflite(SmallGraph(), w);
  EXPECT_TRUE(ok.offline_plan->problem.empty());
  EXPECT_EQ(ok.graph.fixed_offsets, (std::vector<std::int64_t>{0, -1, 64, -1}));
}

// A custom op whose outputs are stored as shape [] and sized by its kernel.
Graph PostProcessGraph(std::string op_type) {
  GraphBuilder b;
  const auto boxes = b.Typed("boxes", DataType::kFloat32, {1, 100, 4});
  const auto scores = b.Typed("scores", DataType::kFloat32, {1, 100, 3});
  const auto anchors = b.Constant("anchors", 1600);
  std::vector<std::int32_t> outs;
  for (const char* name : {"det", "det:1", "det:2", "det:3"}) outs.push_back(b.Unsized(name));
  b.Inputs({boxes, scores}).Outputs(outs).Op(op_type, {boxes, scores, anchors}, outs);
  return b.Build();
}

std::vector<std::uint8_t> DetectionOptions(int max_detections) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("max_detections", max_detections);
    fbb.Int("max_classes_per_detection", 1);
    fbb.Float("nms_iou_threshold", 0.6f);
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

TEST(TfliteReader, KernelSizedCustomOutputsNameTheExactFlags) {
  TfliteWriteOptions w;
  w.custom_options.push_back({0, 0, DetectionOptions(10)});
  TfliteModel m = ThroughTflite(PostProcessGraph("TFLite_Detection_PostProcess"), w);
  EXPECT_FALSE(m.graph.subgraphs[0].tensors[3].bytes);
  EXPECT_EQ(m.graph.subgraphs[0].tensors[3].likely_shape, (std::vector<std::int64_t>{1, 10, 4}));
  const std::string message = InputErrorOf([&] { RecordsFromGraph(m.graph); });
  EXPECT_HAS(message,
             "test.tflite: 4 tensors need memory but have no static size: 'det' (tensor 3, "
             "float32: output 0 of custom op TFLite_Detection_PostProcess is stored as "
             "shape [] and sized by the op at run time");
  EXPECT_HAS(message,
             "give them shapes: 'det' 1x10x4, 'det:1' 1x10, 'det:2' 1x10, 'det:3' 1 (sizes read "
             "from the ops' options; check them)");
  EXPECT_EQ(BindingsOffered([&] { RecordsFromGraph(m.graph); }),
            "shape det=1x10x4, shape det:1=1x10, shape det:2=1x10, shape det:3=1");
  // The graph outputs are no intermediates: the paper's accounting needs no binding.
  EXPECT_NO_THROW(RecordsFromGraph(m.graph, {Accounting::kIntermediatesOnly}));
  ApplyShapeBindings(m.graph, {},
                     {{"det", {1, 10, 4}}, {"det:1", {1, 10}}, {"det:2", {1, 10}}, {"det:3", {1}}});
  const GraphRecords r = RecordsFromGraph(m.graph);
  EXPECT_EQ(r.problem.size(), 6u);
  EXPECT_EQ(r.problem.records[2].size, 160u);
  EXPECT_EQ(r.problem.records[5].size, 16u);
}

// MediaPipe's kernels size their outputs in Prepare from the parameter struct stored as the
// op's options and their inputs' shapes (mediapipe/util/tflite/operations/).
std::vector<std::uint8_t> StructOptions(const std::vector<std::int32_t>& fields) {
  std::vector<std::uint8_t> bytes;
  for (const std::int32_t f : fields)
    for (int b = 0; b < 4; ++b)
      bytes.push_back(static_cast<std::uint8_t>(static_cast<std::uint32_t>(f) >> (8 * b)));
  return bytes;
}

// One op reading x [1,8,6,16] (and weights [4,3,3,16] for the transposed convolution).
std::vector<std::vector<std::int64_t>> MediaPipeShapes(const std::string& op,
                                                       const std::vector<std::uint8_t>& options,
                                                       std::size_t outputs) {
  GraphBuilder b;
  const auto x = b.Typed("x", DataType::kFloat32, {1, 8, 6, 16});
  std::vector<std::int32_t> ins = {x};
  if (op == "Convolution2DTransposeBias") {
    ins.push_back(b.Typed("w", DataType::kFloat32, {4, 3, 3, 16}));
    b.Last().is_constant = true;
  }
  std::vector<std::int32_t> outs;
  for (std::size_t k = 0; k < outputs; ++k) outs.push_back(b.Unsized("y" + std::to_string(k)));
  b.Inputs({x}).Outputs(outs).Op(op, ins, outs);
  TfliteWriteOptions w;
  w.custom_options.push_back({0, 0, options});
  const TfliteModel m = ThroughTflite(b.Build(), w);
  std::vector<std::vector<std::int64_t>> shapes;
  for (const std::int32_t t : outs) shapes.push_back(m.graph.subgraphs[0].tensors[t].likely_shape);
  return shapes;
}

TEST(TfliteReader, MediaPipeCustomOpsAreSizedFromTheirParameters) {
  using Shapes = std::vector<std::vector<std::int64_t>>;
  // TfLitePoolParams {padding SAME=1 / VALID=2, stride w, stride h, filter w, filter h, act}.
  EXPECT_EQ(MediaPipeShapes("MaxPoolingWithArgmax2D", StructOptions({1, 2, 2, 2, 2, 0}), 2),
            (Shapes{{1, 4, 3, 16}, {1, 4, 3, 16}}));
  EXPECT_EQ(MediaPipeShapes("MaxPoolingWithArgmax2D", StructOptions({2, 2, 2, 3, 3, 0}), 2),
            (Shapes{{1, 3, 2, 16}, {1, 3, 2, 16}}));
  EXPECT_EQ(MediaPipeShapes("MaxUnpooling2D", StructOptions({1, 2, 2, 2, 2, 0}), 1),
            (Shapes{{1, 16, 12, 16}}));
  // TfLiteTransposeConvParams {padding, stride w, stride h}: SAME with stride 2 and a 3x3
  // filter pads max(0, 3 - 7 % 2 - 1) = 1, so 2*(8-1) + 3 - 1 = 16 by 2*(6-1) + 3 - 1 = 12.
  EXPECT_EQ(MediaPipeShapes("Convolution2DTransposeBias", StructOptions({1, 2, 2}), 1),
            (Shapes{{1, 16, 12, 4}}));
  // VALID: 2*(8-1) + 3 = 17 by 2*(6-1) + 3 = 13.
  EXPECT_EQ(MediaPipeShapes("Convolution2DTransposeBias", StructOptions({2, 2, 2}), 1),
            (Shapes{{1, 17, 13, 4}}));
  EXPECT_EQ(MediaPipeShapes("TransformLandmarks", {}, 1), (Shapes{{1, 8, 6, 16}}));
  EXPECT_EQ(MediaPipeShapes("Landmarks2TransformMatrix", {}, 1), (Shapes{{1, 4, 4}}));
  // Options too short or out of range: no guess, the placeholder flags instead.
  EXPECT_EQ(MediaPipeShapes("MaxUnpooling2D", StructOptions({1, 2}), 1), (Shapes{{}}));
  EXPECT_EQ(MediaPipeShapes("MaxUnpooling2D", StructOptions({1, 0, 2, 2, 2, 0}), 1), (Shapes{{}}));
  EXPECT_EQ(MediaPipeShapes("MaxUnpooling2D", StructOptions({7, 2, 2, 2, 2, 0}), 1), (Shapes{{}}));
}

TEST(TfliteReader, UnknownCustomOpsGetPlaceholderFlags) {
  const TfliteModel m = ThroughTflite(PostProcessGraph("VendorNms"));
  const std::string message = InputErrorOf([&] { RecordsFromGraph(m.graph); });
  EXPECT_HAS(message, "'det:3' (tensor 6, float32: output 3 of custom op VendorNms");
  EXPECT_HAS(message, "give them shapes: 'det' D1xD2, 'det:1' D1xD2");
  EXPECT_HAS(BindingsOffered([&] { RecordsFromGraph(m.graph); }),
             "shape det=D1xD2, shape det:1=D1xD2");
  EXPECT_HAS(message, "(replace N and D1xD2 with the real sizes)");
}

TEST(TfliteReader, DynamicDimensions) {
  GraphBuilder b;
  const auto in = b.Typed("in", DataType::kFloat32, {1, 8});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 8});
  b.Inputs({in}).Outputs({out}).Op("RELU", {in}, {out});
  // shape_signature [-1, 8] with a stored [1, 8]: TFLM plans the stored shape.
  TfliteWriteOptions w;
  w.dynamic_batch_signature = true;
  EXPECT_EQ(RecordsFromGraph(ThroughTflite(b.Build(), w).graph).problem.records[0].size, 32u);
  // A -1 in the stored shape has no size until bound.
  Graph g = b.Build();
  g.subgraphs[0].tensors[0].shape = {-1, 8};
  g.subgraphs[0].tensors[1].shape = {-1, 8};
  TfliteModel m = ThroughTflite(g);
  const std::string message = InputErrorOf([&] { RecordsFromGraph(m.graph); });
  EXPECT_HAS(message,
             "2 tensors need memory but have no static size: 'in' (tensor 0, float32: "
             "shape [-1,8] has dimensions known only at run time)");
  EXPECT_HAS(message, "bind the batch dimension (batch=N, e.g. batch=1)");
  EXPECT_EQ(BindingsOffered([&] { RecordsFromGraph(m.graph); }), "dimension batch=N");
  ApplyShapeBindings(m.graph, {{"batch", 3}}, {});
  EXPECT_EQ(RecordsFromGraph(m.graph).problem.records[0].size, 96u);
}

TEST(ShapeBinding, BadBindingsAreUsageErrors) {
  Graph g = SmallGraph();
  g.source = "m.tflite";
  EXPECT_THROW(ApplyShapeBindings(g, {}, {{"nope", {1}}}), UsageError);
  // A dimension the model does not use binds nothing: a warning, not an error.
  const auto warnings = ApplyShapeBindings(g, {{"seq", 4}}, {});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("dimension seq=4 binds nothing in m.tflite"), std::string::npos);
  EXPECT_THROW(ApplyShapeBindings(g, {}, {{"mid", {-2}}}), UsageError);
  ApplyShapeBindings(g, {}, {{"mid", {2, 4}}});
  EXPECT_EQ(g.subgraphs[0].tensors[2].bytes, 32u);
}

}  // namespace
}  // namespace memplan
