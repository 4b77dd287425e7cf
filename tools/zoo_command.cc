// memplan zoo: lists the built-in inputs usable as zoo:NAME, with what planning them
// involves (operators, planned tensors in the default accounting).
#include <fmt/format.h>

#include "memplan/table.h"
#include "memplan/workload.h"
#include "tools/commands.h"

namespace memplan::cli {

void AddZooCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("zoo", "List the built-in models and examples (zoo:NAME)");
  cmd->callback([] {
    std::vector<std::vector<std::string>> rows;
    for (const ZooEntry& e : ZooEntries()) {
      const Workload w = LoadWorkload("zoo:" + e.name);
      rows.push_back({"zoo:" + e.name, w.kind == "zoo" ? "model" : "records",
                      w.graph ? std::to_string(w.ops) : "-", std::to_string(w.problem.size()),
                      e.open_dimension.empty()
                          ? e.description
                          : fmt::format("{} (--dim {}=N)", e.description, e.open_dimension)});
    }
    fmt::print("{}",
               RenderTable({{"input"}, {"kind"}, {"ops", true}, {"tensors", true}, {"description"}},
                           rows));
  });
}

}  // namespace memplan::cli
