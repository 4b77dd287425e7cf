// The ops of a model TFLM's reference kernels refuse, and those the model cannot size:
// said before any figure (include/memplan/tflm_target.h).
#include <fmt/format.h>

#include <algorithm>

#include "memplan/tflm_target.h"
#include "src/target/tflm_kernels.h"

namespace memplan {

TflmOpCheck CheckTflmOps(const Graph& graph, const TargetAbi& target) {
  TflmOpCheck out;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      const target::KernelMemory k = target::DescribeKernel(target, sg, sg.ops[i]);
      const TflmOpNote note{static_cast<std::int32_t>(s), static_cast<std::int32_t>(i),
                            sg.ops[i].type, ""};
      if (!k.unsupported.empty()) {
        out.unsupported.push_back(note);
        out.unsupported.back().why = k.unsupported;
      }
      if (!k.known) {
        out.unmodelled.push_back(note);
        out.unmodelled.back().why = "kernel memory not modelled";
      }
    }
  }
  return out;
}

std::vector<std::string> GroupTflmOpNotes(const std::vector<TflmOpNote>& notes) {
  // Groups in order of first appearance.
  std::vector<std::pair<std::string, std::vector<const TflmOpNote*>>> groups;
  for (const TflmOpNote& n : notes) {
    const std::string key = fmt::format("{}: {}", n.type, n.why);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.emplace_back(key, std::vector<const TflmOpNote*>{});
      it = groups.end() - 1;
    }
    it->second.push_back(&n);
  }
  std::vector<std::string> lines;
  for (const auto& [key, members] : groups) {
    std::string ops;
    constexpr std::size_t kShown = 8;
    for (std::size_t k = 0; k < members.size() && k < kShown; ++k)
      ops += fmt::format("{}{}{}", k ? ", " : "",
                         members[k]->subgraph ? fmt::format("{}:", members[k]->subgraph) : "",
                         members[k]->op);
    if (members.size() > kShown) ops += ", ...";
    lines.push_back(fmt::format("{} (op{} {}; {} in all)", key, members.size() > 1 ? "s" : "", ops,
                                members.size()));
  }
  return lines;
}

}  // namespace memplan
