// A model as C++ source (include/memplan/cc_source.h) and `memplan embed -o NAME.cc`.
// tests/cc_source_test.sh compiles the output for every shared model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "memplan/cc_source.h"
#include "memplan/error.h"
#include "memplan/records_io.h"
#include "memplan/tflite.h"
#include "tests/graph_builder.h"
#include "tests/test_support.h"

namespace memplan {
namespace {

// A small float model TFLM's reference kernels run (the shared chain's convolution is hybrid,
// which they refuse): RELU, RELU, ADD.
Graph AcceptedChain() {
  testing::GraphBuilder b;
  const auto in = b.Typed("in", DataType::kFloat32, {1, 8, 8, 4});
  const auto a = b.Typed("a", DataType::kFloat32, {1, 8, 8, 4});
  const auto c = b.Typed("b", DataType::kFloat32, {1, 8, 8, 4});
  const auto out = b.Typed("out", DataType::kFloat32, {1, 8, 8, 4});
  b.Inputs({in}).Outputs({out});
  b.Op("RELU", {in}, {a}).Op("RELU", {a}, {c}).Op("ADD", {a, c}, {out});
  return b.Build();
}

using testing::FilesIn;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Quote;
using testing::RunMemplan;
using testing::WriteFile;

TEST(CcIdentifier, TakesCIdentifiersOnly) {
  for (const char* good : {"person_detect", "Model2", "kws_int8", "a"})
    EXPECT_EQ(CcIdentifierProblem(good), "") << good;
  for (const char* bad : {"", "2model", "my-model", "a.b", "_model", "my__model", "int",
                          "namespace", "std", "and", "tflite", "caf\xc3\xa9"})
    EXPECT_NE(CcIdentifierProblem(bad), "") << bad;
  EXPECT_THAT(CcIdentifierProblem("my-model"), HasSubstr("not a C identifier"));
  EXPECT_THAT(CcIdentifierProblem("class"), HasSubstr("keyword"));
}

TEST(CcIdentifier, MadeFromAFileName) {
  EXPECT_EQ(CcIdentifierFromFileName("../shared/models/person_detect_96_int8.tflite"),
            "person_detect_96_int8");
  EXPECT_EQ(CcIdentifierFromFileName("mobilenet_v1_0.25_128_quant.tflite"),
            "mobilenet_v1_0_25_128_quant");
  EXPECT_EQ(CcIdentifierFromFileName("3d-net.tflite"), "model_3d_net");
  EXPECT_EQ(CcIdentifierFromFileName("int.tflite"), "model_int");
  EXPECT_EQ(CcIdentifierFromFileName("__x--y__.tflite"), "x_y");
  EXPECT_EQ(CcIdentifierFromFileName("---.tflite"), "model");
  for (const char* file : {"a b.tflite", "é.tflite", "x/.tflite", "std.tflite"})
    EXPECT_EQ(CcIdentifierProblem(CcIdentifierFromFileName(file)), "") << file;
}

// Four bytes that stand for a model; CcModelSource only views its model, so the bytes live here.
const std::string kTinyModel = "TFL3";

CcModelSource Sample(const std::string& bytes) {
  CcModelSource s;
  s.name = "kws";
  s.header_file = "kws.h";
  s.model = bytes;
  s.arena.target = TflmTargetNamed("arm32");
  s.arena.minimal_arena_plain = 1608;
  s.arena.two_buffer_persistent = 1008;  // accepted, with an unchecked array refused
  s.arena.two_buffer_persistent_safe = 1104;
  s.arena.two_buffer_non_persistent = 688;
  s.kernels = "reference";
  s.generator = "memplan 9.9.9";
  s.how = {"memplan embed kws.tflite -o kws.cc"};
  return s;
}

TEST(CcModelSource, HeaderDeclaresTheModelAndItsSizes) {
  const std::string bytes = std::string("\x1c\x00\x00\x00TFL3", 8) + std::string(9, '\xff');
  const CcModelFiles f = WriteCcModelSource(Sample(bytes));
  EXPECT_THAT(f.header, HasSubstr("#ifndef MEMPLAN_MODEL_kws_H\n#define MEMPLAN_MODEL_kws_H\n"));
  EXPECT_THAT(f.header, HasSubstr("namespace kws {\n"));
  EXPECT_THAT(f.header, HasSubstr("alignas(16) extern const unsigned char kModel[];\n"));
  EXPECT_THAT(f.header, HasSubstr("constexpr std::size_t kModelSize = 17;\n"));
  EXPECT_THAT(f.header, HasSubstr("constexpr std::size_t kTensorArenaSize = 1608;\n"));
  EXPECT_THAT(f.header, HasSubstr("constexpr std::size_t kPersistentArenaSize = 1104;\n"));
  EXPECT_THAT(f.header, HasSubstr("constexpr std::size_t kNonPersistentArenaSize = 688;\n"));
  EXPECT_THAT(f.header, HasSubstr(std::string(kTflmCommit)));
  EXPECT_THAT(f.header, HasSubstr("memplan 9.9.9"));
  EXPECT_THAT(f.header, HasSubstr("on target arm32, the arena"));
  EXPECT_THAT(f.header, HasSubstr("They are exact"));
  EXPECT_THAT(f.header, Not(HasSubstr("LOWER BOUND")));
  EXPECT_THAT(f.source, HasSubstr("#include \"kws.h\"\n"));
  EXPECT_THAT(f.source, HasSubstr("alignas(16) const unsigned char kModel[] = {\n"
                                  "  0x1c, 0x00, 0x00, 0x00, 0x54, 0x46, 0x4c, 0x33, 0xff, "
                                  "0xff, 0xff, 0xff,\n  0xff, 0xff, 0xff, 0xff, 0xff,\n};\n"));
}

TEST(CcModelSource, LowerBoundsSaidOnEachConstantsLine) {
  CcModelSource s = Sample(kTinyModel);
  s.arena.unmodelled.push_back({0, 3, "MY_CUSTOM_OP", "a custom op"});
  const CcModelFiles f = WriteCcModelSource(s);
  std::size_t constants = 0;
  std::size_t start = 0;
  while ((start = f.header.find("constexpr std::size_t k", start)) != std::string::npos) {
    const std::string line = f.header.substr(start, f.header.find('\n', start) - start);
    start += line.size();
    if (line.find("ArenaSize") == std::string::npos) continue;
    ++constants;
    EXPECT_THAT(line, HasSubstr("// LOWER BOUND"));
  }
  EXPECT_EQ(constants, 3u);
  EXPECT_THAT(f.header, HasSubstr("MY_CUSTOM_OP"));
  EXPECT_THAT(f.header, Not(HasSubstr("UNSUPPORTED")));
}

TEST(CcModelSource, NamesTheOpsTheKernelsRefuse) {
  CcModelSource s = Sample(kTinyModel);
  s.arena.unsupported.push_back({0, 1, "DEQUANTIZE", "DEQUANTIZE from float16"});
  const CcModelFiles f = WriteCcModelSource(s);
  EXPECT_THAT(f.header, HasSubstr("// UNSUPPORTED by TFLM's reference kernels on arm32"));
  EXPECT_THAT(f.header, HasSubstr("DEQUANTIZE from float16"));
  EXPECT_THAT(f.header, HasSubstr("They are exact"));  // the sizes themselves are
}

TEST(CcModelSource, CommentsStayCommentsInEveryDialect) {
  CcModelSource s = Sample(kTinyModel);
  s.how = {"memplan embed a?\?/b.tflite -o c\\", "\xc3\xa9\n#error"};
  const CcModelFiles f = WriteCcModelSource(s);
  EXPECT_THAT(f.header, Not(HasSubstr("??")));
  EXPECT_THAT(f.header, Not(HasSubstr("\\")));
  EXPECT_THAT(f.header, Not(HasSubstr("\n#error")));
  EXPECT_TRUE(std::all_of(f.header.begin(), f.header.end(),
                          [](char c) { return c == '\n' || (c >= ' ' && c <= '~'); }));
}

TEST(CcModelSource, RefusesWhatCannotCompile) {
  CcModelSource s = Sample(kTinyModel);
  s.name = "2fast";
  EXPECT_THAT(testing::ErrorMessage<UsageError>([&] { WriteCcModelSource(s); }),
              HasSubstr("not a C identifier"));
  s = Sample(kTinyModel);
  s.header_file = "a\"b.h";
  EXPECT_THAT(testing::ErrorMessage<UsageError>([&] { WriteCcModelSource(s); }),
              HasSubstr("#include"));
}

// The array's bytes, read back from the source text.
std::string ArrayBytes(const std::string& source) {
  std::string out;
  std::size_t at = source.find("= {\n");
  while ((at = source.find("0x", at)) != std::string::npos) {
    out += static_cast<char>(std::stoi(source.substr(at + 2, 2), nullptr, 16));
    at += 4;
  }
  return out;
}

TEST(EmbedCc, WritesTheModelAndTheArenaOfTheWrittenModel) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "chain-1.tflite", WriteTflite(AcceptedChain()));
  const std::string before = ReadFileBytes(model);
  const auto plain = RunMemplan("embed " + Quote(model) + " -o " + Quote(dir / "x.tflite") + " -q");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto arena = RunMemplan("arena " + Quote(dir / "x.tflite") + " -t arm32 -f json");
  ASSERT_EQ(arena.exit_code, 0) << arena.err;
  const nlohmann::json figures = nlohmann::json::parse(arena.out);

