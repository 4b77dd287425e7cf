// Models that would crash ONNX 1.12's shape inference (division by zero, endless
// recursion) are rejected before it runs. Each case stands for an input the fuzzer
// found or one of the same family.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <map>

#include <onnx/defs/schema.h>
#include <unistd.h>

#include "memplan/error.h"
#include "memplan/onnx.h"
#include "memplan/records_io.h"
#include "src/formats/onnx/onnx_internal.h"
#include "src/formats/onnx/onnx_schemas.h"
#include "tests/onnx_builder.h"
#include "tests/onnx_sample_models.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::kOnnxFloat;
using testing::OnnxBuilder;

std::string InputErrorOf(const OnnxBuilder& b) {
  try {
    ReadOnnx(b.Bytes(), "guard.onnx");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

void SetInts(onnx::NodeProto& node, const std::string& name, const std::vector<std::int64_t>& v) {
  auto* attribute = node.add_attribute();
  attribute->set_name(name);
  attribute->set_type(onnx::AttributeProto::INTS);
  for (const std::int64_t x : v) attribute->add_ints(x);
}

OnnxBuilder ConvWithStrides(const std::vector<std::int64_t>& strides) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "1", "8", "8"}).FloatInitializer("w", {1, 1, 3, 3}).Output("y");
  SetInts(b.Node("Conv", {"x", "w"}, {"y"}, "conv"), "strides", strides);
  return b;
}

// Fuzzer find: a Conv of light_inception_v1 with strides [1, 0] (SIGFPE in
// convPoolShapeInference).
TEST(OnnxGuard, ZeroStride) {
  EXPECT_EQ(ReadOnnx(ConvWithStrides({1, 1}).Bytes(), "ok.onnx").graph.subgraphs[0].ops.size(), 1u);
  EXPECT_NE(InputErrorOf(ConvWithStrides({1, 0}))
                .find("guard.onnx: node 'conv' (Conv): attribute 'strides' must be positive"),
            std::string::npos);
  EXPECT_NE(InputErrorOf(ConvWithStrides({-2, 1})).find("must be positive"), std::string::npos);
}

// memplan's FusedConv, NhwcConv and QLinearAveragePool rules run ONNX's Conv and pooling
// rules: their size attributes are checked the same way.
TEST(OnnxGuard, ZeroStrideInContribConvolutions) {
  for (const char* op : {"FusedConv", "NhwcConv"}) {
    OnnxBuilder b;
    b.model().add_opset_import()->set_domain("com.microsoft");
    b.model().mutable_opset_import()->rbegin()->set_version(1);
    b.Input("x", kOnnxFloat, {"1", "1", "8", "8"}).FloatInitializer("w", {1, 1, 3, 3}).Output("y");
    auto& node = b.Node(op, {"x", "w"}, {"y"}, "conv");
    node.set_domain("com.microsoft");
    SetInts(node, "strides", {0, 1});
    EXPECT_NE(InputErrorOf(b).find("attribute 'strides' must be positive"), std::string::npos)
        << op;
  }
}

// The input the fuzzer found, rebuilt: light_inception_v1 with one byte changed, the
// second stride of node n45 set to 0.
TEST(OnnxGuard, FuzzerFindOnASharedModel) {
  MEMPLAN_REQUIRE_SHARED(shared);
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(ReadFileBytes(shared / "models" / "light_inception_v1.onnx")));
  bool patched = false;
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (node.name() != "n45") continue;
    for (auto& attribute : *node.mutable_attribute())
      if (attribute.name() == "strides") {
        attribute.set_ints(1, 0);
        patched = true;
      }
  }
  ASSERT_TRUE(patched);
  try {
    ReadOnnx(model.SerializeAsString(), "inception.onnx");
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "inception.onnx: node 'n45' (Conv): attribute 'strides' must be positive");
  }
}

