// The patch rewrite (memplan split) and the reference evaluator that proves it exact:
// the fixed-point helpers against hand-worked values, the evaluator against direct sums,
// and every split of the target models bit-identical to the original on random inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/reference_eval.h"
#include "memplan/split.h"
#include "memplan/tflite.h"
#include "src/rewrite/model_io.h"
#include "src/rewrite/quantized_math.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

using testing::ErrorMessage;

TEST(QuantizedMath, MultipliersAndRounding) {
  // 0.5 = 0.5 * 2^0: mantissa 2^30 in Q31, shift 0; 0.75 = 0.75 * 2^0.
  EXPECT_EQ(rewrite::QuantizeMultiplier(0.5).multiplier, 1 << 30);
  EXPECT_EQ(rewrite::QuantizeMultiplier(0.5).shift, 0);
  EXPECT_EQ(rewrite::QuantizeMultiplier(0.75).multiplier, 1610612736);
  EXPECT_EQ(rewrite::QuantizeMultiplier(3.0).shift, 2);
  EXPECT_EQ(rewrite::QuantizeMultiplier(0.0).multiplier, 0);
  // 5 / 2 = 2.5 rounds away from zero to 3; -5 / 2 to -3; 7 / 4 = 1.75 to 2.
  EXPECT_EQ(rewrite::RoundingDivideByPOT(5, 1), 3);
  EXPECT_EQ(rewrite::RoundingDivideByPOT(-5, 1), -3);
  EXPECT_EQ(rewrite::RoundingDivideByPOT(7, 2), 2);
  EXPECT_EQ(rewrite::RoundingDivideByPOT(-6, 2), -2);  // -1.5 -> -2
  EXPECT_EQ(rewrite::SaturatingRoundingDoublingHighMul(INT32_MIN, INT32_MIN), INT32_MAX);
  // 1000 * 0.5 = 500; 1001 * 0.5 = 500.5 -> 501; 100 * 0.75 = 75; 10 * 3 = 30; the
  // doubling high multiply's nudge rounds a negative half towards zero: -500.5 -> -500.
  EXPECT_EQ(rewrite::MultiplyByQuantizedMultiplier(1000, rewrite::QuantizeMultiplier(0.5)), 500);
  EXPECT_EQ(rewrite::MultiplyByQuantizedMultiplier(1001, rewrite::QuantizeMultiplier(0.5)), 501);
  EXPECT_EQ(rewrite::MultiplyByQuantizedMultiplier(100, rewrite::QuantizeMultiplier(0.75)), 75);
  EXPECT_EQ(rewrite::MultiplyByQuantizedMultiplier(10, rewrite::QuantizeMultiplier(3.0)), 30);
  EXPECT_EQ(rewrite::MultiplyByQuantizedMultiplier(-1001, rewrite::QuantizeMultiplier(0.5)), -500);
}