  const auto r = RunMemplan("embed " + Quote(model) + " -o " + Quote(dir / "net.cc") +
                            " --target arm32 -q -f json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string header = ReadFileBytes(dir / "net.h");
  const std::string source = ReadFileBytes(dir / "net.cc");
  EXPECT_EQ(ArrayBytes(source), ReadFileBytes(dir / "x.tflite"));
  EXPECT_THAT(source, HasSubstr("#include \"net.h\""));
  EXPECT_THAT(header, HasSubstr("namespace chain_1 {"));  // from the model's name
  EXPECT_THAT(header, HasSubstr(fmt::format(
                          "kTensorArenaSize = {};",
                          figures["minimal_arena_bytes_micro_interpreter"].get<Bytes>())));
  EXPECT_THAT(header,
              HasSubstr(fmt::format("kPersistentArenaSize = {};",
                                    figures["two_buffers"]["persistent_safe"].get<Bytes>())));
  EXPECT_THAT(header,
              HasSubstr(fmt::format("kNonPersistentArenaSize = {};",
                                    figures["two_buffers"]["non_persistent"].get<Bytes>())));
  EXPECT_THAT(header, HasSubstr("memplan embed chain-1.tflite -o net.cc --name chain_1"));
  EXPECT_THAT(header, Not(HasSubstr(dir.string())));  // the same text wherever it is made
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["name"], "chain_1");
  EXPECT_EQ(j["tensor_arena_size"], figures["minimal_arena_bytes_micro_interpreter"]);
  EXPECT_EQ(ReadFileBytes(model), before);

