#include "src/graph/unsized_tensors.h"

#include <fmt/format.h>

#include <algorithm>

#include "memplan/remedy.h"

namespace memplan {

namespace {

// Tensors listed one by one; the rest are counted.
constexpr std::size_t kListed = 8;

std::string DimsText(const std::vector<std::int64_t>& shape) {
  // Appended piece by piece: gcc 12 at -O3 reports a false -Wrestrict on the temporary that
  // `"x" + std::string` would build.
  std::string out;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += 'x';
    out += shape[i] < 0 ? std::string("N") : std::to_string(shape[i]);
  }
  return out;
}

}  // namespace

void ThrowUnsizedTensors(const Graph& graph, const std::vector<TensorRef>& tensors) {
  std::string list, shapes;
  std::vector<Remedy> remedies;
  bool batch_only = true, guessed = false, placeholders = false;
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const TensorRef ref = tensors[k];
    const Tensor& t = graph.subgraphs[static_cast<std::size_t>(ref.subgraph)]
                          .tensors[static_cast<std::size_t>(ref.tensor)];
    const std::string name = t.name.empty() ? fmt::format("#{}", ref.tensor) : t.name;
    if (k < kListed) {
      list += fmt::format(
          "{}'{}' ({}tensor {}, {}{}{})", k ? ", " : "", name,
          graph.subgraphs.size() > 1 ? fmt::format("subgraph {}, ", ref.subgraph) : "", ref.tensor,
          DataTypeName(t.type), t.why_unsized.empty() ? "" : ": ", t.why_unsized);
    }
    // A leading -1 alone is a batch dimension, bound by giving the dimension batch a size.
    const bool leading_batch =
        !t.shape.empty() && t.shape[0] < 0 &&
        std::all_of(t.shape.begin() + 1, t.shape.end(), [](std::int64_t d) { return d >= 0; });
    if (!leading_batch || !t.likely_shape.empty()) batch_only = false;
    if (k >= kListed) continue;
    std::string dims;
    if (!t.likely_shape.empty()) {
      dims = DimsText(t.likely_shape);
      guessed = true;
    } else if (!leading_batch) {
      dims = t.shape.empty() ? "D1xD2" : DimsText(t.shape);
      placeholders = true;
    } else {
      continue;
    }
    shapes += fmt::format("{}'{}' {}", shapes.empty() ? "" : ", ", t.name, dims);
    remedies.push_back({Remedy::Kind::kBindShape, t.name, dims});
  }
  if (tensors.size() > kListed) {
    list += fmt::format(" and {} more", tensors.size() - kListed);
    shapes += ", ...";
  }
  std::string bind;
  if (batch_only) {
    bind = "bind the batch dimension (batch=N, e.g. batch=1)";
    remedies = {{Remedy::Kind::kBindDimension, "batch", "N"}};
  } else {
    const bool open_batch = std::any_of(tensors.begin(), tensors.end(), [&](TensorRef r) {
      const Tensor& t = graph.subgraphs[static_cast<std::size_t>(r.subgraph)]
                            .tensors[static_cast<std::size_t>(r.tensor)];
      return t.likely_shape.empty() && !t.shape.empty() && t.shape[0] < 0;
    });
    bind = fmt::format("give them shapes: {}{}", shapes,
                       open_batch ? " (or the batch dimension a size for a leading -1)" : "");
    if (open_batch) remedies.push_back({Remedy::Kind::kBindDimension, "batch", "N"});
    if (placeholders) bind += " (replace N and D1xD2 with the real sizes)";
    if (guessed) bind += " (sizes read from the ops' options; check them)";
  }
  throw InputErrorWithRemedies(
      fmt::format("{}: {} tensor{} need{} memory but {} no static size: {}; {}",
                  graph.source.empty() ? "graph" : graph.source, tensors.size(),
                  tensors.size() == 1 ? "" : "s", tensors.size() == 1 ? "s" : "",
                  tensors.size() == 1 ? "has" : "have", list, bind),
      std::move(remedies));
}

}  // namespace memplan
