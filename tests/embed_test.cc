// `memplan embed`: offline plans written into .tflite models, read back and run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/tflite.h"
#include "memplan_tflite_generated.h"
#include "tests/graph_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::ConvReluAddChain;
using testing::FilesIn;
using testing::GraphBuilder;
using ::testing::HasSubstr;
using testing::Quote;
using testing::RunMemplan;
using testing::WriteFile;

// Most models here are written to test embed's writer: some TFLM's reference kernels refuse
// (float16 weights, the hybrid synthetic chain) get --even-if-tflm-refuses.

// Bindings for the shared models whose custom ops size their outputs at run time.
std::string Bindings(const std::string& model) {
  if (model.starts_with("ssd_mobilenet"))
    return " --shape TFLite_Detection_PostProcess=1x10x4 --shape "
           "TFLite_Detection_PostProcess:1=1x10"
           " --shape TFLite_Detection_PostProcess:2=1x10 --shape TFLite_Detection_PostProcess:3=1";
  if (model.starts_with("posenet"))
    return " --shape poses=1x20x17x2 --shape poses:1=1x20x17 --shape poses:2=1x20 --shape "
           "poses:3=1";
  return {};
}

std::vector<std::filesystem::path> SharedTfliteModels(const std::filesystem::path& shared) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(shared / "models"))
    if (e.path().extension() == ".tflite") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The bytes of every buffer (inline data), by index.
std::vector<std::string> BufferBytes(const std::string& file) {
  std::vector<std::uint64_t> aligned((file.size() + 7) / 8);
  std::memcpy(aligned.data(), file.data(), file.size());
  const auto* model = tflite::fb::GetModel(aligned.data());
  std::vector<std::string> out;
  if (model->buffers())
    for (const auto* b : *model->buffers())
      out.emplace_back(b->data() ? std::string(reinterpret_cast<const char*>(b->data()->data()),
                                               b->data()->size())
                                 : std::string());
  return out;
}

// The root (Model) table's fields as raw words: for each id present, where an offset
// field points (absolute) or a scalar's value. Read the way the flatbuffer lays it out.
std::map<std::size_t, std::uint64_t> RootFields(const std::string& file, bool offsets) {
  auto u32 = [&](std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, file.data() + at, 4);
    return v;
  };
  auto u16 = [&](std::size_t at) {
    std::uint16_t v;
    std::memcpy(&v, file.data() + at, 2);
    return v;
  };
  const std::size_t root = u32(0);
  const std::size_t vtable = root - static_cast<std::int32_t>(u32(root));
  std::map<std::size_t, std::uint64_t> out;
  for (std::size_t id = 0; id < (u16(vtable) - 4u) / 2u; ++id)
    if (const std::size_t at = u16(vtable + 4 + 2 * id); at != 0)
      out[id] = offsets && id != 0 ? root + at + u32(root + at) : u32(root + at);
  return out;
}

// Per tensor of all subgraphs, the offset `plan --out` gave it (-1: not planned).
std::vector<std::int32_t> OffsetsOfPlanFile(const nlohmann::json& plan, const Graph& graph) {
  std::vector<std::size_t> first(graph.subgraphs.size(), 0);
  for (std::size_t s = 1; s < graph.subgraphs.size(); ++s)
    first[s] = first[s - 1] + graph.subgraphs[s - 1].tensors.size();
  std::vector<std::int32_t> out(graph.TensorCount(), -1);
  for (const auto& t : plan["tensors"])
    out[first[t["subgraph"].get<std::size_t>()] + t["tensor"].get<std::size_t>()] =
        t["offset"].get<std::int32_t>();
  return out;
}