TEST(OnnxGuard, ZeroBlockSizeAndGroup) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1", "4", "2", "2"}).Output("y");
  testing::SetIntAttribute(b.Node("DepthToSpace", {"x"}, {"y"}, "d2s"), "blocksize", 0);
  EXPECT_NE(InputErrorOf(b).find("attribute 'blocksize' must be positive"), std::string::npos);

  OnnxBuilder conv = ConvWithStrides({1, 1});
  testing::SetIntAttribute(*conv.graph().mutable_node(0), "group", 0);
  EXPECT_NE(InputErrorOf(conv).find("attribute 'group' must be positive"), std::string::npos);
}

// Inference indexes outputs by the schema's count (Split divides by it).
TEST(OnnxGuard, NodesMustMatchTheirSchema) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"4"}).Output("x");
  b.Node("Split", {"x"}, {}, "split");
  const std::string error = InputErrorOf(b);
  EXPECT_NE(error.find("guard.onnx: node 'split' (Split) does not match its ONNX operator schema"),
            std::string::npos)
      << error;

  OnnxBuilder two;
  two.Input("x", kOnnxFloat, {"4"}).Output("y");
  two.Node("Relu", {"x", "x"}, {"y"}, "relu");
  EXPECT_NE(InputErrorOf(two).find("does not match its ONNX operator schema"), std::string::npos);
}

// A model-local function that calls itself sends ONNX's inference into endless recursion.
OnnxBuilder WithFunction(const std::string& body_op) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"1"}).Output("y");
  auto* local = b.model().add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  b.Node("F", {"x"}, {"y"}, "call").set_domain("local");
  auto* f = b.model().add_functions();
  f->set_name("F");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  for (const char* domain : {"", "local"}) {
    auto* import = f->add_opset_import();
    import->set_domain(domain);
    import->set_version(domain[0] ? 1 : 13);
  }
  auto* node = f->add_node();
  node->set_op_type(body_op);
  if (body_op == "F") node->set_domain("local");
  node->add_input("a");
  node->add_output("b");
  return b;
}

TEST(OnnxGuard, ModelLocalFunctions) {
  const OnnxModel m = ReadOnnx(WithFunction("Relu").Bytes(), "f.onnx");
  EXPECT_EQ(m.graph.subgraphs[0].tensors[1].bytes, Bytes{4});  // inferred through the body
  EXPECT_NE(InputErrorOf(WithFunction("F")).find("model-local function 'F' calls itself"),
            std::string::npos);

  OnnxBuilder bad_body = WithFunction("Conv");
  SetInts(*bad_body.model().mutable_functions(0)->mutable_node(0), "strides", {0});
  EXPECT_NE(InputErrorOf(bad_body).find("function 'F': node #0 (Conv): attribute 'strides'"),
            std::string::npos);
}

// Functions that call the next one twice, 30 deep: 2^30 inferences once expanded.
TEST(OnnxGuard, ExponentialFunctionCalls) {
  OnnxBuilder b = WithFunction("Relu");
  for (int level = 1; level <= 30; ++level) {
    auto* f = b.model().add_functions();
    *f = b.model().functions(0);
    f->set_name("F" + std::to_string(level));
    f->clear_node();
    for (int k = 0; k < 2; ++k) {
      auto* call = f->add_node();
      call->set_op_type(level == 1 ? "F" : "F" + std::to_string(level - 1));
      call->set_domain("local");
      call->add_input("a");
      call->add_output(k == 0 ? "t" : "b");
      if (k == 1) call->set_input(0, "t");
    }
  }
  b.graph().mutable_node(0)->set_op_type("F30");
  EXPECT_NE(
      InputErrorOf(b).find("calls of model-local functions expand to more than 1000000 nodes"),
      std::string::npos);
}