std::vector<std::vector<std::uint8_t>> RandomInputs(const Graph& g, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<std::uint8_t>> inputs;
  for (const int t : g.subgraphs[0].inputs) {
    const Tensor& tensor = g.subgraphs[0].tensors[static_cast<std::size_t>(t)];
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(*tensor.bytes));
    if (tensor.type == DataType::kFloat32) {
      std::uniform_real_distribution<float> value(-1.0f, 1.0f);
      for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
        const float v = value(rng);
        std::memcpy(bytes.data() + i, &v, 4);
      }
    } else {
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

// The evaluator's first op against the same convolution computed in double precision from
// real values (dequantized for int8): float32 agrees to rounding, int8 to one step.
void ExpectFirstOpMatchesDirectSums(const std::string& bytes, double tolerance) {
  const auto model = rewrite::LoadModel(bytes, "model");
  const auto& sg = *model->subgraphs[0];
  const auto& op = *sg.operators[0];
  const auto& in = *sg.tensors[op.inputs[0]];
  const auto& w = *sg.tensors[op.inputs[1]];
  const auto& b = *sg.tensors[op.inputs[2]];
  const auto& out = *sg.tensors[op.outputs[0]];
  const bool depthwise = op.builtin_options.AsDepthwiseConv2DOptions() != nullptr;
  int stride = 0;
  rewrite::fb::ActivationFunctionType act{};
  if (depthwise) {
    stride = op.builtin_options.AsDepthwiseConv2DOptions()->stride_h;
    act = op.builtin_options.AsDepthwiseConv2DOptions()->fused_activation_function;
  } else {
    stride = op.builtin_options.AsConv2DOptions()->stride_h;
    act = op.builtin_options.AsConv2DOptions()->fused_activation_function;
  }
  const Graph g = ParseTflite(bytes, "model").graph;
  const auto inputs = RandomInputs(g, 5);
  EvalOptions options;
  options.until_tensor = out.name;
  const EvalResult r = EvaluateTflite(bytes, "model", inputs, options);
  const auto& y = r.tensors[static_cast<std::size_t>(op.outputs[0])];
  const bool quantized = in.type == rewrite::fb::TensorType::INT8;
  const auto& x = inputs[0];
  const auto& wd = model->buffers[w.buffer]->data;
  const auto& bd = model->buffers[b.buffer]->data;
  const auto value = [&](const std::vector<std::uint8_t>& d, std::size_t i, bool q, float scale,
                         std::int64_t zp) -> double {
    if (q) return scale * (static_cast<std::int8_t>(d[i]) - zp);
    float f;
    std::memcpy(&f, d.data() + 4 * i, 4);
    return f;
  };
  const int H = in.shape[1], W = in.shape[2], C = in.shape[3];
  const int OH = out.shape[1], OW = out.shape[2], OC = out.shape[3];
  const int KH = w.shape[1], KW = w.shape[2];
  const int pad = std::max((OH - 1) * stride + KH - H, 0) / 2;
  double worst = 0;
  for (int oy = 0; oy < OH; ++oy)
    for (int ox = 0; ox < OW; ++ox)
      for (int oc = 0; oc < OC; ++oc) {
        const float ws =
            quantized ? w.quantization->scale[w.quantization->scale.size() == 1 ? 0 : oc] : 1.0f;
        const float is = quantized ? in.quantization->scale[0] : 1.0f;
        const std::int64_t izp = quantized ? in.quantization->zero_point[0] : 0;
        double sum = 0;
        if (quantized) {
          std::int32_t bias;
          std::memcpy(&bias, bd.data() + 4 * oc, 4);
          sum = static_cast<double>(is) * ws * bias;
        } else {
          sum = value(bd, static_cast<std::size_t>(oc), false, 0, 0);
        }
        for (int ky = 0; ky < KH; ++ky)
          for (int kx = 0; kx < KW; ++kx) {
            const int iy = oy * stride - pad + ky, ix = ox * stride - pad + kx;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            for (int ic = depthwise ? oc / (OC / C) : 0; ic < (depthwise ? oc / (OC / C) + 1 : C);
                 ++ic) {
              const std::size_t xi = (static_cast<std::size_t>(iy) * W + ix) * C + ic;
              const std::size_t wi =
                  depthwise ? (static_cast<std::size_t>(ky) * KW + kx) * OC + oc
                            : ((static_cast<std::size_t>(oc) * KH + ky) * KW + kx) * C + ic;
              sum += value(x, xi, quantized, is, izp) * value(wd, wi, quantized, ws, 0);
            }
          }
        if (act == rewrite::fb::ActivationFunctionType::RELU) sum = std::max(sum, 0.0);
        if (act == rewrite::fb::ActivationFunctionType::RELU6) sum = std::clamp(sum, 0.0, 6.0);
        const std::size_t at = (static_cast<std::size_t>(oy) * OW + ox) * OC + oc;
        double got = 0, expected = sum;
        if (quantized) {
          const double q =
              std::round(sum / out.quantization->scale[0]) + out.quantization->zero_point[0];
          expected = std::clamp(q, -128.0, 127.0);
          got = static_cast<std::int8_t>(y[at]);
        } else {
          got = value(y, at, false, 0, 0);
        }
        worst = std::max(worst,
                         std::abs(got - expected) / (quantized ? 1.0 : 1.0 + std::abs(expected)));
      }
  EXPECT_LE(worst, tolerance);
}

TEST(ReferenceEval, FirstLayersMatchDirectSums) {
  MEMPLAN_REQUIRE_SHARED(shared);
  // person_detect starts with an int8 DEPTHWISE_CONV_2D, vww with a float CONV_2D.
  ExpectFirstOpMatchesDirectSums(ReadFileBytes(shared / "models/person_detect_96_int8.tflite"),
                                 1.0);
  ExpectFirstOpMatchesDirectSums(ReadFileBytes(shared / "models/tinymlperf_vww_96_float.tflite"),
                                 1e-5);
}

// Runs both models to the stage's output (or to the end) on three random inputs and
// compares every tensor both computed, by name. Returns the tensors compared.
std::size_t ExpectSameOutputs(const std::string& original, const std::string& rewritten,
                              const std::string& until) {
  const Graph g = ParseTflite(original, "original").graph;
  const auto names_a = TfliteTensorNames(original, "original");
  const auto names_b = TfliteTensorNames(rewritten, "rewritten");
  std::size_t compared = 0;
  for (std::uint32_t seed = 1; seed <= 3; ++seed) {
    const auto inputs = RandomInputs(g, seed);
    EvalOptions options;
    options.stop_at_unsupported = true;
    options.until_tensor = until;
    const EvalResult a = EvaluateTflite(original, "original", inputs, options);
    const EvalResult b = EvaluateTflite(rewritten, "rewritten", inputs, options);
    std::map<std::string, const std::vector<std::uint8_t>*> by_name;
    for (std::size_t t = 0; t < names_a.size(); ++t)
      if (!a.tensors[t].empty()) by_name[names_a[t]] = &a.tensors[t];
    bool saw_until = until.empty();
    for (std::size_t t = 0; t < names_b.size(); ++t) {
      const auto it = by_name.find(names_b[t]);
      if (b.tensors[t].empty() || it == by_name.end()) continue;
      EXPECT_TRUE(*it->second == b.tensors[t])
          << "tensor '" << names_b[t] << "' differs, seed " << seed;
      saw_until = saw_until || names_b[t] == until;
      ++compared;
    }
    EXPECT_TRUE(saw_until) << "the stage output '" << until << "' was not compared";
  }
  return compared;
}

std::string StageOutputName(const std::string& model, int last_op) {
  const Graph g = ParseTflite(model, "model").graph;
  const auto& op = g.subgraphs[0].ops.at(static_cast<std::size_t>(last_op));
  return g.subgraphs[0].tensors.at(static_cast<std::size_t>(op.outputs.at(0))).name;
}

// Splits with a fixed stage and grid and checks the result exact.
void CheckSplit(const std::string& bytes, SplitStage stage, PatchGrid grid) {
  SplitRequest request;
  request.stage = stage;
  request.patches = grid;
  const SplitResult r = SplitTflite(bytes, "model", request);
  ASSERT_TRUE(r.split);
  EXPECT_GE(r.macs_after, r.macs_before);
  EXPECT_GT(r.ops_after, r.ops_before);
  EXPECT_GT(ExpectSameOutputs(bytes, r.bytes, StageOutputName(bytes, stage.last_op)), 0u);
}

TEST(Split, PersonDetectInt8IsBitIdenticalToTheEnd) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string bytes = ReadFileBytes(shared / "models/person_detect_96_int8.tflite");
  for (const PatchGrid grid : {PatchGrid{2, 3}, PatchGrid{4, 4}, PatchGrid{1, 5}}) {
    SplitRequest request;
    request.stage = SplitStage{0, 7};
    request.patches = grid;
    const SplitResult r = SplitTflite(bytes, "person_detect", request);
    ASSERT_TRUE(r.split);
    // Up to the op the evaluator lacks (SOFTMAX): the pooled features and the logits.
    EXPECT_GT(ExpectSameOutputs(bytes, r.bytes, ""), 10u);
  }
}

