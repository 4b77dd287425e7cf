// Draws a memory map: steps across, addresses up, a rectangle per tensor.
#include "src/report/svg_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/table.h"
#include "src/report/axis.h"
#include "src/report/palette.h"
#include "src/report/svg_layout.h"
#include "src/report/svg_time_axis.h"
#include "src/report/xml_text.h"

namespace memplan::report {

namespace {

// The summary panel right of the plot (standalone pictures), in SVG user units.
constexpr double kPanelLeft = 960, kPanelRight = 1188;
// Average advance of a character at the label size, to decide whether a label fits.
constexpr double kLabelFont = 10, kLabelCharWidth = 6.1;
constexpr std::size_t kMinLabelChars = 8;
// Rectangles smaller than this (either side) lose their outline: on dense maps the
// outlines would otherwise paint everything white.
constexpr double kOutlineMin = 4;
// The legend lists tensors one by one up to this many.
constexpr std::size_t kLegendRows = 20;

constexpr const char* kStyle =
    ".tensor{stroke:#fff;stroke-width:.75px}.tensor.bare{stroke:none}"
    ".label{font-size:10px;fill:#1b1b1b;text-anchor:middle}"
    ".halo{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}"
    ".axis{font-size:11px;fill:#333}.op{font-size:10px;fill:#333}.key{font-size:12px;fill:#555}"
    ".value{font-size:12px;fill:#111;text-anchor:end}.head{font-size:13px;font-weight:bold}";

// Lanes of an objects plan: a bar fills its lane up to this share of the lane's height
// when the record is as large as the object (the rest separates the lanes).
constexpr double kLaneFill = 0.84;
// Lane labels ("#3 · 1.5 MiB") need this much height each; thinner lanes share them.
constexpr double kLaneLabel = 12;

// "124 B" below 1 KiB, else "1.5 KiB (1,536 B)".
std::string Exact(Bytes bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  return fmt::format("{} ({} B)", HumanBytes(bytes), WithThousands(bytes));
}

class Drawing {
 public:
  Drawing(const Workload& workload, const MapPlan& plan, const MapTotals& totals,
          const SvgOptions& options)
      : w_(workload),
        problem_(workload.problem),
        plan_(plan),
        totals_(totals),
        options_(options),
        lanes_(!plan.object_sizes.empty()),
        step_labels_(StepLabels(workload)),
        l_(MakeLayout(totals.steps, options.standalone, !step_labels_.empty())) {
    const Bytes highest = std::max({plan.bytes, totals.lower_bound, Bytes{1}});
    top_ = static_cast<double>(highest) * 1.05;
  }

  std::string Render() {
    if (options_.standalone) out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out_ += fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
        "data-left=\"{2}\" data-right=\"{3}\" data-steps=\"{4}\" data-top=\"{5}\" "
        "data-bottom=\"{6}\">\n",
        Coord(l_.width), Coord(l_.height), Coord(l_.left), Coord(l_.right), Coord(l_.steps),
        Coord(l_.map_top), Coord(l_.curve_bottom));
    out_ += fmt::format("<style>{}</style>\n", kStyle);
    out_ += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#fff\"/>\n", Coord(l_.width),
                        Coord(l_.height));
    if (options_.standalone) Title();
    Grid();
    Bands();
    // The HTML page moves this band over the lifetime of the tensor a user searches for.
    if (!options_.standalone)
      out_ += fmt::format(
          "<rect class=\"life\" x=\"0\" width=\"0\" y=\"{}\" height=\"{}\" "
          "visibility=\"hidden\"/>\n",
          Coord(l_.map_top), Coord(l_.curve_bottom - l_.map_top));
    Tensors();
    Labels();
    if (lanes_)
      LaneAxis();
    else
      Lines(), Axes();
    DrawLiveBytes(out_, l_, problem_, totals_.lower_bound);
    DrawStepAxis(out_, l_, step_labels_, options_.standalone);
    if (options_.standalone) Panel();
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  std::size_t ColourKey(std::size_t i) const { return plan_.groups.empty() ? i : plan_.groups[i]; }