// The issue-30 crash: an opset-18 model wrapped in onnxruntime-extensions pre- and
// post-processing (DecodeImage, Resize with antialias, EncodeImage) stopped memplan with
// SIGSEGV inside ONNX 1.12's inference. Now the decoded image is the one thing left open,
// and once given, the model plans.
TEST(OnnxGuard, ExtensionsWrappedModel) {
  const OnnxBuilder b = testing::ExtensionsWrappedModel();
  const std::string error = InputErrorOf(b);
  EXPECT_NE(error.find("guard.onnx: "), std::string::npos) << error;
  EXPECT_NE(error.find("DecodeImage is an operator memplan has no shape rule for"),
            std::string::npos)
      << error;
  // What a user gives: the file's size, the decoded image's shape, the encoded output's size.
  LoadOptions options;
  options.dims = {{"num_bytes", 150000}};
  options.shapes = {{"bgr", {240, 320, 3}}, {"png", {200000}}};
  const OnnxModel m = ReadOnnx(b.Bytes(), "wrapped.onnx", options);
  std::map<std::string, Bytes> sizes;
  for (const Tensor& t : m.graph.subgraphs[0].tensors) sizes[t.name] = t.bytes.value_or(0);
  EXPECT_EQ(sizes["bgr"], Bytes{240 * 320 * 3});
  EXPECT_EQ(sizes["fitted"], Bytes{168 * 224 * 3});     // the longer side to 224
  EXPECT_EQ(sizes["small"], Bytes{3 * 112 * 112 * 4});  // float [1,3,112,112]
  EXPECT_EQ(sizes["png"], Bytes{200000});
}

// Fuzzer find (a mutation of light_inception_v1): a graph input declared FLOAT whose
// initializer holds INT64. Inference rejects it however often stored shapes are dropped; it
// once went round dropping them forever.
TEST(OnnxGuard, AnInputTypeContradictingItsInitializerEnds) {
  OnnxBuilder b;
  b.Input("x", kOnnxFloat, {"2", "3"}).Input("shape", kOnnxFloat, {"2"}).Output("y");
  b.Int64Initializer("shape", {3, 2});
  b.Node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  const std::string error = InputErrorOf(b);
  EXPECT_NE(error.find("guard.onnx: ONNX shape inference rejects the model"), std::string::npos)
      << error;
}

// Fuzzer find: the detector sample at opset 15 and later, its first node moved into a domain
// nothing covers. Its output has no type, and ONNX 1.12's Shape-15 rule read that type
// regardless (SIGSEGV): the issue-30 crash (DecodeImage's untyped output) in small.
TEST(OnnxGuard, ShapeOfAnUntypedTensorDoesNotCrash) {
  formats::SetIsolation(false);  // a crash here ends the test binary
  for (const int opset : {13, 15, 18, 24}) {
    OnnxBuilder b = testing::DetectorUpsampling();
    b.model().mutable_opset_import(0)->set_version(opset);
    b.Opset("ai.onnx.ml", 1);
    b.graph().mutable_node(0)->set_domain("ai.onnx.ml");
    EXPECT_NE(InputErrorOf(b).find("'features': no element type known after shape inference"),
              std::string::npos)
        << opset;
  }
  formats::SetIsolation(true);
}

// Every ONNX 1.12 schema of ai.onnx and ai.onnx.ml, at its own version, on inputs that are
// the untyped output of an unknown operator and on typed ones, in this process: each reads or
// ends in an error, and none stops the process (DictVectorizer, CategoryMapper,
// LabelEncoder and Shape-15 did, untyped).
TEST(OnnxGuard, EverySchemaOnUntypedAndTypedInputs) {
  formats::SetIsolation(false);
  std::size_t tried = 0;
  for (const onnx::OpSchema& schema : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    const std::string domain = schema.domain();
    if (!domain.empty() && domain != "ai.onnx.ml") continue;
    for (const bool typed : {false, true}) {
      OnnxBuilder b(domain.empty() ? schema.SinceVersion() : 17);
      if (!domain.empty()) b.Opset(domain, schema.SinceVersion());
      b.Opset("custom", 1);
      b.Input("x", kOnnxFloat, {"2", "3"});
      if (typed)
        b.Node("Relu", {"x"}, {"u"});
      else
        b.Node("Make", {"x"}, {"u"}).set_domain("custom");
      const std::vector<std::string> inputs(
          static_cast<std::size_t>(std::max(1, schema.min_input())), "u");
      std::vector<std::string> outputs;
      for (int i = 0; i < std::max(1, schema.min_output()); ++i)
        outputs.push_back("o" + std::to_string(i));
      b.Node(schema.Name(), inputs, outputs, "n").set_domain(domain);
      for (const std::string& o : outputs) b.Output(o);
      try {
        ReadOnnx(b.Bytes(), "every.onnx");
      } catch (const InputError&) {
      }
      ++tried;
    }
  }
  formats::SetIsolation(true);
  EXPECT_GT(tried, 800u);
}

