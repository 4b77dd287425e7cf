// memplan: plans the memory of tensors for neural-network inference.
// Exit codes: 0 success, 1 bad input, 2 bad usage, 3 internal error (a bug), 4 nothing
// written on purpose (split: no rewrite makes the model smaller).
#include <fmt/format.h>

#include <cstdio>

#include "memplan/error.h"
#include "tools/commands.h"
#include "tools/model_options.h"

int main(int argc, char** argv) {
  CLI::App app{"memplan: plan, check and explain the memory of neural-network tensors"};
  app.set_version_flag("--version", std::string("memplan ") + MEMPLAN_VERSION);
  app.require_subcommand(1);
  memplan::cli::AddPlanCommand(app);
  memplan::cli::AddZooCommand(app);
  memplan::cli::AddShowCommand(app);
  memplan::cli::AddVerifyCommand(app);
  memplan::cli::AddRulesCommand(app);
  memplan::cli::AddInspectCommand(app);
  memplan::cli::AddRunCommand(app);
  memplan::cli::AddArenaCommand(app);
  memplan::cli::AddEmbedCommand(app);
  memplan::cli::AddSplitCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // One line, naming the subcommand whose help says more.
    const auto chosen = app.get_subcommands();
    fmt::print(stderr, "memplan: {}; see memplan {}--help\n", e.what(),
               chosen.empty() ? "" : chosen.front()->get_name() + " ");
    return 2;
  } catch (const memplan::cli::NothingWritten&) {
    return memplan::cli::kExitNothingWritten;
  } catch (const memplan::UsageError& e) {
    fmt::print(stderr, "memplan: {}\n", memplan::cli::MessageWithFlags(e));
    return 2;
  } catch (const memplan::InputError& e) {
    fmt::print(stderr, "memplan: {}\n", memplan::cli::MessageWithFlags(e));
    return 1;
  } catch (const memplan::InternalError& e) {
    fmt::print(stderr, "memplan: internal error (please report): {}\n", e.what());
    return 3;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "memplan: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "memplan: internal error (please report): {}\n", e.what());
    return 3;
  }
  return 0;
}
