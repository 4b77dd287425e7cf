// `memplan plan` and `memplan inspect` on .tflite files, as a user runs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/tflite.h"
#include "memplan/vela.h"
#include "memplan_tflite_generated.h"
#include "tests/graph_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::ConvReluAddChain;
using testing::GraphBuilder;
using testing::Quote;
using testing::RunMemplan;
using testing::VelaLikeModel;
using testing::WriteFile;

TEST(TfliteCli, PlanReportsOpsAndTensorOrigins) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "chain.tflite", WriteTflite(ConvReluAddChain()));
  const auto plan = dir / "plan.json";
  const auto r = RunMemplan("plan " + Quote(model) + " --format json --out " + Quote(plan));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"], 4);
  EXPECT_EQ(j["ops"], 3);
  EXPECT_EQ(j["alignment"], 16);
  EXPECT_EQ(j["naive_bytes"], 768 + 1024 * 3);
  const auto p = testing::ReadJsonFile(plan);
  ASSERT_EQ(p["tensors"].size(), 4u);
  const std::vector<std::string> names = {"in", "a", "b", "out"};
  const std::vector<int> indices = {0, 2, 3, 4};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p["tensors"][i]["name"], names[i]);
    EXPECT_EQ(p["tensors"][i]["tensor"], indices[i]);
    EXPECT_EQ(p["tensors"][i]["subgraph"], 0);
  }
  // The paper's accounting: only a and b.
  const auto inter = RunMemplan("plan " + Quote(model) + " --intermediates-only --format json");
  ASSERT_EQ(inter.exit_code, 0) << inter.err;
  EXPECT_EQ(nlohmann::json::parse(inter.out)["tensors"], 2);
}

TEST(TfliteCli, BadFilesExitOneAndWriteNothing) {
  const auto dir = testing::TempDir();
  const std::string good = WriteTflite(ConvReluAddChain());
  const auto truncated = WriteFile(dir, "cut.tflite", good.substr(0, good.size() / 2));
  std::string flipped_magic = good;
  flipped_magic[5] = 'X';
  const auto magic = WriteFile(dir, "magic.tflite", flipped_magic);
  Graph dangling = ConvReluAddChain();
  dangling.subgraphs[0].ops[2].inputs = {1, 42};
  const auto bad_index = WriteFile(dir, "index.tflite", WriteTflite(dangling));
  Graph calls = ConvReluAddChain();
  calls.subgraphs[0].ops[1].type = "IF";
  calls.subgraphs[0].ops[1].called_subgraphs = {3, 4};
  const auto bad_call = WriteFile(dir, "call.tflite", WriteTflite(calls));
  Graph late = ConvReluAddChain();
  std::swap(late.subgraphs[0].ops[1], late.subgraphs[0].ops[2]);
  const auto order = WriteFile(dir, "order.tflite", WriteTflite(late));
  Graph typed = ConvReluAddChain();
  typed.subgraphs[0].tensors[3].type = static_cast<DataType>(77);
  const auto type = WriteFile(dir, "type.tflite", WriteTflite(typed));
  std::string buffer_bytes = WriteTflite(ConvReluAddChain());
  ASSERT_TRUE(tflite::fb::GetMutableModel(buffer_bytes.data())
                  ->mutable_subgraphs()
                  ->GetMutableObject(0)
                  ->mutable_tensors()
                  ->GetMutableObject(1)
                  ->mutate_buffer(12));
  const auto buffer = WriteFile(dir, "buffer.tflite", buffer_bytes);
  std::string flipped = WriteTflite(ConvReluAddChain());
  flipped[3] ^= 0x40;  // the root offset's high byte: the root now lies past the end
  const auto flip = WriteFile(dir, "flip.tflite", flipped);
  const auto out = dir / "plan.json";
  for (const auto& [path, message] : std::vector<std::pair<std::filesystem::path, std::string>>{
           {truncated, "corrupt or truncated TensorFlow Lite model"},
           {magic, "not a TensorFlow Lite model"},
           {bad_index, "op 2 (ADD): input 1 is tensor 42, but the subgraph has 5 tensors"},
           {bad_call, "subgraph 0, op 1 (IF): calls subgraph 3, but the model has 1 subgraphs"},
           {order,
            "subgraph 0, op 1 (ADD) reads tensor 'b' (#3) before subgraph 0, op 2 (RELU) "
            "produces it"},
           {type, "subgraph 0, tensor 3 'b': unknown tensor type 77"},
           {buffer, "subgraph 0, tensor 1 'w': buffer index 12, but the model has 2 buffers"},
           {flip, "corrupt or truncated TensorFlow Lite model: the root table offset"},
           {dir / "missing.tflite", "cannot open"}}) {
    SCOPED_TRACE(path.string());
    const auto r = RunMemplan("plan " + Quote(path) + " --out " + Quote(out));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(path.string() + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    const auto inspect = RunMemplan("inspect " + Quote(path));
    EXPECT_EQ(inspect.exit_code, 1);
    EXPECT_NE(inspect.err.find(message), std::string::npos) << inspect.err;
  }
}

TEST(TfliteCli, BindingsFromTheCommandLine) {
  const auto dir = testing::TempDir();
  GraphBuilder b;
  const auto in = b.Typed("in", DataType::kFloat32, {-1, 10});
  const auto mid = b.Typed("mid", DataType::kFloat32, {-1, 10});
  const auto out = b.Unsized("result");
  b.Inputs({in}).Outputs({out}).Op("RELU", {in}, {mid}).Op("MyDecoder", {mid}, {out});
  const auto model = WriteFile(dir, "dyn.tflite", WriteTflite(b.Build()));
  auto r = RunMemplan("plan " + Quote(model));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("3 tensors need memory but have no static size"), std::string::npos)
      << r.err;
  // The library names the shapes; the command adds the flags that give them.
  EXPECT_NE(r.err.find("'result' D1xD2 (or the batch dimension a size for a leading -1)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(--shape result=D1xD2 --dim batch=N)"), std::string::npos) << r.err;
  r = RunMemplan("plan " + Quote(model) + " --dim batch=2 --shape result=2x5 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["naive_bytes"], 80 + 80 + 48);
  EXPECT_EQ(RunMemplan("plan " + Quote(model) + " --shape nothere=1").exit_code, 2);
  EXPECT_EQ(RunMemplan("plan " + Quote(model) + " --shape result=1xx2").exit_code, 2);
  // A name the model does not use binds nothing: a warning, here beside what stays unsized.
  r = RunMemplan("plan " + Quote(model) + " --dim seq=4");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("dimension seq=4 binds nothing"), std::string::npos) << r.err;
}

