#pragma once
// Helpers shared by the tests: the shared/ folder (tests skip without it), seeded
// random problems, and running the built command.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan::testing {

// ../shared beside the checkout, or nullopt when it is not there.
std::optional<std::filesystem::path> SharedDir();

// Skips the current test with a clear message when ../shared is missing.
#define MEMPLAN_REQUIRE_SHARED(var)                                   \
  const auto var##_opt = ::memplan::testing::SharedDir();             \
  if (!var##_opt)                                                     \
    GTEST_SKIP() << "shared/ folder not found at " MEMPLAN_SHARED_DIR \
                 << " (models and conformance data); skipping";       \
  const std::filesystem::path var = *var##_opt

nlohmann::json ReadJsonFile(const std::filesystem::path& path);

// Whether this build runs under AddressSanitizer. The largest scale tests run only in the
// normal build: under the sanitizers they take minutes and reach no code that their
// smaller versions miss.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

struct RandomProblemOptions {
  std::size_t records = 50;
  Step steps = 40;
  Bytes max_size = 1000;
  Bytes alignment = 1;
  double fixed_fraction = 0.0;  // share of records with a fixed offset
  double zero_fraction = 0.05;  // share of zero-size records
};

// A seeded random problem; fixed offsets (if any) are made non-overlapping among
// conflicting fixed records so the problem is feasible.
Problem RandomProblem(std::uint64_t seed, const RandomProblemOptions& options);

// Problem from conformance "records" [[size, first, last], ...].
Problem ProblemFromJson(const nlohmann::json& records);

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the built memplan with the given argument string (shell-quoted by the caller).
CommandResult RunMemplan(const std::string& args);

// The message of the `Error` that `f` throws, or "(no <kind> thrown)" when it throws
// none, so a test that looks for words in the message fails.
template <typename Error, typename F>
std::string ErrorMessage(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no expected exception thrown)";
}

// A fresh empty temporary directory for one test.
std::filesystem::path TempDir();

// `path` in single quotes, for the argument string of RunMemplan.
std::string Quote(const std::filesystem::path& path);

// Writes `bytes` to dir/name (binary) and returns that path.
std::filesystem::path WriteFile(const std::filesystem::path& dir, const std::string& name,
                                const std::string& bytes);

// The names of the entries in `dir`, sorted (to check that a refused call wrote nothing).
std::vector<std::string> FilesIn(const std::filesystem::path& dir);

}  // namespace memplan::testing