// Embeds every shared model with the defaults (best, --inplace=tflm) and checks what a
// user relies on: the input untouched, the output a sound flatbuffer holding the same
// model (graph, buffers; every byte of the original kept), the plan `plan` finds as
// the offline plan, `verify` and `run` accepting it.
TEST(EmbedModels, RoundTripOnEverySharedModel) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = testing::TempDir();
  std::size_t smaller = 0;
  for (const auto& path : SharedTfliteModels(shared)) {
    const std::string name = path.stem().string();
    SCOPED_TRACE(name);
    const std::string before = ReadFileBytes(path);
    const auto out = dir / (name + ".tflite");
    const auto planfile = dir / (name + ".plan.json");
    const auto r = RunMemplan("embed " + Quote(path) + " -o " + Quote(out) +
                              " --format json --even-if-tflm-refuses" + Bindings(name));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadFileBytes(path), before) << "the input changed";
    const auto summary = nlohmann::json::parse(r.out);

    const std::string after = ReadFileBytes(out);
    const TfliteModel original = ParseTflite(before, "in");
    const TfliteModel written = ParseTflite(after, "out");  // runs the flatbuffers Verifier
    EXPECT_EQ(GraphDifference(original.graph, written.graph), "");
    EXPECT_EQ(written.tensor_buffers, original.tensor_buffers);
    EXPECT_EQ(written.description, original.description);
    EXPECT_EQ(written.schema_version, original.schema_version);
    // Every byte of the original after its 8-byte header is in the new file, in order.
    const std::size_t shift = after.size() - before.size();
    ASSERT_GT(after.size(), before.size());
    EXPECT_EQ(after.substr(after.size() - (before.size() - 8)), before.substr(8));
    EXPECT_EQ(shift % 16, 0u);
    // The new root keeps every field: version, operator codes, subgraphs, description,
    // metadata_buffer and signature defs point to the same bytes, moved by `shift`.
    const auto old_root = RootFields(before, true);
    const auto new_root = RootFields(after, true);
    for (const auto& [id, target] : old_root) {
      ASSERT_TRUE(new_root.contains(id)) << "Model field " << id;
      if (id == 0)
        EXPECT_EQ(new_root.at(id), target);
      else if (id != 4 && id != 6)  // buffers, metadata: new lists
        EXPECT_EQ(new_root.at(id), target + (after.size() - before.size())) << "field " << id;
    }
    const auto old_buffers = BufferBytes(before);
    const auto new_buffers = BufferBytes(after);
    ASSERT_GE(new_buffers.size(), old_buffers.size());
    for (std::size_t b = 0; b < old_buffers.size(); ++b)
      if (!original.offline_plan || b != original.offline_plan->buffer_index)
        EXPECT_EQ(new_buffers[b], old_buffers[b]) << "buffer " << b;

    // The offline plan is the plan `plan` finds with the same options.
    const auto p = RunMemplan("plan " + Quote(path) + " --strategy offsets/best --inplace=tflm" +
                              " --format json --out " + Quote(planfile) + Bindings(name));
    ASSERT_EQ(p.exit_code, 0) << p.err;
    const auto plan = testing::ReadJsonFile(planfile);
    ASSERT_TRUE(written.offline_plan.has_value());
    EXPECT_EQ(written.offline_plan->problem, "");
    // TFLM's head with the written plan, scratch buffers included, never exceeds its own.
    EXPECT_LE(summary["tflm_head_bytes"], summary["tflm_own_planner_head_bytes"]);
    if (!summary["scratch_fallback"].get<bool>()) {  // else TFLM's own plan was written
      EXPECT_EQ(written.offline_plan->offsets, OffsetsOfPlanFile(plan, original.graph));
      EXPECT_EQ(summary["arena_bytes"], plan["arena_bytes"]);
      EXPECT_LE(summary["arena_bytes"], summary["arena_without_variant_bytes"]);
      if (summary["arena_bytes"] < summary["arena_without_variant_bytes"]) ++smaller;
    }

    const auto v = RunMemplan("verify " + Quote(out) + Bindings(name));
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_THAT(v.out, HasSubstr("OK: the offline plan fits"));
    const auto run =
        RunMemplan("run " + Quote(out) + " --offline require --format json" + Bindings(name));
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto ran = nlohmann::json::parse(run.out);
    EXPECT_EQ(ran["outputs_match_naive"], true);
    EXPECT_EQ(ran["offline_buffers"], summary["tensors_planned"]);
  }
  EXPECT_GE(smaller, 3u);  // the conformer and both BlazeFaces
}