TEST(Split, TargetModelsAreBitIdentical) {
  MEMPLAN_REQUIRE_SHARED(shared);
  CheckSplit(ReadFileBytes(shared / "models/tinymlperf_vww_96_float.tflite"), {0, 5}, {3, 3});
  CheckSplit(ReadFileBytes(shared / "models/mobilenet_v1_0.25_128_quant.tflite"), {0, 4}, {2, 4});
  // Residual blocks: ADD of two stage tensors, the skip operand cut from a wider part.
  const std::string resnet8 =
      ReadFileBytes(shared / "models/tinymlperf_resnet8_cifar10_int8.tflite");
  CheckSplit(resnet8, {0, 3}, {1, 3});
  CheckSplit(resnet8, {0, 7}, {3, 2});
  // A stage with explicit PAD ops (PyTorch export) behind a TRANSPOSE and residual ADDs.
  CheckSplit(ReadFileBytes(shared / "models/mobilenet_v2_1.0_224_int8_pytorch_nchw.tflite"),
             {1, 18}, {4, 6});
}

// The splits `memplan split` chooses for the whole arena on host64 (docs/below-the-bound.md,
// the figures): each bit-identical to its original.
TEST(Split, ChosenSplitsAreBitIdentical) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto model = [&](const char* name) {
    return ReadFileBytes(shared / "models" / (std::string(name) + ".tflite"));
  };
  CheckSplit(model("person_detect_96_int8"), {0, 3}, {1, 3});
  CheckSplit(model("tinymlperf_vww_96_float"), {0, 3}, {3, 3});
  CheckSplit(model("mobilenet_v1_0.25_224_float"), {0, 7}, {5, 4});
  CheckSplit(model("mobilenet_v2_1.0_224_int8_pytorch_nchw"), {1, 18}, {4, 4});
  CheckSplit(model("tinymlperf_resnet8_cifar10_int8"), {0, 3}, {1, 3});
  CheckSplit(model("mobilenet_v1_0.25_128_quant"), {2, 3}, {1, 3});  // uint8: reported only
}

