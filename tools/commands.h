#pragma once
// One function per subcommand: each adds itself to the app and runs when chosen.
#include <CLI/CLI.hpp>

namespace memplan::cli {

// Thrown by a command that finished on purpose without writing its output (split: no
// smaller model), after it said why; main() exits with kExitNothingWritten.
struct NothingWritten {};
inline constexpr int kExitNothingWritten = 4;

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
