// The live-bytes curve and the step axis under a memory map.
#include "src/report/svg_time_axis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "memplan/table.h"
#include "src/report/axis.h"
#include "src/report/xml_text.h"

namespace memplan::report {

namespace {

// Op names: 10px text rotated to read upwards; a column narrower than this shares its
// name slot with its neighbours.
constexpr double kOpSlot = 11, kOpCharWidth = 6.1;
constexpr std::size_t kOpChars = 18;
constexpr double kOpBand = kOpChars * kOpCharWidth + 8;

}  // namespace

Layout MakeLayout(Step steps, bool standalone, bool op_names) {
  Layout l;
  l.steps = static_cast<double>(std::max<Step>(steps, 1));
  if (!standalone) {
    // The page around it names the plan and states the totals.
    l.right = l.width - 16;
    l.map_top = 16;
  }
  if (op_names) {
    l.ops_top = l.curve_bottom + 24;
    l.height = l.ops_top + kOpBand + 26;
  } else {
    l.height = l.curve_bottom + 50;
  }
  return l;
}

void DrawLiveBytes(std::string& out, const Layout& l, const Problem& problem, Bytes lower_bound) {
  const auto changes = LiveBytesChanges(problem);
  Bytes peak = 0;
  for (const auto& [step, bytes] : changes) peak = std::max(peak, bytes);
  const double top = static_cast<double>(std::max({peak, lower_bound, Bytes{1}})) * 1.08;
  auto y = [&](double bytes) {
    return l.curve_bottom - bytes / top * (l.curve_bottom - l.curve_top);
  };
  out += fmt::format(
      "<g class=\"curve\"><rect class=\"curve-area\" x=\"{}\" y=\"{}\" width=\"{}\" "
      "height=\"{}\" fill=\"#f6f6f6\"/>\n",
      Coord(l.left), Coord(l.curve_top), Coord(l.right - l.left),
      Coord(l.curve_bottom - l.curve_top));
  // A step function: flat while the live bytes hold, vertical where they change.
  std::string path = fmt::format("M{} {}", Coord(l.left), Coord(l.curve_bottom));
  for (const auto& [step, bytes] : changes)
    path += fmt::format("H{}V{}", Coord(l.X(static_cast<double>(step))),
                        Coord(y(static_cast<double>(bytes))));
  path += fmt::format("H{}V{}Z", Coord(l.right), Coord(l.curve_bottom));
  out += fmt::format(
      "<path d=\"{}\" fill=\"#9ecae1\" stroke=\"#3b78a8\" stroke-width=\"1\" "
      "pointer-events=\"none\"/>\n",
      path);
  for (const Tick& t : ByteTicks(top, 3)) {
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#333\"/>"
        "<text x=\"{3}\" y=\"{4}\" class=\"axis\" text-anchor=\"end\">{5}</text>\n",
        Coord(l.left - 5), Coord(l.left), Coord(y(t.value)), Coord(l.left - 8),
        Coord(y(t.value) + 4), XmlEscape(t.label));
  }
  out += fmt::format(
      "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>"
      "<line x1=\"{0}\" x2=\"{3}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#333\"/>\n",
      Coord(l.left), Coord(l.curve_top), Coord(l.curve_bottom), Coord(l.right));
  if (lower_bound > 0) {
    const double by = y(static_cast<double>(lower_bound));
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#c62828\" "
        "stroke-width=\"1.4\" stroke-dasharray=\"7 4\" pointer-events=\"none\"/>\n"
        "<text x=\"{3}\" y=\"{4}\" class=\"halo\" font-size=\"11\" text-anchor=\"end\" "
        "fill=\"#c62828\">lower bound {5}</text>\n",
        Coord(l.left), Coord(l.right), Coord(by), Coord(l.right - 6), Coord(by - 4),
        XmlEscape(HumanBytes(lower_bound)));
    // Red bars where the curve touches the bound; intervals closer than half a pixel
    // merge, so a million steps still give a short list.
    std::vector<std::pair<double, double>> bars;
    for (std::size_t k = 0; k + 1 < changes.size(); ++k) {
      if (changes[k].second != lower_bound) continue;
      const double x0 = l.X(static_cast<double>(changes[k].first));
      const double x1 = l.X(static_cast<double>(changes[k + 1].first));
      if (!bars.empty() && x0 - bars.back().second < 0.5)
        bars.back().second = x1;
      else
        bars.emplace_back(x0, x1);
    }
    out += "<g class=\"peaks\" stroke=\"#c62828\" stroke-width=\"5\">";
    for (const auto& [x0, x1] : bars)
      out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", Coord(x0),
                         Coord(std::max(x1, x0 + 2)), Coord(l.curve_bottom + 2.5));
    out += "</g>\n";
  }
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" class=\"axis\" text-anchor=\"middle\" "
      "style=\"font-size:12px\" transform=\"rotate(-90 {0} {1})\">live bytes</text>\n</g>\n",
      Coord(16), Coord((l.curve_top + l.curve_bottom) / 2));
}

void DrawStepAxis(std::string& out, const Layout& l, const std::vector<StepLabel>& labels,
                  bool standalone) {
  out += "<g class=\"steps\">\n";
  const auto ticks = StepTicks(l.steps - 1, 10);
  // Step ticks sit in the middle of their column.
  for (const Tick& t : ticks)
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#333\"/>"
        "<text x=\"{0}\" y=\"{3}\" class=\"axis\" text-anchor=\"middle\">{4}</text>\n",
        Coord(l.X(t.value + 0.5)), Coord(l.curve_bottom), Coord(l.curve_bottom + 5),
        Coord(l.curve_bottom + 17), XmlEscape(t.label));
  const double title_y = l.height - 10;
  if (!labels.empty() && l.ops_top > 0) {
    const double column = (l.right - l.left) / l.steps;
    const auto every =
        static_cast<std::size_t>(std::max(1.0, std::ceil(kOpSlot / std::max(column, 1e-9))));
    out += "<g class=\"ops\">\n";
    const std::size_t n = std::min<std::size_t>(labels.size(), static_cast<std::size_t>(l.steps));
    for (std::size_t s = 0; s < n; s += every) {
      const double x = l.X(static_cast<double>(s) + 0.5) + 3.5;
      out += fmt::format(
          "<text x=\"{0}\" y=\"{1}\" class=\"op\" data-s=\"{2}\" text-anchor=\"end\" "
          "transform=\"rotate(-90 {0} {1})\">{3}",
          Coord(x), Coord(l.ops_top), s, XmlEscape(Ellipsize(labels[s].type, kOpChars)));
      if (standalone)
        out += fmt::format("<title>step {}: {}</title>", s, XmlEscape(labels[s].detail));
      out += "</text>\n";
    }
    out += "</g>\n";
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\" style=\"font-size:12px\">"
      "{}</text>\n</g>\n",
      Coord((l.left + l.right) / 2), Coord(title_y),
      labels.empty() ? "execution step" : "execution step and the op that runs at it");
}

}  // namespace memplan::report