// The figures of README's "Below the lower bound" table, as embed writes them.
TEST(EmbedModels, InPlaceShrinksTheArenasReadmeLists) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = testing::TempDir();
  const std::map<std::string, std::pair<int, int>> expected = {
      {"blazeface_front_128_float", {1376256, 1310720}},
      {"blazeface_full_range_192_fp16w", {3538944, 2655360}},
      {"torchaudio_conformer_float", {38069408, 22257408}},
  };
  for (const auto& [name, arenas] : expected) {
    SCOPED_TRACE(name);
    const auto model = shared / "models" / (name + ".tflite");
    const auto r = RunMemplan("embed --even-if-tflm-refuses " + Quote(model) + " -o " +
                              Quote(dir / "a.tflite") + " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["arena_without_variant_bytes"], arenas.first);
    EXPECT_EQ(j["arena_bytes"], arenas.second);
    EXPECT_EQ(j["variant"], "inplace=tflm");
    EXPECT_GT(j["inplace_shares"], 0);
    const auto none = RunMemplan("embed --even-if-tflm-refuses " + Quote(model) + " -o " +
                                 Quote(dir / "b.tflite") + " --inplace=none --format json");
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_EQ(nlohmann::json::parse(none.out)["arena_bytes"], arenas.first);
    EXPECT_EQ(nlohmann::json::parse(none.out)["inplace_shares"], 0);
    // Without the tflm rules the shared offsets are overlaps.
    const auto strict = RunMemplan("verify " + Quote(dir / "a.tflite") + " --inplace none");
    EXPECT_EQ(strict.exit_code, 1);
    EXPECT_THAT(strict.err, HasSubstr("the offline plan does not fit"));
  }
}

// Ops sorted by what they do, to compare graphs up to order.
std::vector<std::string> OpKeys(const Subgraph& sg) {
  std::vector<std::string> out;
  for (const Operator& op : sg.ops) {
    std::string key = op.type;
    for (auto t : op.inputs) key += " i" + std::to_string(t);
    for (auto t : op.outputs) key += " o" + std::to_string(t);
    out.push_back(key);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(EmbedModels, ReorderWritesTheNewOrder) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = testing::TempDir();
  const auto model = shared / "models" / "blazepose_landmark_lite_256_fp16w.tflite";
  const auto out = dir / "reordered.tflite";
  const auto r = RunMemplan("embed --even-if-tflm-refuses " + Quote(model) + " -o " + Quote(out) +
                            " --reorder --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["order_changed"], true);
  EXPECT_LT(j["arena_bytes"], j["arena_without_variant_bytes"]);
  const TfliteModel original = ReadTfliteFile(model);
  const TfliteModel written = ReadTfliteFile(out);
  ASSERT_EQ(written.graph.subgraphs.size(), original.graph.subgraphs.size());
  bool moved = false;
  for (std::size_t s = 0; s < original.graph.subgraphs.size(); ++s) {
    const Subgraph& a = original.graph.subgraphs[s];
    const Subgraph& b = written.graph.subgraphs[s];
    EXPECT_EQ(OpKeys(a), OpKeys(b));
    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (std::size_t t = 0; t < a.tensors.size(); ++t) {
      EXPECT_EQ(a.tensors[t].name, b.tensors[t].name);
      EXPECT_EQ(a.tensors[t].shape, b.tensors[t].shape);
    }
    EXPECT_EQ(a.inputs, b.inputs);
    EXPECT_EQ(a.outputs, b.outputs);
    for (std::size_t i = 0; i < a.ops.size(); ++i) moved |= a.ops[i].outputs != b.ops[i].outputs;
  }
  EXPECT_TRUE(moved);
  EXPECT_EQ(written.tensor_buffers, original.tensor_buffers);
  const auto v = RunMemplan("verify " + Quote(out));
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  const auto run = RunMemplan("run " + Quote(out) + " --offline require --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["outputs_match_naive"], true);
  // A model that carries an offline plan keeps its order.
  const auto again = RunMemplan("embed --even-if-tflm-refuses " + Quote(out) + " -o " +
                                Quote(dir / "x.tflite") + " --reorder");
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("offline plan"));
  EXPECT_FALSE(std::filesystem::exists(dir / "x.tflite"));
}

TEST(EmbedCli, BadCallsWriteNothing) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "chain.tflite", WriteTflite(ConvReluAddChain()));
  const std::string before = ReadFileBytes(model);
  WriteFile(dir, "corrupt.tflite", std::string(before).substr(0, 40));
  const auto files = FilesIn(dir);
  struct Case {
    std::string args;
    int code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Quote(dir / "missing.tflite") + " -o " + Quote(dir / "o.tflite"), 1, "missing.tflite"},
      {Quote(dir / "corrupt.tflite") + " -o " + Quote(dir / "o.tflite"), 1, "corrupt.tflite"},
      {Quote(model) + " -o " + Quote(dir / "no" / "such" / "o.tflite"), 1, "no directory"},
      {Quote(model) + " -o " + Quote(model), 2, "another file"},
      {Quote(model) + " -o " + Quote(dir / "." / "chain.tflite"), 2, "another file"},
      {Quote(model) + " -o " + Quote(dir / "o.tflite") + " --strategy objects/naive", 2, "offsets"},
      {Quote(model) + " -o " + Quote(dir / "o.tflite") + " --inplace sometimes", 2, "inplace"},
      {"zoo:mobilenet_v2 -o " + Quote(dir / "o.tflite"), 2, ".tflite"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = RunMemplan("embed " + c.args);
    EXPECT_EQ(r.exit_code, c.code) << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_EQ(FilesIn(dir), files);
  }
  EXPECT_EQ(ReadFileBytes(model), before);
}