  // --name and --emit; an existing pair is replaced, as embed replaces an existing model.
  WriteFile(dir, "other.h", "old");
  const auto named = RunMemplan("embed " + Quote(model) + " -o " + Quote(dir / "other.cpp") +
                                " --emit cc --name kws_v2 -t arm32 -q");
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_THAT(ReadFileBytes(dir / "other.h"), HasSubstr("namespace kws_v2 {"));
  EXPECT_THAT(ReadFileBytes(dir / "other.cpp"), HasSubstr("#include \"other.h\""));
  // The same text but for the names.
  std::string expected = source;
  for (std::size_t at; (at = expected.find("net.h")) != std::string::npos;)
    expected.replace(at, 5, "other.h");
  for (std::size_t at; (at = expected.find("chain_1")) != std::string::npos;)
    expected.replace(at, 7, "kws_v2");
  EXPECT_TRUE(ReadFileBytes(dir / "other.cpp") == expected);  // (too long to print)
}

TEST(EmbedCc, BadCallsWriteNothing) {
  const auto dir = testing::TempDir();
  const auto model = WriteFile(dir, "chain.tflite", WriteTflite(AcceptedChain()));
  const std::string before = ReadFileBytes(model);
  std::filesystem::create_directory(dir / "taken.h");
  const auto files = FilesIn(dir);
  struct Case {
    std::string args;
    int code;
    std::string message;
  };
  const std::string out = " -o " + Quote(dir / "m.cc");
  const std::vector<Case> cases = {
      {out + " --name 2fast", 2, "not a C identifier"},
      {out + " --name my-model", 2, "--name my-model"},
      {out + " --name int", 2, "keyword"},
      {" -o " + Quote(dir / "m.tflite") + " --emit cc", 2, "NAME.cc"},
      {out + " --emit tflite", 2, "C++ source file"},
      {" -o " + Quote(dir / "m.tflite") + " --name kws", 2, "a name is for C++ source"},
      {out + " --target avr8", 2, "--target"},
      {out + " --kernels fastest", 2, "--kernels"},
      {" -o " + Quote(dir / "no" / "such" / "m.cc"), 1, "no directory"},
      {" -o " + Quote(dir / "taken.cc"), 1, "taken.h: cannot write: it is a directory"},
      {" -o " + Quote(dir / "chain.cc"), 0, ""},  // the control: this one writes
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const auto r = RunMemplan("embed " + Quote(model) + c.args + " -q");
    EXPECT_EQ(r.exit_code, c.code) << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
    if (c.code != 0) EXPECT_EQ(FilesIn(dir), files);
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "chain.h"));
  EXPECT_EQ(ReadFileBytes(model), before);
}

}  // namespace
}  // namespace memplan
