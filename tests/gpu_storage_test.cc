// Tensors laid out as TensorFlow Lite's GPU delegate stores them (include/memplan/gpu_storage.h,
// docs/gpu-storage.md), and models planned as its objects. Expected extents and bytes follow
// the OpenCL backend's allocation of each storage type (tensorflow/lite/delegates/gpu/cl/
// tensor.cc: buffers of B*W*H*D*slices*4 values; a 2-D image of W*B*D by H*slices; a 3-D
// image of W*B by H by slices*D), computed by hand for each shape.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "memplan/error.h"
#include "memplan/gpu_storage.h"
#include "memplan/objects.h"
#include "memplan/records_io.h"
#include "memplan/remedy.h"
#include "memplan/textures.h"
#include "tests/graph_builder.h"
#include "tests/model_bindings.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

Tensor Shaped(std::vector<std::int64_t> shape) {
  Tensor t;
  t.name = "t";
  t.shape = std::move(shape);
  return t;
}

GpuTensorLayout Lay(std::vector<std::int64_t> shape, GpuStorage storage,
                    GpuPrecision precision = GpuPrecision::kFp32,
                    DimOrder order = DimOrder::kChannelsLast) {
  return LayOutForGpu(Shaped(std::move(shape)), storage, precision, order);
}

TEST(GpuStorage, FeatureMapOfThirtyTwoChannels) {
  // 1x112x112x32: 8 slices of 4 channels, 112*112*8 texels of 16 bytes.
  const GpuTensorLayout buffer = Lay({1, 112, 112, 32}, GpuStorage::kBuffer);
  EXPECT_EQ(buffer.slices, 8);
  EXPECT_THAT(buffer.extent, ElementsAre(100'352u));
  EXPECT_EQ(buffer.bytes, 1'605'632u);
  EXPECT_EQ(Lay({1, 112, 112, 32}, GpuStorage::kImageBuffer).bytes, 1'605'632u);
  EXPECT_THAT(Lay({1, 112, 112, 32}, GpuStorage::kTexture2D).extent, ElementsAre(112u, 896u));
  EXPECT_THAT(Lay({1, 112, 112, 32}, GpuStorage::kTexture3D).extent, ElementsAre(112u, 112u, 8u));
  EXPECT_EQ(Lay({1, 112, 112, 32}, GpuStorage::kBuffer, GpuPrecision::kFp16).bytes, 802'816u);
}

TEST(GpuStorage, ChannelsArePaddedToWholeSlices) {
  // 3 channels take one slice of 4; 10 take 3 slices (12 values).
  EXPECT_EQ(Lay({1, 224, 224, 3}, GpuStorage::kBuffer).bytes, 224u * 224 * 16);
  EXPECT_THAT(Lay({1, 224, 224, 3}, GpuStorage::kTexture2D).extent, ElementsAre(224u, 224u));
  const GpuTensorLayout logits = Lay({1, 10}, GpuStorage::kTexture2D);  // B,C -> 1x1x1x10
  EXPECT_EQ(logits.slices, 3);
  EXPECT_THAT(logits.extent, ElementsAre(1u, 3u));
  EXPECT_EQ(logits.bytes, 48u);
}

TEST(GpuStorage, BatchIsFoldedIntoTheWidth) {
  // 2x7x5x4: a 2-D image of 5*2 by 7, a 3-D one of 10 by 7 by 1.
  EXPECT_THAT(Lay({2, 7, 5, 4}, GpuStorage::kTexture2D).extent, ElementsAre(10u, 7u));
  EXPECT_THAT(Lay({2, 7, 5, 4}, GpuStorage::kTexture3D).extent, ElementsAre(10u, 7u, 1u));
  // Rank 3 is B,W,C: [2, 5, 7] has 2 slices.
  EXPECT_THAT(Lay({2, 5, 7}, GpuStorage::kTexture2D).extent, ElementsAre(10u, 2u));
  // Rank 1 is B: one channel.
  EXPECT_THAT(Lay({6}, GpuStorage::kTexture2D).extent, ElementsAre(6u, 1u));
}

TEST(GpuStorage, ChannelsFirstShapesAreReadAsNhwc) {
  // ONNX [1, 32, 56, 56] is the NHWC [1, 56, 56, 32] a converter writes.
  EXPECT_THAT(
      Lay({1, 32, 56, 56}, GpuStorage::kTexture2D, GpuPrecision::kFp32, DimOrder::kChannelsFirst)
          .extent,
      ElementsAre(56u, 448u));
}

TEST(GpuStorage, RanksAboveFourFoldIntoTheBatch) {
  EXPECT_THAT(Lay({2, 3, 4, 5, 8}, GpuStorage::kTexture3D).extent, ElementsAre(30u, 4u, 2u));
}

TEST(GpuStorage, OpenDimensionsAreNamed) {
  try {
    Lay({-1, 8}, GpuStorage::kBuffer);
    FAIL() << "an open dimension was laid out";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tensor 't'"));
    EXPECT_THAT(e.what(), HasSubstr("bind its open dimensions"));
    ASSERT_EQ(RemediesOf(e).size(), 1u);
    EXPECT_EQ(RemediesOf(e)[0].kind, Remedy::Kind::kBindDimension);
  }
}

TEST(GpuStorage, NamesOfStoragesAndPrecisions) {
  EXPECT_EQ(ParseGpuStorage("texture2d"), GpuStorage::kTexture2D);
  EXPECT_EQ(GpuStorageName(ParseGpuStorage("image-buffer")), "image-buffer");
  EXPECT_EQ(ParseGpuPrecision("fp16"), GpuPrecision::kFp16);
  EXPECT_THROW(ParseGpuStorage("texture4d"), UsageError);
  EXPECT_THROW(ParseGpuPrecision("int8"), UsageError);
}

TEST(GpuObjectsWorkload, KeepsTheTensorsAndLifetimesOfTheModel) {
  const Workload model =
      GraphWorkload(testing::ConvReluAddChain(), "chain", "tflite", LoadOptions{});
  const Workload textures = GpuObjectsWorkload(model, GpuStorage::kTexture2D, GpuPrecision::kFp16);
  ASSERT_TRUE(textures.textures.has_value());
  ASSERT_EQ(textures.textures->size(), model.problem.size());
  EXPECT_EQ(textures.textures->element_bytes, 8u);
  for (std::size_t i = 0; i < model.problem.size(); ++i) {
    EXPECT_EQ(textures.textures->records[i].first, model.problem.records[i].first);
    EXPECT_EQ(textures.textures->records[i].last, model.problem.records[i].last);
    EXPECT_EQ(textures.textures->names[i], model.problem.NameOf(i));
  }
  // The input [1,8,8,3] is one slice: an 8x8 texture.
  EXPECT_THAT(textures.textures->records[0].dims, ElementsAre(8u, 8u));
  ASSERT_FALSE(textures.notes.empty());
  EXPECT_THAT(textures.notes.back(), HasSubstr("GPU delegate"));

  const Workload buffers = GpuObjectsWorkload(model, GpuStorage::kBuffer, GpuPrecision::kFp32);
  ASSERT_FALSE(buffers.textures.has_value());
  ASSERT_EQ(buffers.problem.size(), model.problem.size());
  EXPECT_EQ(buffers.problem.records[0].size, 8u * 8 * 16);
}

TEST(GpuObjectsWorkload, RecordsHaveNoShapesToLayOut) {
  Workload records;
  records.label = "r.csv";
  records.kind = "records";
  records.problem.records = {{16, 0, 1}};
  EXPECT_THROW(GpuObjectsWorkload(records, GpuStorage::kBuffer, GpuPrecision::kFp32), InputError);
}

// Every shared model as 2-D textures and as buffers: each strategy's plan is verified by the
// library, and no strategy is above the naive one object per tensor.
TEST(GpuObjectsWorkload, EverySharedModelPlansAsTexturesAndBuffers) {
  MEMPLAN_REQUIRE_SHARED(shared);
  std::size_t models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared / "models")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".tflite" && ext != ".onnx") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const Workload model = LoadWorkload(
        entry.path().string(), testing::SharedModelOptions(entry.path().filename().string()));
    for (GpuStorage storage : {GpuStorage::kTexture2D, GpuStorage::kTexture3D}) {
      const Workload gpu = GpuObjectsWorkload(model, storage, GpuPrecision::kFp32);
      ASSERT_TRUE(gpu.textures.has_value());
      const std::uint64_t naive = PlanTextureObjects(*gpu.textures, "naive").total_elements;
      for (std::string_view name : TextureStrategies(TextureKind::kTexture)) {
        const TexturePlan plan = PlanTextureObjects(*gpu.textures, name);
        EXPECT_TRUE(FindTextureViolations(*gpu.textures, plan).empty()) << name;
        EXPECT_LE(plan.total_elements, naive) << name;
      }
    }
    const Workload buffers = GpuObjectsWorkload(model, GpuStorage::kBuffer, GpuPrecision::kFp16);
    const ObjectPlan best = PlanObjects(buffers.problem, "best");
    EXPECT_LE(best.total_bytes, PlanObjects(buffers.problem, "greedy_best").total_bytes);
    EXPECT_LE(best.total_bytes, PlanObjects(buffers.problem, "equality").total_bytes);
    ++models;
  }
  EXPECT_GE(models, 30u);
}

