#include "tests/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace memplan::testing {

std::optional<std::filesystem::path> SharedDir() {
  if (const char* env = std::getenv("MEMPLAN_SHARED_DIR")) {
    if (std::filesystem::is_directory(env)) return std::filesystem::path(env);
  }
  std::filesystem::path dir = MEMPLAN_SHARED_DIR;
  if (std::filesystem::is_directory(dir / "conformance")) return std::filesystem::canonical(dir);
  return std::nullopt;
}

nlohmann::json ReadJsonFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return nlohmann::json::parse(in);
}

Problem RandomProblem(std::uint64_t seed, const RandomProblemOptions& o) {
  std::mt19937_64 rng(seed);
  Problem p;
  p.alignment = o.alignment;
  std::uniform_int_distribution<Step> step(0, o.steps - 1);
  std::uniform_int_distribution<Bytes> size(1, o.max_size);
  std::uniform_real_distribution<double> unit(0, 1);
  for (std::size_t i = 0; i < o.records; ++i) {
    Step a = step(rng), b = step(rng);
    if (a > b) std::swap(a, b);
    // Mostly short lifetimes, as in real networks.
    if (unit(rng) < 0.7) b = std::min<Step>(a + static_cast<Step>(unit(rng) * 4), o.steps - 1);
    p.records.push_back({unit(rng) < o.zero_fraction ? 0 : size(rng), a, b});
  }
  if (o.fixed_fraction > 0) {
    // Fixed records are stacked by a naive layout of their own, so they never overlap.
    p.fixed_offsets.assign(p.records.size(), std::nullopt);
    Bytes next = 0;
    for (std::size_t i = 0; i < p.records.size(); ++i) {
      if (unit(rng) >= o.fixed_fraction) continue;
      next = AlignUp(next, o.alignment);
      p.fixed_offsets[i] = next;
      next += p.records[i].size;
    }
  }
  return p;
}

Problem ProblemFromJson(const nlohmann::json& records) {
  Problem p;
  for (const auto& r : records)
    p.records.push_back({r[0].get<Bytes>(), r[1].get<Step>(), r[2].get<Step>()});
  return p;
}

namespace {

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::filesystem::path TempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info ? std::string(info->test_suite_name()) + "_" + info->name() : "memplan";
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  auto dir = std::filesystem::temp_directory_path() /
             ("memplan_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string Quote(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

std::filesystem::path WriteFile(const std::filesystem::path& dir, const std::string& name,
                                const std::string& bytes) {
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::vector<std::string> FilesIn(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

CommandResult RunMemplan(const std::string& args) {
  static int runs = 0;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("memplan_run_" + std::to_string(::getpid()) + "_" + std::to_string(runs++));
  std::filesystem::create_directories(dir);
  const auto out = dir / "stdout", err = dir / "stderr";
  const std::string command = std::string("'") + MEMPLAN_BINARY + "' " + args + " >'" +
                              out.string() + "' 2>'" + err.string() + "' </dev/null";
  const int status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(out);
  r.err = Slurp(err);
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace memplan::testing
