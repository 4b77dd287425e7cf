// Reading a split model back: its patch groups from the names the rewrite gives.
#include <regex>

#include "memplan/split.h"

namespace memplan {

namespace {

// "split:r<R>c<C>:" or "split:r<R>:" (a row of patches) at the start of a name.
const std::regex& PatchPattern() {
  static const std::regex pattern(R"(^split:r([0-9]{1,6})(c([0-9]{1,6}))?:)");
  return pattern;
}

}  // namespace

std::string PatchGroupOf(std::string_view tensor_name) {
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(tensor_name.begin(), tensor_name.end(), m, PatchPattern())) return {};
  std::string group = m[0].str();
  group.pop_back();  // the trailing ':'
  return group;
}

std::optional<SplitLayout> DescribeSplit(const Graph& graph) {
  if (graph.subgraphs.empty()) return std::nullopt;
  const Subgraph& sg = graph.subgraphs[0];
  SplitLayout layout;
  std::vector<bool> patch(sg.tensors.size(), false);
  for (std::size_t t = 0; t < sg.tensors.size(); ++t) {
    std::smatch m;
    if (!std::regex_search(sg.tensors[t].name, m, PatchPattern())) continue;
    patch[t] = true;
    ++layout.tensors;
    layout.rows = std::max(layout.rows, std::stoi(m[1]) + 1);
    if (m[3].matched) layout.cols = std::max(layout.cols, std::stoi(m[3]) + 1);
  }
  if (layout.tensors == 0) return std::nullopt;
  bool seen = false;
  for (std::size_t i = 0; i < sg.ops.size(); ++i) {
    bool touches = false;
    for (const auto t : sg.ops[i].inputs)
      touches = touches || (t >= 0 && static_cast<std::size_t>(t) < patch.size() && patch[t]);
    for (const auto t : sg.ops[i].outputs)
      touches = touches || (t >= 0 && static_cast<std::size_t>(t) < patch.size() && patch[t]);
    if (!touches) continue;
    if (!seen) layout.first_op = static_cast<int>(i);
    layout.last_op = static_cast<int>(i);
    seen = true;
  }
  return layout;
}

}  // namespace memplan