TEST(TfliteCli, InspectShowsTheOfflinePlanAndItsOverlaps) {
  const auto dir = testing::TempDir();
  // in [0,1] and a [1,2] overlap in time; the plan puts them both at 0.
  TfliteWriteOptions w;
  w.offline_offsets = std::vector<std::int32_t>{0, -1, 0, 1024, -1};
  const auto model = WriteFile(dir, "offline.tflite", WriteTflite(ConvReluAddChain(), w));
  auto r = RunMemplan("inspect " + Quote(model) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ops_by_type"]["CONV_2D"], 1);
  EXPECT_EQ(j["constant"]["tensors"], 1);
  EXPECT_EQ(j["planned"]["tensors"], 4);
  EXPECT_EQ(j["offline_plan"]["version"], 1);
  EXPECT_EQ(j["offline_plan"]["offsets"], nlohmann::json::parse("[0,-1,0,1024,-1]"));
  EXPECT_EQ(j["offline_plan"]["fixed_tensors"], 3);
  ASSERT_EQ(j["offline_plan"]["overlaps"].size(), 1u);
  EXPECT_EQ(j["offline_plan"]["overlaps"][0][0]["name"], "in");
  EXPECT_EQ(j["offline_plan"]["overlaps"][0][1]["name"], "a");
  r = RunMemplan("inspect " + Quote(model));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 overlap of buffers alive at the same time"), std::string::npos) << r.out;
  // Every plan keeps the offline offsets, as TFLM does: with the overlap, no plan is valid.
  r = RunMemplan("plan " + Quote(model) + " --format json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not fit the model"), std::string::npos) << r.err;
  const auto clean = WriteFile(dir, "chain.tflite", WriteTflite(ConvReluAddChain()));
  r = RunMemplan("inspect " + Quote(clean) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["offline_plan"].is_null());
}

