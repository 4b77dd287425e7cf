// Vela's scratch areas: which offline-placed tensors of an ethos-u op lie inside its scratch
// tensor (include/memplan/vela.h). Facts from Vela's writer and TFLM's ethos-u kernel are in
// docs/tflm.md.
#include "memplan/vela.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

namespace memplan {

namespace {

// The ethos-u op's inputs: command stream, weights, scratch, fast scratch, feature maps.
constexpr std::size_t kScratchInput = 2;
constexpr std::size_t kFastScratchInput = 3;
constexpr std::size_t kFirstFeatureMapInput = 4;

// A tensor's bytes as the offline plan places it, when it has an offset and a size.
struct Placed {
  Bytes begin = 0, end = 0;
};

std::optional<Placed> PlacedBytes(const Graph& graph, std::size_t first_flat, const Subgraph& sg,
                                  std::int32_t t) {
  if (t < 0 || static_cast<std::size_t>(t) >= sg.tensors.size()) return std::nullopt;
  const std::size_t flat = first_flat + static_cast<std::size_t>(t);
  if (flat >= graph.fixed_offsets.size() || graph.fixed_offsets[flat] < 0) return std::nullopt;
  const Tensor& tensor = sg.tensors[static_cast<std::size_t>(t)];
  if (!tensor.bytes || tensor.is_constant) return std::nullopt;
  const auto begin = static_cast<Bytes>(graph.fixed_offsets[flat]);
  return Placed{begin, begin + *tensor.bytes};
}

}  // namespace

std::vector<VelaScratchArea> VelaScratchAreas(const Graph& graph) {
  std::vector<VelaScratchArea> areas;
  if (graph.fixed_offsets.empty()) return areas;
  std::size_t first_flat = 0;
  for (std::size_t s = 0; s < graph.subgraphs.size(); ++s) {
    const Subgraph& sg = graph.subgraphs[s];
    for (std::size_t i = 0; i < sg.ops.size(); ++i) {
      const Operator& op = sg.ops[i];
      if (op.type != kEthosUOp || op.inputs.size() <= kScratchInput) continue;
      const auto scratch = PlacedBytes(graph, first_flat, sg, op.inputs[kScratchInput]);
      if (!scratch) continue;
      VelaScratchArea area{static_cast<std::int32_t>(s),
                           static_cast<std::int32_t>(i),
                           TensorRef{static_cast<std::int32_t>(s), op.inputs[kScratchInput]},
                           scratch->begin,
                           scratch->end,
                           {}};
      const auto add = [&](std::int32_t t) {
        if (t == area.scratch.tensor) return;
        for (const TensorRef& r : area.inside)
          if (r.tensor == t) return;
        area.inside.push_back({area.scratch.subgraph, t});
      };
      if (op.inputs.size() > kFastScratchInput) {
        const auto fast = PlacedBytes(graph, first_flat, sg, op.inputs[kFastScratchInput]);
        if (fast && fast->begin == scratch->begin) add(op.inputs[kFastScratchInput]);
      }
      std::vector<std::int32_t> maps(
          op.inputs.begin() +
              static_cast<std::ptrdiff_t>(std::min(op.inputs.size(), kFirstFeatureMapInput)),
          op.inputs.end());
      maps.insert(maps.end(), op.outputs.begin(), op.outputs.end());
      for (const std::int32_t t : maps) {
        const auto placed = PlacedBytes(graph, first_flat, sg, t);
        if (placed && placed->begin >= scratch->begin && placed->end <= scratch->end) add(t);
      }
      areas.push_back(std::move(area));
    }
    first_flat += sg.tensors.size();
  }
  return areas;
}

std::string VelaScratchText(const Graph& graph, const VelaScratchArea& area) {
  std::size_t first_flat = 0;
  for (std::int32_t s = 0; s < area.subgraph; ++s)
    first_flat += graph.subgraphs[static_cast<std::size_t>(s)].tensors.size();
  const Subgraph& sg = graph.subgraphs[static_cast<std::size_t>(area.subgraph)];
  const auto range = [&](std::int32_t t) {
    const Tensor& tensor = sg.tensors[static_cast<std::size_t>(t)];
    const auto begin =
        static_cast<Bytes>(graph.fixed_offsets[first_flat + static_cast<std::size_t>(t)]);
    return fmt::format("'{}' [{}, {})", tensor.name, begin, begin + tensor.bytes.value_or(0));
  };
  std::vector<std::string> members;
  for (const TensorRef& r : area.inside) members.push_back(range(r.tensor));
  const std::string where = fmt::format("the scratch area {} of ethos-u op {} (subgraph {})",
                                        range(area.scratch.tensor), area.op, area.subgraph);
  if (members.empty()) return fmt::format("nothing else lives inside {}", where);
  return fmt::format(
      "{} {} inside {}, where Vela placed {} on purpose: the NPU addresses {} inside it",
      fmt::join(members, members.size() == 2 ? " and " : ", "),
      members.size() == 1 ? "lives" : "live", where, members.size() == 1 ? "it" : "them",
      members.size() == 1 ? "it" : "them");
}

}  // namespace memplan