// The search's decisions with a stand-in for the device: a whole arena that only grows
// with the ops (the original, with the fewest, is never beaten), then one that the final
// measure halves.
TEST(Split, SearchNeverReturnsALargerModelUnlessForced) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string bytes = ReadFileBytes(shared / "models/tinymlperf_resnet8_cifar10_int8.tflite");
  const auto by_ops = [](const std::string& model) {
    const Bytes ops = ParseTflite(model, "candidate").graph.subgraphs[0].ops.size();
    return SplitArena{1000 - ops, ops * 64, 1000 + ops * 64};
  };
  SplitRequest request;
  request.arena_of = by_ops;
  const SplitResult kept = SplitTflite(bytes, "resnet8", request);
  EXPECT_FALSE(kept.split);
  EXPECT_TRUE(kept.bytes.empty());
  EXPECT_GT(kept.candidates, 0u);
  EXPECT_EQ(kept.arena_before.whole, 1000u + 16 * 64);
  EXPECT_NE(kept.why_not.find("no split makes the whole arena smaller"), std::string::npos);
  EXPECT_NE(kept.why_not.find("against the original's 2024 B (head 984 B, tail 1024 B)"),
            std::string::npos)
      << kept.why_not;
  request.force = true;
  const SplitResult forced = SplitTflite(bytes, "resnet8", request);
  ASSERT_TRUE(forced.split);
  EXPECT_TRUE(forced.larger);
  EXPECT_GT(forced.arena_after.whole, forced.arena_before.whole);
  // The smallest head is the candidate with the most ops.
  EXPECT_EQ(forced.arena_after.head, 1000 - forced.ops_after);
  request.force = false;
  request.final_arena_of = [&](const std::string& model) {
    SplitArena a = by_ops(model);
    a.whole /= 4;
    return a;
  };
  const SplitResult reranked = SplitTflite(bytes, "resnet8", request);
  ASSERT_TRUE(reranked.split);
  EXPECT_FALSE(reranked.larger);
  EXPECT_LT(reranked.arena_after.whole, reranked.arena_before.whole);
  EXPECT_EQ(reranked.arena_after.whole, (1000 + reranked.ops_after * 64) / 4);
}