TEST(TfliteCli, VelaScratchAreaAliasingIsSaidNotReported) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "vela.tflite", VelaLikeModel());
  // verify: the offline plan fits; the tensors inside the scratch area are said.
  auto r = RunMemplan("verify " + Quote(model));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("'sg_scratch_fast' [0, 512), 'input' [0, 192), 'output' [0, 10) live "
                       "inside the scratch area 'sg_scratch' [0, 1024) of ethos-u op 0 "
                       "(subgraph 0), where Vela placed them on purpose: the NPU addresses "
                       "them inside it"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("OK: the offline plan fits"), std::string::npos) << r.out;
  // inspect: no overlap, the scratch area and what lives inside it.
  r = RunMemplan("inspect " + Quote(model) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["offline_plan"]["overlaps"].empty()) << j["offline_plan"].dump();
  ASSERT_EQ(j["offline_plan"]["scratch_areas"].size(), 1u);
  EXPECT_EQ(j["offline_plan"]["scratch_areas"][0]["scratch"], "sg_scratch");
  EXPECT_EQ(j["offline_plan"]["scratch_areas"][0]["inside"],
            nlohmann::json::parse(R"(["sg_scratch_fast","input","output"])"));
  // What lives inside the scratch area adds nothing to the bound: the scratch's 1024 B.
  EXPECT_EQ(j["planned"]["lower_bound_bytes"], 1024);
  r = RunMemplan("inspect " + Quote(model));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no overlaps\nVela: 'sg_scratch_fast' [0, 512)"), std::string::npos)
      << r.out;
  // plan: the arena is the scratch area, and the note says why the tensors share it.
  r = RunMemplan("plan " + Quote(model) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["best"]["bytes"], 1024);
  ASSERT_TRUE(j.contains("notes")) << r.out;
  EXPECT_NE(j["notes"].dump().find("live inside the scratch area 'sg_scratch'"), std::string::npos);
  // run: with the offline plan, the ethos-u stand-in reads its inputs before it writes the
  // scratch and the output over them, as the NPU does; the arena holds the scratch area.
  r = RunMemplan("run " + Quote(model) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["outputs_match_naive"].get<bool>());
  EXPECT_EQ(j["offline_buffers"], 4);
}

TEST(TfliteCli, OverlapsOutsideAScratchAreaAreFaults) {
  const auto dir = testing::TempDir();
  // The same offsets without an ethos-u op: six overlaps of tensors alive together.
  const auto other = WriteFile(dir, "other.tflite", VelaLikeModel("OtherNpuOp"));
  auto r = RunMemplan("verify " + Quote(other));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("6 violations"), std::string::npos) << r.err;
  // No plan that verify rejects is printed or written.
  const auto out = dir / "plan.json";
  r = RunMemplan("plan " + Quote(other) + " --out " + Quote(out));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not fit the model"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = RunMemplan("show " + Quote(other) + " --ascii");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not fit the model"), std::string::npos) << r.err;
  // An output that reaches past the scratch's end is not inside it: its overlaps count.
  const auto past = WriteFile(dir, "past.tflite", VelaLikeModel("ethos-u", 0, 1016));
  r = RunMemplan("verify " + Quote(past));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("'output'"), std::string::npos) << r.out;
  r = RunMemplan("inspect " + Quote(past) + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["offline_plan"]["overlaps"].size(), 1u) << r.out;
}

// Corrupt bytes in a Vela-like model: reading it and finding its scratch areas either works
// or is an InputError, never a crash; each area found lies where the plan puts its scratch.
TEST(TfliteCli, CorruptedVelaModelsFailCleanly) {
  const std::string original = VelaLikeModel();
  std::mt19937_64 rng(29);
  std::size_t found = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string bytes = original;
    for (int k = 0; k < 1 + trial % 3; ++k)
      bytes[rng() % bytes.size()] = static_cast<char>(rng() % 256);
    try {
      const TfliteModel model = ParseTflite(bytes, "corrupt.tflite");
      for (const VelaScratchArea& area : VelaScratchAreas(model.graph)) {
        EXPECT_FALSE(VelaScratchText(model.graph, area).empty());
        EXPECT_LE(area.begin, area.end);
        ++found;
      }
    } catch (const InputError&) {
    }
  }
  EXPECT_GT(found, 0u);  // most corruptions leave the op and its plan readable
}

TEST(TfliteCli, SharedModelsPlanWithTheirBindings) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto ssd = shared / "models" / "ssd_mobilenet_v1_coco_300_quant_postprocess.tflite";
  const auto r = RunMemplan(
      "plan " + Quote(ssd) +
      " --shape TFLite_Detection_PostProcess=1x10x4 --shape TFLite_Detection_PostProcess:1=1x10"
      " --shape TFLite_Detection_PostProcess:2=1x10 --shape TFLite_Detection_PostProcess:3=1"
      " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensors"], 68);
  EXPECT_EQ(j["ops"], 64);
  EXPECT_EQ(j["naive_bytes"], 7917136);
  EXPECT_EQ(j["lower_bound_bytes"], 1620000);
}

}  // namespace
}  // namespace memplan
