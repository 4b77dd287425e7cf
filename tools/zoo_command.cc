// memplan zoo: lists the built-in inputs usable as zoo:NAME.
#include <fmt/format.h>

#include "memplan/table.h"
#include "memplan/workload.h"
#include "tools/commands.h"

namespace memplan::cli {

void AddZooCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("zoo", "List the built-in models and examples (zoo:NAME)");
  cmd->callback([] {
    std::vector<std::vector<std::string>> rows;
    for (const ZooEntry& e : ZooEntries()) rows.push_back({"zoo:" + e.name, e.description});
    fmt::print("{}", RenderTable({{"input"}, {"description"}}, rows));
  });
}

}  // namespace memplan::cli