// TFLM's CONCATENATION takes at most 10 inputs: 12 x 12 patches are joined as a tree
// (12 columns in two groups of 6, per row; 12 row bands in two groups), still exact; the
// slice and padding constants equal across patches are one tensor each.
TEST(Split, JoinsOfMoreThanTenPartsAreTreesOfConcatenations) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string bytes = ReadFileBytes(shared / "models/tinymlperf_vww_96_float.tflite");
  SplitRequest request;
  request.stage = SplitStage{0, 3};
  request.patches = PatchGrid{12, 12};
  const SplitResult r = SplitTflite(bytes, "vww", request);
  ASSERT_TRUE(r.split);
  const Graph g = ParseTflite(r.bytes, "split").graph;
  std::size_t joins = 0, widest = 0;
  std::map<std::string, int> constants;
  for (const Operator& op : g.subgraphs[0].ops) {
    if (op.type == "CONCATENATION") ++joins, widest = std::max(widest, op.inputs.size());
    EXPECT_NE(op.type, "STRIDED_SLICE");
  }
  for (const Tensor& t : g.subgraphs[0].tensors)
    if (t.name.starts_with("split:begin:") || t.name.starts_with("split:size:"))
      ++constants[t.name];
  EXPECT_LE(widest, 10u);
  EXPECT_EQ(joins, 12u * 3 + 3);  // per row: 2 groups and their join; then the same for rows
  for (const auto& [name, count] : constants) EXPECT_EQ(count, 1) << name;
  EXPECT_GT(ExpectSameOutputs(bytes, r.bytes, StageOutputName(bytes, 3)), 0u);
}

TEST(Split, RefusesWhatIsNotExact) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string bytes = ReadFileBytes(shared / "models/person_detect_96_int8.tflite");
  SplitRequest request;
  request.stage = SplitStage{26, 28};  // runs into AVERAGE_POOL_2D / RESHAPE territory
  request.patches = PatchGrid{2, 2};
  EXPECT_NE(
      ErrorMessage<InputError>([&] { SplitTflite(bytes, "pd", request); }).find("cannot split"),
      std::string::npos);
  request.stage = SplitStage{0, 3};
  request.patches = PatchGrid{100, 1};
  EXPECT_NE(ErrorMessage<InputError>([&] { SplitTflite(bytes, "pd", request); }).find("100x1"),
            std::string::npos);
}

// person_detect as 4x4 patches: the head halves, but 186 new ops cost the tail more than
// the head saves (issue 28's figures: 85,016 -> 110,480 B on host64). Only --force
// writes it, and says it is larger.
TEST(SplitCli, PersonDetectFourByFourHalvesTheHeadButIsLargerOverall) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto out = std::filesystem::temp_directory_path() / "memplan_split_test_pd.tflite";
  std::filesystem::remove(out);
  const auto model = shared / "models/person_detect_96_int8.tflite";
  const std::string command = "split " + testing::Quote(model.string()) + " -o " +
                              testing::Quote(out.string()) + " --stage 0..7 --patches 4x4 -q";
  const auto refused = testing::RunMemplan(command);
  EXPECT_EQ(refused.exit_code, 4) << refused.err;
  EXPECT_NE(refused.out.find("no split makes the whole arena smaller"), std::string::npos)
      << refused.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  const auto r = testing::RunMemplan(command + " --force --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["larger"].template get<bool>());
  for (const char* target : {"host64", "arm32"}) {
    const auto& t = j["targets"][target];
    EXPECT_LE(t["after"]["head"].template get<double>() * 2,
              t["before"]["head"].template get<double>())
        << target;
    EXPECT_GT(t["after"]["arena"].template get<double>(),
              t["before"]["arena"].template get<double>())
        << target;
    EXPECT_GT(t["after"]["tail"].template get<double>(), t["before"]["tail"].template get<double>())
        << target;
  }
  EXPECT_LE(j["macs_after"].template get<double>(), 1.2 * j["macs_before"].template get<double>());
  const std::string written = ReadFileBytes(out);
  // The written model carries its offline plan and stays exact.
  EXPECT_TRUE(ParseTflite(written, "written").offline_plan.has_value());
  EXPECT_GT(ExpectSameOutputs(ReadFileBytes(model), written, ""), 10u);
  // inspect names the patch groups and the stage's ops.
  const auto shown = testing::RunMemplan("inspect " + testing::Quote(out.string()));
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("split: 4x4 patch groups"), std::string::npos) << shown.out;
  // show marks the stage as a band over its steps.
  const auto svg = std::filesystem::temp_directory_path() / "memplan_split_test_pd.svg";
  const auto drawn = testing::RunMemplan("show " + testing::Quote(out.string()) + " --svg " +
                                         testing::Quote(svg.string()) + " -q");
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const std::string picture = ReadFileBytes(svg);
  EXPECT_NE(picture.find("class=\"band\""), std::string::npos);
  EXPECT_NE(picture.find("split stage: 4x4 patches"), std::string::npos);
  std::filesystem::remove(svg);
  EXPECT_EQ(PatchGroupOf("split:r1c2:conv/out:slice"), "split:r1c2");
  EXPECT_EQ(PatchGroupOf("conv/out"), "");
  std::filesystem::remove(out);
}

