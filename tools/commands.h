#pragma once
// One function per subcommand: each adds itself to the app and runs when chosen.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <string_view>

#include "memplan/remedy.h"

namespace memplan::cli {

// Thrown by a command that finished on purpose without writing its output (split: no
// smaller model), after it said why; main() exits with kExitNothingWritten.
struct NothingWritten {};
inline constexpr int kExitNothingWritten = 4;

// Runs `work`, adding to a UsageError of the library (which names values, not flags) the
// flags that set those values: "... (--inplace, --reorder)".
template <typename Work>
decltype(auto) NamingFlags(std::string_view flags, Work&& work) {
  try {
    return work();
  } catch (const UsageError& e) {
    throw UsageErrorWithRemedies(fmt::format("{} ({})", e.what(), flags), RemediesOf(e));
  }
}

void AddPlanCommand(CLI::App& app);
void AddZooCommand(CLI::App& app);
void AddShowCommand(CLI::App& app);
void AddVerifyCommand(CLI::App& app);
void AddRulesCommand(CLI::App& app);
void AddInspectCommand(CLI::App& app);
void AddRunCommand(CLI::App& app);
void AddEmbedCommand(CLI::App& app);
void AddSplitCommand(CLI::App& app);
void AddArenaCommand(CLI::App& app);

}  // namespace memplan::cli
