// memplan rules [SET]: the in-place rule sets, one op per line with why it is safe.
#include <fmt/format.h>

#include <algorithm>

#include "memplan/inplace.h"
#include "memplan/table.h"
#include "tools/commands.h"

namespace memplan::cli {

namespace {

std::string Inputs(std::uint32_t mask) {
  if (mask == ~0u) return "any";
  std::string out;
  for (unsigned i = 0; i < 32; ++i)
    if (mask >> i & 1u) out += fmt::format("{}{}", out.empty() ? "" : ",", i);
  return out;
}

void PrintSet(const InPlaceRuleSet& set) {
  fmt::print("{}: {}\n", set.name, set.summary);
  if (set.single_consumer)
    fmt::print("  overwrites need an input read by one op in the whole graph (TensorFlow Lite)\n");
  if (set.empty()) return;
  std::vector<std::vector<std::string>> rows;
  for (const InPlaceRule& r : set.rules)
    rows.push_back(
        {r.op, r.kind == ShareKind::kAlias ? "alias" : "overwrite", Inputs(r.inputs), r.why});
  fmt::print("{}", RenderTable({{"op"}, {"kind"}, {"inputs"}, {"why it is safe"}}, rows));
}

}  // namespace

void AddRulesCommand(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "rules", "List the in-place rule sets of plan --inplace (none, tflite, tflm, all)");
  cmd->add_option("set", *name, "one rule set to list (default: all of them)")
      ->check(CLI::IsMember({"none", "tflite", "tflm", "all"}));
  cmd->callback([name] {
    fmt::print(
        "Every set: only an op's first output shares; equal byte sizes over 4 bytes; never a "
        "graph input or output, constant or variable; an overwrite needs the op to be the last "
        "reader of the input and of every tensor aliased to it.\n");
    for (const InPlaceRuleSet& set : InPlaceRuleSets())
      if (name->empty() || set.name == *name) {
        fmt::print("\n");
        PrintSet(set);
      }
  });
}

}  // namespace memplan::cli