// What fuzz/tflite_split_fuzz.cc does, on seeded corruptions of a real model: a refusal is
// an InputError; a rewrite that returns bytes reads back as a valid graph.
TEST(Split, CorruptedModelsAreRefusedOrSplitCleanly) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const std::string original = ReadFileBytes(shared / "models/person_detect_96_int8.tflite");
  std::mt19937 rng(11);
  int split = 0, refused = 0;
  for (int k = 0; k < 200; ++k) {
    std::string bytes = original;
    for (int j = 0; j < 3; ++j) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    try {
      const auto chains = SplittableChains(bytes, "corrupt.tflite");
      if (chains.empty()) continue;
      SplitRequest request;
      request.stage = SplitStage{chains[0].ops.first_op,
                                 std::min(chains[0].ops.last_op, chains[0].ops.first_op + 2)};
      request.patches = PatchGrid{2, 2};
      const SplitResult r = SplitTflite(bytes, "corrupt.tflite", request);
      ASSERT_TRUE(r.split);
      ValidateGraph(ParseTflite(r.bytes, "split.tflite").graph);
      ++split;
    } catch (const InputError&) {
      ++refused;
    }
  }
  EXPECT_GT(split, 0);
  EXPECT_GT(refused, 0);
}

// Found by fuzz/tflite_split_fuzz.cc (2026-11-26): 24 bytes of the keyword-spotting model
// changed so that indices point past the model's tensors and buffers. flatbuffers' verifier
// takes it; the rewrite then renumbered an out-of-range tensor (a wild read). It is now
// refused, as memplan's reader refuses it.
TEST(Split, ModelWithIndicesOutOfRangeIsRefused) {
  MEMPLAN_REQUIRE_SHARED(shared);
  std::string bytes = ReadFileBytes(shared / "models/tinymlperf_kws_dscnn_float.tflite");
  ASSERT_EQ(bytes.size(), 43392u);
  const std::pair<std::size_t, int> edits[] = {
      {5495, 0363},  {5496, 06},    {5497, 035},  {5498, 010},   {5499, 0361},  {5500, 0344},
      {5501, 052},   {14829, 015},  {14830, 062}, {14831, 0374}, {14832, 026},  {14833, 0353},
      {14834, 0354}, {27471, 0302}, {27472, 025}, {27473, 070},  {27474, 0346}, {27475, 0300},
      {27476, 0336}, {27477, 0343}, {27478, 042}, {28546, 057},  {34959, 077},  {43097, 03}};
  for (const auto& [at, value] : edits) bytes[at] = static_cast<char>(value);
  EXPECT_THROW(SplittableChains(bytes, "fuzzed.tflite"), InputError);
  SplitRequest request;
  request.stage = SplitStage{0, 1};
  request.patches = PatchGrid{2, 2};
  EXPECT_THROW(SplitTflite(bytes, "fuzzed.tflite", request), InputError);
}

// Found by the split fuzzer too: a convolution filter whose dimensions multiply past 32
// bits (the filter itself still under the reader's size limit) overflowed the count of
// multiply-accumulates. It is counted in 64 bits now (saturating).
TEST(Split, HugeFilterDimensionsAreCountedWithoutOverflow) {
  MEMPLAN_REQUIRE_SHARED(shared);
  auto model =
      rewrite::LoadModel(ReadFileBytes(shared / "models/tinymlperf_kws_dscnn_float.tflite"), "kws");
  auto& sg = *model->subgraphs[0];
  const auto conv = std::find_if(sg.operators.begin(), sg.operators.end(), [&](const auto& op) {
    return rewrite::BuiltinCodeOf(*model, *op) == 3;  // CONV_2D
  });
  ASSERT_NE(conv, sg.operators.end());
  auto& filter = *sg.tensors[static_cast<std::size_t>((*conv)->inputs[1])];
  const std::int64_t output_elements = [&] {
    std::int64_t n = 1;
    for (int d : sg.tensors[static_cast<std::size_t>((*conv)->outputs[0])]->shape) n *= d;
    return n;
  }();
  filter.shape = {filter.shape[0], 1, 64, 620756993};
  const std::string bytes = rewrite::SaveModel(*model);
  ASSERT_NO_THROW(ParseTflite(bytes, "huge_filter.tflite"));  // the rewrite gets to count
  SplitRequest request;
  request.stage = SplitStage{0, 0};
  request.patches = PatchGrid{2, 2};
  const SplitResult r = SplitTflite(bytes, "huge_filter.tflite", request);
  EXPECT_GE(r.macs_before, static_cast<std::uint64_t>(output_elements) * 64u * 620756993u);
}