  void Text(double x, double y, const std::string& cls, const std::string& text,
            const std::string& extra = "") {
    out_ += fmt::format("<text x=\"{}\" y=\"{}\" class=\"{}\"{}>{}</text>\n", Coord(x), Coord(y),
                        cls, extra, XmlEscape(text));
  }

  void Title() {
    out_ += fmt::format(
        "<text x=\"20\" y=\"30\" font-size=\"18\" font-weight=\"bold\">Memory plan of {}</text>\n",
        XmlEscape(Ellipsize(w_.label, 70)));
    const std::string sub =
        lanes_ ? fmt::format(
                     "{}: {} shared objects, {} in all, lower bound {}, {} tensors over "
                     "{} steps",
                     plan_.key, plan_.object_sizes.size(), HumanBytes(plan_.bytes),
                     HumanBytes(totals_.lower_bound), problem_.size(), totals_.steps)
               : fmt::format("{}: arena {}, lower bound {}, {} tensors over {} steps", plan_.key,
                             HumanBytes(plan_.bytes), HumanBytes(totals_.lower_bound),
                             problem_.size(), totals_.steps);
    out_ += fmt::format("<text x=\"20\" y=\"52\" font-size=\"13\" fill=\"#444\">{}</text>\n",
                        XmlEscape(sub));
  }

  double Y(double bytes) const {
    return l_.map_bottom - bytes / top_ * (l_.map_bottom - l_.map_top);
  }
  double LaneHeight() const {
    return (l_.map_bottom - l_.map_top) / static_cast<double>(plan_.object_sizes.size());
  }