TEST(EmbedCli, TextSummary) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "chain.tflite", WriteTflite(ConvReluAddChain()));
  const auto r =
      RunMemplan("embed --even-if-tflm-refuses " + Quote(model) + " -o " + Quote(dir / "o.tflite"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("arena "));
  EXPECT_THAT(r.out, HasSubstr("tensors planned  4 of 5"));
  EXPECT_THAT(r.out, HasSubstr("in-place shares"));
  EXPECT_THAT(r.out, HasSubstr("operator order   unchanged"));
  const auto v = RunMemplan("verify " + Quote(dir / "o.tflite"));
  EXPECT_EQ(v.exit_code, 0) << v.err;
  // A model without an offline plan has nothing to verify on its own.
  const auto none = RunMemplan("verify " + Quote(model));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_THAT(none.err, HasSubstr("no OfflineMemoryAllocation plan"));
}

// An existing offline plan is replaced in place: one entry, the same buffer, its
// offsets kept (TFLM's semantics: they are fixed, the rest is planned around them).
TEST(EmbedCli, ReplacesAnExistingOfflinePlan) {
  const auto dir = testing::TempDir();
  TfliteWriteOptions options;
  options.offline_offsets = std::vector<std::int32_t>{0, -1, -1, -1, -1};  // "in" at 0
  const auto model = WriteFile(dir, "chain.tflite", WriteTflite(ConvReluAddChain(), options));
  const TfliteModel original = ReadTfliteFile(model);
  const auto out = dir / "o.tflite";
  const auto r = RunMemplan("embed --even-if-tflm-refuses " + Quote(model) + " -o " + Quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const TfliteModel written = ReadTfliteFile(out);
  ASSERT_TRUE(written.offline_plan.has_value());
  EXPECT_EQ(written.metadata.size(), original.metadata.size());
  EXPECT_EQ(written.buffers, original.buffers);
  EXPECT_EQ(written.offline_plan->buffer_index, original.offline_plan->buffer_index);
  EXPECT_EQ(written.offline_plan->offsets[0], 0);
  for (std::size_t t = 0; t < 5; ++t)
    if (t != 1) EXPECT_GE(written.offline_plan->offsets[t], 0) << t;  // w (1) is a constant
  EXPECT_EQ(written.offline_plan->offsets[1], -1);
  EXPECT_EQ(RunMemplan("verify " + Quote(out)).exit_code, 0);
}

// An offline plan TFLM would refuse (here: too few offsets) is replaced.
TEST(EmbedCli, ReplacesAnUnusableOfflinePlan) {
  const auto dir = testing::TempDir();
  TfliteWriteOptions options;
  options.offline_offsets = std::vector<std::int32_t>{0, -1};
  const auto model = WriteFile(dir, "chain.tflite", WriteTflite(ConvReluAddChain(), options));
  EXPECT_EQ(RunMemplan("plan " + Quote(model)).exit_code, 1);
  const auto out = dir / "o.tflite";
  const auto r = RunMemplan("embed --even-if-tflm-refuses " + Quote(model) + " -o " + Quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("replacing the unusable OfflineMemoryAllocation"));
  const TfliteModel written = ReadTfliteFile(out);
  ASSERT_TRUE(written.offline_plan.has_value());
  EXPECT_EQ(written.offline_plan->problem, "");
  EXPECT_EQ(written.offline_plan->offsets.size(), 5u);
  EXPECT_EQ(RunMemplan("verify " + Quote(out)).exit_code, 0);
}

// Data addressed from the file start cannot move: refused, nothing written.
TEST(EmbedCli, RefusesBuffersOutsideTheFlatbuffer) {
  const auto dir = testing::TempDir();
  std::string bytes = WriteTflite(ConvReluAddChain());
  const std::size_t data_at = bytes.size();
  bytes += std::string(64, '\0');  // the constant's bytes, past the flatbuffer
  auto* model = tflite::fb::GetMutableModel(bytes.data());
  auto* buffer = model->mutable_buffers()->GetMutableObject(1);
  ASSERT_TRUE(buffer->mutate_offset(data_at));
  ASSERT_TRUE(buffer->mutate_size(64));
  const auto path = WriteFile(dir, "external.tflite", bytes);
  ASSERT_EQ(RunMemplan("plan " + Quote(path)).exit_code, 0);  // readable
  const auto r =
      RunMemplan("embed --even-if-tflm-refuses " + Quote(path) + " -o " + Quote(dir / "o.tflite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot embed: buffer 1 keeps its data outside the flatbuffer"));
  EXPECT_FALSE(std::filesystem::exists(dir / "o.tflite"));
}

// A root table with a field the official schema does not have (id 8) cannot be copied
// faithfully: refused.
TEST(EmbedCli, RefusesRootFieldsNewerThanTheSchema) {
  namespace fb = tflite::fb;
  flatbuffers::FlatBufferBuilder fbb;
  const auto code = fb::CreateOperatorCode(fbb, 19, 0, 1, 19);  // RELU
  const std::vector<std::int32_t> shape = {1, 16};
  const std::vector<flatbuffers::Offset<fb::Tensor>> tensors = {
      fb::CreateTensor(fbb, fbb.CreateVector(shape), fb::TensorType::FLOAT32, 0,
                       fbb.CreateString("in"), 0, false, 0, true),
      fb::CreateTensor(fbb, fbb.CreateVector(shape), fb::TensorType::FLOAT32, 0,
                       fbb.CreateString("out"), 0, false, 0, true)};
  const std::vector<std::int32_t> in = {0}, out = {1};
  const auto op = fb::CreateOperator(fbb, 0, fbb.CreateVector(in), fbb.CreateVector(out));
  const auto subgraph =
      fb::CreateSubGraph(fbb, fbb.CreateVector(tensors), fbb.CreateVector(in),
                         fbb.CreateVector(out), fbb.CreateVector(std::vector{op}));
  const auto codes = fbb.CreateVector(std::vector{code});
  const auto subgraphs = fbb.CreateVector(std::vector{subgraph});
  const auto buffers = fbb.CreateVector(std::vector{fb::CreateBuffer(fbb)});
  const auto start = fbb.StartTable();
  fbb.AddElement<std::uint32_t>(fb::Model::VT_VERSION, 3, 0);
  fbb.AddOffset(fb::Model::VT_OPERATOR_CODES, codes);
  fbb.AddOffset(fb::Model::VT_SUBGRAPHS, subgraphs);
  fbb.AddOffset(fb::Model::VT_BUFFERS, buffers);
  fbb.AddElement<std::uint32_t>(4 + 2 * 8, 7, 0);  // field id 8
  fbb.Finish(flatbuffers::Offset<fb::Model>(fbb.EndTable(start)), fb::ModelIdentifier());
  const std::string bytes(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  const auto dir = testing::TempDir();
  const auto path = WriteFile(dir, "newer.tflite", bytes);
  ASSERT_EQ(RunMemplan("plan " + Quote(path)).exit_code, 0);  // readable
  const auto r = RunMemplan("embed " + Quote(path) + " -o " + Quote(dir / "o.tflite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("newer.tflite: cannot embed: its Model table has field id 8"));
  EXPECT_FALSE(std::filesystem::exists(dir / "o.tflite"));
}

// TFLM looks a variable of subgraph 1 up at its index in subgraph 0's offsets: warned.
TEST(EmbedCli, WarnsOfVariablesTflmLooksUpInSubgraphZero) {
  GraphBuilder b;
  const auto in = b.Tensor("in", 64);
  const auto out = b.Tensor("out", 64);
  b.Inputs({in}).Outputs({out}).Op("CALL_ONCE", {}, {}, {1}).Op("RELU", {in}, {out});
  b.NextSubgraph();
  const auto state = b.Variable("state", 64);
  const auto next = b.Tensor("next", 64);
  b.Inputs({}).Outputs({next}).Op("ADD", {state, state}, {next});
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "calls.tflite", WriteTflite(b.Build()));
  const auto r = RunMemplan("embed " + Quote(model) + " -o " + Quote(dir / "o.tflite"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("it would place 'state' (subgraph 1, tensor 0)"));
  EXPECT_EQ(RunMemplan("verify " + Quote(dir / "o.tflite")).exit_code, 0);
}

// The library call: a new operator order and the offsets, everything else kept.
TEST(EmbedLibrary, WritesOrderAndOffsets) {
  GraphBuilder b;
  const auto in = b.Typed("in", DataType::kFloat32, {1, 16});
  const auto x = b.Typed("x", DataType::kFloat32, {1, 16});
  const auto y = b.Typed("y", DataType::kFloat32, {1, 16});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 16});
  b.Inputs({in}).Outputs({out});
  b.Op("RELU", {in}, {x}).Op("TANH", {in}, {y}).Op("ADD", {x, y}, {out});
  const Graph graph = b.Build();
  const std::string bytes = WriteTflite(graph);
  TfliteEmbedding e;
  e.offline_offsets = {0, 64, 128, 192};
  e.op_order = {{1, 0, 2}};
  const std::string written = EmbedInTflite(bytes, "m.tflite", e);
  const TfliteModel back = ParseTflite(written, "m.tflite");
  ASSERT_EQ(back.graph.subgraphs[0].ops.size(), 3u);
  EXPECT_EQ(back.graph.subgraphs[0].ops[0].type, "TANH");
  EXPECT_EQ(back.graph.subgraphs[0].ops[1].type, "RELU");
  ASSERT_TRUE(back.offline_plan.has_value());
  EXPECT_EQ(back.offline_plan->offsets, e.offline_offsets);
  EXPECT_EQ(back.offline_plan->version, 1u);
  e.op_order = {{0, 0, 2}};
  EXPECT_THROW(EmbedInTflite(bytes, "m.tflite", e), InputError);
  e.op_order = {{0, 1}};
  EXPECT_THROW(EmbedInTflite(bytes, "m.tflite", e), InputError);
}

}  // namespace
}  // namespace memplan