// Found by the split fuzzer as well: 18 bytes of the SVDF keyword model changed so that a
// tensor's 64-bit quantization zero points sit at a 4-byte boundary, which flatbuffers'
// verifier lets through; unpacking them read misaligned words (UndefinedBehaviorSanitizer).
// The rewrite's loader refuses such a file.
TEST(Split, MisalignedZeroPointsAreRefused) {
  MEMPLAN_REQUIRE_SHARED(shared);
  std::string bytes = ReadFileBytes(shared / "models/keyword_scrambled_svdf_int8.tflite");
  ASSERT_EQ(bytes.size(), 34576u);
  const std::pair<std::size_t, int> edits[] = {
      {4481, 01},  {4482, 061}, {4483, 055},  {4484, 00},  {4996, 012},   {4997, 00},
      {4998, 014}, {4999, 00},  {5000, 07},   {5001, 00},  {5002, 00},    {5003, 00},
      {5004, 010}, {5005, 00},  {32594, 077}, {32595, 01}, {32596, 0111}, {33968, 062}};
  for (const auto& [at, value] : edits) bytes[at] = static_cast<char>(value);
  try {
    rewrite::LoadModel(bytes, "fuzzed.tflite");
    FAIL() << "a model with misaligned zero points was loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not 8-byte aligned"), std::string::npos) << e.what();
  }
}