  void Grid() {
    out_ += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f6f6f6\"/>\n<g "
        "stroke=\"#e2e2e2\" stroke-width=\"1\">\n",
        Coord(l_.left), Coord(l_.map_top), Coord(l_.right - l_.left),
        Coord(l_.map_bottom - l_.map_top));
    if (lanes_) {
      // Every other lane shaded, so a bar reads as belonging to its lane.
      const double h = LaneHeight();
      for (std::size_t k = 1; k < plan_.object_sizes.size(); k += 2)
        out_ += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#e9edf2\" "
            "stroke=\"none\"/>\n",
            Coord(l_.left), Coord(l_.map_top + static_cast<double>(k) * h),
            Coord(l_.right - l_.left), Coord(h));
    } else {
      for (const Tick& t : ByteTicks(top_, 8))
        out_ += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n", Coord(l_.left),
                            Coord(l_.right), Coord(Y(t.value)), Coord(Y(t.value)));
    }
    // Step boundaries only while columns are wide enough to tell apart.
    if (l_.steps <= 60)
      for (double s = 1; s < l_.steps; ++s)
        out_ += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", Coord(l_.X(s)),
                            Coord(l_.map_top), Coord(l_.map_bottom));
    out_ += "</g>\n";
  }

  // Marked ranges of steps: a light band behind the tensors, its label along the top.
  void Bands() {
    for (const StepBand& b : w_.step_bands) {
      const double x0 = l_.X(static_cast<double>(b.first));
      const double x1 = l_.X(static_cast<double>(b.last + 1));
      out_ += fmt::format(
          "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"#fff0b3\" fill-opacity=\".55\" stroke=\"#d4a72c\" stroke-dasharray=\"4 3\"/>\n",
          Coord(x0), Coord(l_.map_top), Coord(x1 - x0), Coord(l_.map_bottom - l_.map_top));
      Text(x0 + 4, l_.map_top + 12, "label halo", b.label, " style=\"text-anchor:start\"");
    }
  }

  struct Box {
    double x, y, w, h;
  };
  // Offsets: the record's bytes at its offset. Lanes: a bar at the bottom of its
  // object's lane, as tall as the record's share of the object.
  Box BoxOf(std::size_t i) const {
    const UsageRecord& r = problem_.records[i];
    const double x0 = l_.X(static_cast<double>(r.first));
    const double x1 = l_.X(static_cast<double>(r.last + 1));
    if (lanes_) {
      const std::size_t k = plan_.groups[i];
      const double lane = LaneHeight();
      const double object = static_cast<double>(std::max<Bytes>(plan_.object_sizes[k], 1));
      const double share = std::min(1.0, static_cast<double>(r.size) / object);
      const double h = std::max(lane * kLaneFill * share, std::min(1.0, lane * kLaneFill));
      const double bottom = l_.map_top + static_cast<double>(k + 1) * lane - lane * 0.08;
      return {x0, bottom - h, x1 - x0, h};
    }
    const double off = static_cast<double>(plan_.offsets[i]);
    const double y1 = Y(off), y0 = Y(off + static_cast<double>(r.size));
    return {x0, y0, x1 - x0, y1 - y0};
  }

  std::string Tooltip(std::size_t i) const {
    const UsageRecord& r = problem_.records[i];
    std::string text =
        fmt::format("{}: {}, steps {}..{}", problem_.NameOf(i), Exact(r.size), r.first, r.last);
    if (lanes_)
      text += fmt::format(", object #{} ({})", plan_.groups[i],
                          HumanBytes(plan_.object_sizes[plan_.groups[i]]));
    else
      text += fmt::format(", offset {}", plan_.offsets[i]);
    if (options_.op_summaries && i < options_.op_summaries->size() &&
        !(*options_.op_summaries)[i].empty())
      text += "\n" + (*options_.op_summaries)[i];
    return text;
  }

  void Tensors() {
    // One id per document: the HTML page holds several maps.
    out_ +=
        options_.standalone ? "<g id=\"tensors\" class=\"tensors\">\n" : "<g class=\"tensors\">\n";
    for (std::size_t i = 0; i < problem_.size(); ++i) {
      if (problem_.records[i].size == 0) continue;
      const Box b = BoxOf(i);
      // Sub-pixel slivers stay in the picture (and in hover) as hairlines.
      const double h = std::max(b.h, 0.01);
      const bool bare = b.w < kOutlineMin || b.h < kOutlineMin;
      out_ += fmt::format(
          "<rect class=\"tensor{}\" data-i=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"",
          bare ? " bare" : "", i, Coord(b.x), Coord(b.y), Coord(b.w), Coord(h),
          FillColour(ColourKey(i)));
      if (options_.standalone)
        out_ += fmt::format("><title>{}</title></rect>\n", XmlEscape(Tooltip(i)));
      else
        out_ += "/>\n";
    }
    out_ += "</g>\n";
  }

  // Names (and sizes, where there is room) inside the rectangles they fit in.
  void Labels() {
    out_ += "<g pointer-events=\"none\">\n";
    for (std::size_t i = 0; i < problem_.size(); ++i) {
      if (problem_.records[i].size == 0) continue;
      const Box b = BoxOf(i);
      const std::string name = problem_.NameOf(i);
      // A name cut to a few letters says nothing; such rectangles keep only their tooltip.
      const std::size_t needed = std::min<std::size_t>(CodePoints(name), kMinLabelChars);
      auto chars = [](double room) {
        return static_cast<std::size_t>(std::max(0.0, (room - 4) / kLabelCharWidth));
      };
      const double cx = b.x + b.w / 2, cy = b.y + b.h / 2;
      const std::string of = fmt::format(" data-i=\"{}\"", i);  // the page highlights it too
      const std::size_t across = chars(b.w), up = chars(b.h);
      if (b.h >= kLabelFont + 2 && across >= needed) {
        const std::string size = HumanBytes(problem_.records[i].size);
        if (b.h >= 2 * kLabelFont + 6 && CodePoints(size) <= across) {
          Text(cx, cy - 2, "label", EllipsizeFront(name, across), of);
          Text(cx, cy + kLabelFont, "label", size, of);
        } else {
          Text(cx, cy + kLabelFont * 0.35, "label", EllipsizeFront(name, across), of);
        }
      } else if (b.w >= kLabelFont + 2 && up >= needed && up > across) {
        // Tall, narrow rectangles (short-lived large tensors) read bottom to top.
        Text(cx + kLabelFont * 0.35, cy, "label", EllipsizeFront(name, up),
             fmt::format("{} transform=\"rotate(-90 {} {})\"", of, Coord(cx + kLabelFont * 0.35),
                         Coord(cy)));
      }
    }
    out_ += "</g>\n";
  }

  void Lines() {
    const double arena_y = Y(static_cast<double>(plan_.bytes));
    const double bound_y = Y(static_cast<double>(totals_.lower_bound));
    out_ += fmt::format(
        "<g pointer-events=\"none\"><line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" "
        "stroke=\"#222\" stroke-width=\"1.3\"/>\n"
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{3}\" y2=\"{3}\" stroke=\"#c62828\" "
        "stroke-width=\"1.6\" stroke-dasharray=\"7 4\"/>\n",
        Coord(l_.left), Coord(l_.right), Coord(arena_y), Coord(bound_y));
    const std::string extra = " font-size=\"12\" text-anchor=\"end\"";
    const double x = l_.right - 6;
    if (plan_.bytes == totals_.lower_bound) {
      Text(x, arena_y - 5, "halo",
           fmt::format("arena = lower bound = {} (optimal)", HumanBytes(plan_.bytes)),
           extra + " fill=\"#c62828\"");
    } else {
      // The higher line's label goes above it, the lower one's below, so they never
      // collide however close the two lines are.
      const bool arena_higher = plan_.bytes > totals_.lower_bound;
      Text(x, arena_higher ? arena_y - 5 : arena_y + 14, "halo",
           fmt::format("arena {}", HumanBytes(plan_.bytes)), extra + " fill=\"#222\"");
      Text(x, arena_higher ? bound_y + 14 : bound_y - 5, "halo",
           fmt::format("lower bound {}", HumanBytes(totals_.lower_bound)),
           extra + " fill=\"#c62828\"");
    }
    out_ += "</g>\n";
    if (problem_.size() == totals_.empty)
      Text((l_.left + l_.right) / 2, (l_.map_top + l_.map_bottom) / 2, "axis",
           "no tensor takes memory", " text-anchor=\"middle\" style=\"font-size:14px\"");
  }

  void Axes() {
    out_ += fmt::format(
        "<g stroke=\"#333\" stroke-width=\"1\"><line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" "
        "y2=\"{2}\"/><line x1=\"{0}\" x2=\"{3}\" y1=\"{2}\" y2=\"{2}\"/>\n",
        Coord(l_.left), Coord(l_.map_top), Coord(l_.map_bottom), Coord(l_.right));
    const auto byte_ticks = ByteTicks(top_, 8);
    for (const Tick& t : byte_ticks)
      out_ += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", Coord(l_.left - 5),
                          Coord(l_.left), Coord(Y(t.value)));
    out_ += "\n</g>\n";
    for (const Tick& t : byte_ticks)
      Text(l_.left - 8, Y(t.value) + 4, "axis", t.label, " text-anchor=\"end\"");
    YTitle("offset in the arena");
  }

  void YTitle(const std::string& title) {
    const double mid = (l_.map_top + l_.map_bottom) / 2;
    Text(16, mid, "axis", title,
         fmt::format(
             " text-anchor=\"middle\" style=\"font-size:12px\" transform=\"rotate(-90 16 {})\"",
             Coord(mid)));
  }

  // Objects plans: "#k" and the object's size at the left of each lane (every m-th lane
  // when lanes are thinner than a label).
  void LaneAxis() {
    out_ += fmt::format(
        "<g stroke=\"#333\" stroke-width=\"1\"><line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" "
        "y2=\"{2}\"/><line x1=\"{0}\" x2=\"{3}\" y1=\"{2}\" y2=\"{2}\"/></g>\n",
        Coord(l_.left), Coord(l_.map_top), Coord(l_.map_bottom), Coord(l_.right));
    const double h = LaneHeight();
    const std::size_t objects = plan_.object_sizes.size();
    const auto every = static_cast<std::size_t>(std::max(1.0, std::ceil(2 * kLaneLabel / h)));
    const bool two_lines = h >= 2 * kLaneLabel + 2;
    for (std::size_t k = 0; k < objects; k += every) {
      const double mid = l_.map_top + (static_cast<double>(k) + 0.5) * h;
      const std::string size = HumanBytes(plan_.object_sizes[k]);
      if (two_lines) {
        Text(l_.left - 6, mid - 2, "axis", fmt::format("#{}", k), " text-anchor=\"end\"");
        Text(l_.left - 6, mid + 11, "axis", size,
             " text-anchor=\"end\" style=\"font-size:10px;fill:#666\"");
      } else {
        Text(l_.left - 6, mid + 4, "axis", fmt::format("#{} {}", k, size),
             " text-anchor=\"end\" style=\"font-size:9px\"");
      }
    }
    YTitle(fmt::format("shared objects ({}, one lane each)", objects));
  }

  void Row(double& y, const std::string& key, const std::string& value) {
    Text(kPanelLeft, y, "key", key);
    Text(kPanelRight, y, "value", value);
    y += 18;
  }

  // A byte count: "1.5 KiB (1,536 B)" on the key's line when it fits, else the exact
  // count on a line of its own.
  void BytesRow(double& y, const std::string& key, Bytes bytes) {
    constexpr double kCharWidth = 7.0;  // generous average at 12px, digits included
    const std::string both = Exact(bytes);
    if (static_cast<double>(CodePoints(key) + CodePoints(both)) * kCharWidth + 12 <=
        kPanelRight - kPanelLeft) {
      Row(y, key, both);
      return;
    }
    Row(y, key, HumanBytes(bytes));
    Text(kPanelRight, y - 3, "value", fmt::format("{} B", WithThousands(bytes)),
         " style=\"font-size:11px;fill:#666\"");
    y += 15;
  }

  void Panel() {
    double y = l_.map_top + 10;
    Text(kPanelLeft, y, "head", "Summary");
    y += 22;
    const double ratio = totals_.lower_bound == 0 ? 1.0
                                                  : static_cast<double>(plan_.bytes) /
                                                        static_cast<double>(totals_.lower_bound);
    Row(y, "plan", Ellipsize(plan_.key, 28));
    if (lanes_) Row(y, "shared objects", fmt::format("{}", plan_.object_sizes.size()));
    BytesRow(y, lanes_ ? "objects in all" : "arena", plan_.bytes);
    BytesRow(y, "lower bound", totals_.lower_bound);
    // No shared-objects plan goes below Σ positional maximums (docs/objects.md).
    if (lanes_) BytesRow(y, "objects bound", ObjectsLowerBound(problem_));
    Row(y, "× lower bound",
        fmt::format("{:.3f}{}", ratio, plan_.bytes <= totals_.lower_bound ? " (optimal)" : ""));
    BytesRow(y, "naive", totals_.naive);
    if (totals_.naive > 0 && plan_.bytes <= totals_.naive)
      Row(y, "saved vs naive",
          fmt::format("{:.1f} %", 100.0 * static_cast<double>(totals_.naive - plan_.bytes) /
                                      static_cast<double>(totals_.naive)));
    Row(y, "tensors",
        totals_.empty ? fmt::format("{} ({} empty)", problem_.size(), totals_.empty)
                      : fmt::format("{}", problem_.size()));
    Row(y, "steps", fmt::format("{}", totals_.steps));
    if (w_.graph) Row(y, "ops", fmt::format("{}", w_.ops));
    Row(y, "alignment", fmt::format("{} B", problem_.alignment));

    y += 12;
    Text(kPanelLeft, y, "head", "Key");
    y += 20;
    auto line_key = [&](const std::string& stroke, const std::string& text) {
      out_ += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" {3}/>\n", kPanelLeft,
                          kPanelLeft + 28, Coord(y - 4), stroke);
      Text(kPanelLeft + 36, y, "key", text);
      y += 18;
    };
    if (!lanes_) line_key("stroke=\"#222\" stroke-width=\"1.3\"", "arena (the plan's size)");
    line_key("stroke=\"#c62828\" stroke-width=\"1.6\" stroke-dasharray=\"7 4\"",
             "lower bound (peak live bytes)");
    line_key("stroke=\"#3b78a8\" stroke-width=\"6\" stroke-opacity=\".5\"",
             "live bytes (every plan)");
    line_key("stroke=\"#c62828\" stroke-width=\"4\"", "steps at the lower bound");
    Legend(y);
  }

  // Swatches with names for small maps; a sentence for large ones.
  void Legend(double y) {
    y += 12;
    Text(kPanelLeft, y, "head", plan_.groups.empty() ? "Tensors" : "Tensors (colour = object)");
    y += 20;
    std::vector<std::size_t> shown;
    for (std::size_t i = 0; i < problem_.size(); ++i)
      if (problem_.records[i].size > 0) shown.push_back(i);
    if (shown.size() > kLegendRows) {
      Text(kPanelLeft, y, "key",
           plan_.groups.empty()
               ? fmt::format("{} rectangles, one colour each", shown.size())
               : fmt::format("{} rectangles, one colour per object", shown.size()));
      Text(kPanelLeft, y + 17, "key", "hover one for its name and lifetime");
      return;
    }
    for (std::size_t i : shown) {
      out_ += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"11\" fill=\"{}\" stroke=\"#999\" "
          "stroke-width=\".5\"/>\n",
          kPanelLeft, Coord(y - 10), FillColour(ColourKey(i)));
      Text(kPanelLeft + 20, y, "key", Ellipsize(problem_.NameOf(i), 20));
      Text(kPanelRight, y, "value", HumanBytes(problem_.records[i].size));
      y += 16;
    }
  }

  const Workload& w_;
  const Problem& problem_;
  const MapPlan& plan_;
  const MapTotals& totals_;
  const SvgOptions& options_;
  const bool lanes_;  // an objects plan: one lane per object
  const std::vector<StepLabel> step_labels_;
  const Layout l_;
  double top_ = 1;  // bytes at the top of the offsets plot (>= 1)
  std::string out_;
};

}  // namespace

std::string DrawMap(const Workload& workload, const MapPlan& plan, const MapTotals& totals,
                    const SvgOptions& options) {
  const std::size_t n = workload.problem.size();
  if (plan.offsets.size() != n)
    throw InternalError(fmt::format("memory map of {}: {} offsets for {} records", plan.key,
                                    plan.offsets.size(), n));
  if (!plan.groups.empty() && plan.groups.size() != n)
    throw InternalError(fmt::format("memory map of {}: {} objects for {} records", plan.key,
                                    plan.groups.size(), n));
  if (!plan.object_sizes.empty()) {
    if (plan.groups.size() != n)
      throw InternalError(
          fmt::format("memory map of {}: lanes without an object per record", plan.key));
    for (std::size_t object : plan.groups)
      if (object >= plan.object_sizes.size())
        throw InternalError(fmt::format("memory map of {}: object {} of {} has no size", plan.key,
                                        object, plan.object_sizes.size()));
  }
  return Drawing(workload, plan, totals, options).Render();
}

}  // namespace memplan::report