// A real tensor of a real model: mobilenet_v2's first feature map, 1x112x112x32, as each
// storage type allocates it.
TEST(GpuObjectsWorkload, MobilenetFeatureMapAsTheBackendsAllocateIt) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const Workload model =
      LoadWorkload((shared / "models/mobilenet_v2_1.0_224_quant.tflite").string());
  ASSERT_TRUE(model.graph.has_value());
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < model.problem.size() && !found; ++i) {
    const TensorRef ref = model.origins[i];
    const Tensor& t = model.graph->subgraphs[ref.subgraph].tensors[ref.tensor];
    if (t.shape == std::vector<std::int64_t>{1, 112, 112, 32}) found = i;
  }
  ASSERT_TRUE(found.has_value()) << "no 1x112x112x32 tensor";
  const auto t2d = GpuObjectsWorkload(model, GpuStorage::kTexture2D, GpuPrecision::kFp32);
  EXPECT_THAT(t2d.textures->records[*found].dims, ElementsAre(112u, 896u));
  const auto t3d = GpuObjectsWorkload(model, GpuStorage::kTexture3D, GpuPrecision::kFp32);
  EXPECT_THAT(t3d.textures->records[*found].dims, ElementsAre(112u, 112u, 8u));
  const auto buf = GpuObjectsWorkload(model, GpuStorage::kBuffer, GpuPrecision::kFp16);
  EXPECT_EQ(buf.problem.records[*found].size, 802'816u);
  // The int8 model runs in floats on the GPU: its 401,408-byte tensor takes 4x (fp32).
  const auto fp32 = GpuObjectsWorkload(model, GpuStorage::kImageBuffer, GpuPrecision::kFp32);
  EXPECT_EQ(model.problem.records[*found].size, 401'408u);
  EXPECT_EQ(fp32.problem.records[*found].size, 1'605'632u);
}

// The command: plan as textures (JSON with bytes), write the plan, verify it, draw it.
TEST(GpuObjectsCli, PlanVerifyAndShowAModelAsTextures) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string model =
      testing::Quote(shared / "models/tinymlperf_resnet8_cifar10_float.tflite");
  const auto dir = testing::TempDir();
  const auto plan_file = dir / "resnet8_t2d.json";
  const auto r = testing::RunMemplan("plan " + model + " --objects texture2d --format json --out " +
                                     testing::Quote(plan_file));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json out = Json::parse(r.out);
  EXPECT_EQ(out["size_type"], "texture");
  EXPECT_EQ(out["element_bytes"], 16);
  ASSERT_EQ(out["results"].size(), 3u);  // naive, equality, greedy_in_order
  for (const Json& result : out["results"])
    EXPECT_EQ(result["bytes"], result["elements"].get<std::uint64_t>() * 16);
  EXPECT_THAT(out["notes"].dump(), HasSubstr("GPU delegate"));

  const auto v = testing::RunMemplan("verify " + model + " --objects texture2d --plan " +
                                     testing::Quote(plan_file));
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_THAT(v.out, HasSubstr("OK"));
  // The same plan does not fit the model's 3-D textures.
  const auto wrong = testing::RunMemplan("verify " + model + " --objects texture3d --plan " +
                                         testing::Quote(plan_file));
  EXPECT_EQ(wrong.exit_code, 1);

  const auto svg = dir / "resnet8_t2d.svg";
  const auto s =
      testing::RunMemplan("show " + model + " --objects texture2d --svg " + testing::Quote(svg));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_THAT(s.out, HasSubstr(" B)"));
  EXPECT_TRUE(std::filesystem::exists(svg));
}

TEST(GpuObjectsCli, BuffersArePlannedByTheObjectsStrategies) {
  const auto dir = testing::TempDir();
  const auto r =
      testing::RunMemplan("plan zoo:mobilenet_v2 --objects buffers --gpu-precision fp16");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("objects"));
  EXPECT_THAT(r.out, HasSubstr("greedy_best"));
  EXPECT_THAT(r.out, Not(HasSubstr("offsets")));
  EXPECT_THAT(r.out, HasSubstr("fp16"));
  // Records files have no shapes.
  const auto csv = dir / "r.csv";
  std::ofstream(csv) << "id,lower,upper,size\n0,0,2,16\n";
  const auto bad = testing::RunMemplan("plan " + testing::Quote(csv) + " --objects buffers");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("shapes"));
}

}  // namespace
}  // namespace memplan