TEST(SplitCli, LeavesAModelAsItIsAndSaysWhy) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto out = std::filesystem::temp_directory_path() / "memplan_split_test_resnet8.tflite";
  std::filesystem::remove(out);
  const auto model = shared / "models/tinymlperf_resnet8_cifar10_int8.tflite";
  const auto r = testing::RunMemplan("split " + testing::Quote(model.string()) + " -o " +
                                     testing::Quote(out.string()) + " -q --max-extra-macs 0%");
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.out.find("left as it is"), std::string::npos) << r.out;
  // Within 0 % extra MACs only stages without a halo remain, which lower no peak.
  EXPECT_NE(r.out.find("no split makes the whole arena smaller"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Splitting resnet8's first convolution alone lowers no peak (its residual blocks hold
// it) and adds ops: the whole arena would grow, so nothing is written and the message
// gives the candidate's head and tail against the original's.
TEST(SplitCli, NeverWritesALargerModelUnlessForced) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto out = std::filesystem::temp_directory_path() / "memplan_split_test_resnet8_0.tflite";
  std::filesystem::remove(out);
  const auto model = shared / "models/tinymlperf_resnet8_cifar10_int8.tflite";
  const std::string command = "split " + testing::Quote(model.string()) + " -o " +
                              testing::Quote(out.string()) + " -q --stage 0..0 --patches 2x2";
  for (const char* target : {"host64", "arm32"}) {
    const auto r = testing::RunMemplan(command + " --target " + target + " -f json");
    EXPECT_EQ(r.exit_code, 4) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["split"].template get<bool>());
    EXPECT_EQ(j["target"], target);
    EXPECT_GE(j["best_candidate"]["arena"].template get<double>(),
              j["before"]["arena"].template get<double>());
    EXPECT_NE(j["why"].template get<std::string>().find("(head "), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  const auto text = testing::RunMemplan(command);
  EXPECT_NE(text.out.find("against the original's"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--force"), std::string::npos) << text.out;
  const auto forced = testing::RunMemplan(command + " --force");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find("LARGER overall"), std::string::npos) << forced.out;
  EXPECT_TRUE(std::filesystem::exists(out));
  std::filesystem::remove(out);
}

// A model that already carries an offline plan (here: a split model) splits again.
TEST(SplitCli, SplitsAModelWithAnOfflinePlan) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto dir = std::filesystem::temp_directory_path();
  const auto once = dir / "memplan_split_test_once.tflite";
  const auto twice = dir / "memplan_split_test_twice.tflite";
  const auto model = shared / "models/tinymlperf_resnet8_cifar10_int8.tflite";
  ASSERT_EQ(testing::RunMemplan("split " + testing::Quote(model.string()) + " -o " +
                                testing::Quote(once.string()) + " -q")
                .exit_code,
            0);
  const auto r = testing::RunMemplan("split " + testing::Quote(once.string()) + " -o " +
                                     testing::Quote(twice.string()) +
                                     " -q -f json --stage 28..28 --patches 2x2 --force");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("arena_before"), std::string::npos) << r.out;
  std::filesystem::remove(once);
  std::filesystem::remove(twice);
}

// The figures of issue 28 for the two fast models: the written model's whole arena (what
// `memplan arena` gives for it) is below the original's as it is and as memplan embed plans
// it, on both targets, within 20 % extra MACs, and the model stays exact.
TEST(SplitCli, WholeArenaIsSmallerOnEveryTarget) {
  MEMPLAN_REQUIRE_SHARED(shared);
  for (const char* name : {"tinymlperf_resnet8_cifar10_int8", "person_detect_96_int8"}) {
    const auto model = shared / "models" / (std::string(name) + ".tflite");
    const auto out = std::filesystem::temp_directory_path() / "memplan_split_test_whole.tflite";
    const auto r = testing::RunMemplan("split " + testing::Quote(model.string()) + " -o " +
                                       testing::Quote(out.string()) + " -q -f json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["larger"].template get<bool>());
    EXPECT_TRUE(j["not_smaller_on"].empty()) << name;
    EXPECT_LE(j["macs_after"].template get<double>(),
              1.2 * j["macs_before"].template get<double>());
    for (const char* target : {"host64", "arm32"}) {
      const auto& t = j["targets"][target];
      const double after = t["after"]["arena"].template get<double>();
      EXPECT_LT(after, t["before"]["arena"].template get<double>()) << name << " " << target;
      EXPECT_LT(after, t["embedded"]["arena"].template get<double>()) << name << " " << target;
      // resnet8 (issue 28): 55,704 -> 43,984 B on host64, 54,360 -> 41,292 B on arm32.
      if (std::string(name) == "tinymlperf_resnet8_cifar10_int8")
        EXPECT_GE(t["before"]["arena"].template get<double>(), 1.2 * after) << target;
      const auto arena = testing::RunMemplan("arena " + testing::Quote(out.string()) + " -t " +
                                             target + " -f json");
      ASSERT_EQ(arena.exit_code, 0) << arena.err;
      const auto a = nlohmann::json::parse(arena.out);
      EXPECT_EQ(a["minimal_arena_bytes_micro_interpreter"].template get<double>(), after);
      EXPECT_EQ(a["head"].template get<double>(), t["after"]["head"].template get<double>());
      EXPECT_TRUE(a["unsupported_ops"].empty()) << name;
    }
    EXPECT_GT(ExpectSameOutputs(ReadFileBytes(model), ReadFileBytes(out), ""), 10u) << name;
    std::filesystem::remove(out);
  }
}

TEST(SplitCli, BadArgumentsAreUsageErrors) {
  MEMPLAN_REQUIRE_SHARED(shared);
  const auto model = testing::Quote((shared / "models/person_detect_96_int8.tflite").string());
  EXPECT_EQ(testing::RunMemplan("split " + model + " -o /tmp/x.tflite --patches 3by3").exit_code,
            2);
  EXPECT_EQ(testing::RunMemplan("split " + model + " -o /tmp/x.tflite --stage 5..2").exit_code, 2);
  EXPECT_EQ(testing::RunMemplan("split " + model + " -o " + model).exit_code, 2);
  EXPECT_EQ(testing::RunMemplan("split " + model + " -o /tmp/x.tflite --target z80").exit_code, 2);
}

}  // namespace
}  // namespace memplan