// Every sample model at every opset from 7 to 24, importing ai.onnx.ml and com.microsoft, as
// written and with one node moved into each of those domains (the mutation run's structural
// variants), read in this process: each reads or ends in an InputError.
TEST(OnnxGuard, EveryOpsetAndDomainReadsOrFailsCleanly) {
  formats::SetIsolation(false);
  std::size_t read = 0, refused = 0;
  for (const auto& [name, sample] : testing::SampleOnnxModels())
    for (int opset = 7; opset <= 24; ++opset)
      for (const char* moved_to : {"", "ai.onnx.ml", "com.microsoft"}) {
        OnnxBuilder b = sample;
        for (auto& import : *b.model().mutable_opset_import())
          if (import.domain().empty()) import.set_version(opset);
        b.Opset("ai.onnx.ml", 3).Opset("com.microsoft", 1);
        if (*moved_to) b.graph().mutable_node(opset % b.graph().node_size())->set_domain(moved_to);
        try {
          ReadOnnx(b.Bytes(), name);
          ++read;
        } catch (const InputError&) {
          ++refused;
        }
      }
  formats::SetIsolation(true);
  EXPECT_GT(read, 0u);
  EXPECT_GT(refused, 0u);
}

// What runs libonnx runs in a child process: its answer comes back, its errors come back as
// themselves, and its death by a signal becomes an InputError naming the file.
TEST(OnnxGuard, IsolatedWorkReportsCrashesAsInputErrors) {
  using formats::RunIsolated;
  EXPECT_EQ(RunIsolated("m.onnx", "work", [] { return std::string("answer\0with a NUL", 18); }),
            std::string("answer\0with a NUL", 18));
  EXPECT_EQ(testing::ErrorMessage<InputError>([] {
              RunIsolated("m.onnx", "work",
                          []() -> std::string { throw InputError("m.onnx: bad"); });
            }),
            "m.onnx: bad");
  EXPECT_EQ(testing::ErrorMessage<UsageError>([] {
              RunIsolated("m.onnx", "work", []() -> std::string { throw UsageError("--dim x"); });
            }),
            "--dim x");
  const std::string segv = testing::ErrorMessage<InputError>([] {
    RunIsolated("m.onnx", "ONNX's shape inference", []() -> std::string {
      std::raise(SIGSEGV);
      return "";
    });
  });
  EXPECT_EQ(segv.rfind("m.onnx: ONNX's shape inference crashed on this model (signal 11, ", 0), 0u)
      << segv;
  const std::string abort = testing::ErrorMessage<InputError>(
      [] { RunIsolated("m.onnx", "work", []() -> std::string { std::abort(); }); });
  EXPECT_NE(abort.find("m.onnx: work crashed on this model (signal 6"), std::string::npos) << abort;
  // Off (the fuzzer's setting), the work runs here.
  formats::SetIsolation(false);
  const pid_t self = getpid();
  EXPECT_EQ(RunIsolated("m.onnx", "work", [] { return std::to_string(getpid()); }),
            std::to_string(self));
  formats::SetIsolation(true);
  EXPECT_NE(RunIsolated("m.onnx", "work", [] { return std::to_string(getpid()); }),
            std::to_string(self));
}

}  // namespace
}  // namespace memplan
