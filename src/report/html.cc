// One HTML file, no external assets: every plan's map as inline SVG (drawn by the same
// code as the standalone picture, without its summary panel), the plans' table beside
// it, a tensor search, and the data the script needs as JSON (html_assets.h).
#include "memplan/html.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "memplan/bounds.h"
#include "memplan/error.h"
#include "memplan/table.h"
#include "src/report/html_assets.h"
#include "src/report/svg_map.h"
#include "src/report/xml_text.h"

namespace memplan {

namespace {

// JSON safe inside <script>: '<', '>' and '&' only occur in strings, where \u escapes
// mean the same, so no "</script>" or "<!--" can end the block early.
std::string ScriptJson(const nlohmann::ordered_json& value) {
  const std::string raw = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(raw.size());
  for (char c : raw) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

double Ratio(Bytes bytes, Bytes bound) {
  return bound == 0 ? 1.0 : static_cast<double>(bytes) / static_cast<double>(bound);
}

// The page's data for its script: tensors, steps, live bytes and every plan.
nlohmann::ordered_json PageData(const Workload& workload, const std::vector<MapPlan>& plans,
                                std::size_t initial, const std::vector<std::string>& ops,
                                const std::vector<StepLabel>& steps) {
  const Problem& problem = workload.problem;
  nlohmann::ordered_json data;
  data["input"] = workload.label;
  data["initial"] = initial;
  auto& tensors = data["tensors"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    tensors.push_back({problem.NameOf(i), r.size, r.first, r.last, ops[i]});
  }
  auto& step_data = data["steps"] = nlohmann::ordered_json::array();
  for (const StepLabel& s : steps) step_data.push_back({s.type, s.detail});
  auto& live = data["live"] = nlohmann::ordered_json::array();
  for (const auto& [step, bytes] : LiveBytesChanges(problem)) live.push_back({step, bytes});
  auto& plan_data = data["plans"] = nlohmann::ordered_json::array();
  for (const MapPlan& p : plans) {
    nlohmann::ordered_json j{{"key", p.key}, {"bytes", p.bytes}};
    if (p.object_sizes.empty()) {
      j["offsets"] = p.offsets;
    } else {
      j["objects"] = p.groups;
      j["sizes"] = p.object_sizes;
    }
    plan_data.push_back(std::move(j));
  }

  return data;
}

// The plans' table: the header, then a row per plan under a line per mode.
std::string PlansTable(const std::vector<MapPlan>& plans, const MapTotals& totals) {
  Bytes largest = 1, smallest = plans[0].bytes;
  for (const MapPlan& p : plans) {
    largest = std::max(largest, p.bytes);
    smallest = std::min(smallest, p.bytes);
  }
  std::string out;
  out +=
      "<div class=\"layout\">\n<aside>\n<section>\n<h2>Plans</h2>\n<table id=\"plans\">\n"
      "<thead><tr><th>plan</th><th>size</th><th>× bound</th><th></th></tr></thead>\n<tbody>\n";
  std::string mode;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const MapPlan& p = plans[k];
    const std::string key_mode = p.key.substr(0, p.key.find('/'));
    if (key_mode != mode) {
      mode = key_mode;
      const char* what = !p.object_sizes.empty() ? "shared objects: one lane per object"
                         : mode == "offsets"     ? "offsets: one arena"
                                                 : "";
      out += fmt::format("<tr class=\"group\"><td colspan=\"4\">{}</td></tr>\n",
                         *what ? what : report::XmlEscape(mode).c_str());
    }
    const std::string name = p.key.substr(p.key.find('/') + 1);
    out += fmt::format(
        "<tr class=\"plan{}\" data-k=\"{}\" title=\"{} — {} B\"><td><a "
        "href=\"#plan={}\">{}</a></td>"
        "<td>{}</td><td>{:.3f}</td><td class=\"bar\"><div class=\"bar\"><span "
        "style=\"width:{:.1f}%\"></span></div></td></tr>\n",
        p.bytes == smallest ? " best" : "", k, report::XmlEscape(p.key), WithThousands(p.bytes),
        report::XmlEscape(p.key), report::XmlEscape(name), HumanBytes(p.bytes),
        Ratio(p.bytes, totals.lower_bound),
        100.0 * static_cast<double>(p.bytes) / static_cast<double>(largest));
  }
  return out;
}

}  // namespace

std::string RenderHtml(const Workload& workload, const std::vector<MapPlan>& plans,
                       std::size_t initial) {
  if (plans.empty()) throw InternalError("HTML report with no plan");
  if (initial >= plans.size()) initial = 0;
  const Problem& problem = workload.problem;
  const MapTotals totals = ComputeMapTotals(problem);
  const auto ops = TensorOpSummaries(workload);
  const auto steps = StepLabels(workload);

  const nlohmann::ordered_json data = PageData(workload, plans, initial, ops, steps);

  const std::string title = report::XmlEscape(workload.label);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>memplan: {}</title>\n<style>\n{}</style>\n</head>\n<body>\n<header>\n"
      "<h1>Memory plans of {}</h1>\n<div class=\"facts\">",
      title, report::kHtmlStyle, title);
  out += fmt::format("{} tensors · {} steps", problem.size(), totals.steps);
  if (workload.graph) out += fmt::format(" · {} ops", workload.ops);
  out += fmt::format(" · lower bound {}", HumanBytes(totals.lower_bound));
  // Shared-objects plans have their own floor, Σ positional maximums (docs/objects.md).
  if (std::any_of(plans.begin(), plans.end(),
                  [](const MapPlan& p) { return !p.object_sizes.empty(); }))
    out += fmt::format(" (shared objects: {})", HumanBytes(ObjectsLowerBound(problem)));
  out += fmt::format(" · naive {} · alignment {} B</div>\n</header>\n", HumanBytes(totals.naive),
                     problem.alignment);

  // The plans' table: one row per plan, under a line per mode; a row links to its map.
  out += PlansTable(plans, totals);
  out +=
      "</tbody>\n</table>\n<p class=\"hint\">Click a row to see its map. × bound: the plan's "
      "size over the lower bound, the peak of live bytes that no plan can go under.</p>\n"
      "</section>\n<section>\n<h2>Find a tensor</h2>\n"
      "<input id=\"search\" type=\"search\" placeholder=\"a tensor name, or part of it\" "
      "autocomplete=\"off\" spellcheck=\"false\" aria-label=\"find a tensor\">\n"
      "<div id=\"found\"></div>\n<div id=\"details\" class=\"hint\">Its rectangle and its "
      "lifetime are highlighted in every map. Enter steps through the matches, Escape clears; "
      "clicking a rectangle finds it too.</div>\n"
      "</section>\n<section>\n<h2>Reading the maps</h2>\n<p class=\"hint\">Time runs left to "
      "right, one column per execution step";
  if (workload.graph) out += ", named by the op that runs at it";
  out +=
      ". An offsets plan puts each tensor at an address in one arena (up); a shared-objects "
      "plan puts it in a buffer, drawn as a lane, its bar as tall as its share of the "
      "buffer. The curve under each map is the bytes live at every step, the same for every "
      "plan; the dashed red line is its peak, the lower bound. Hover anything for "
      "details.</p>\n</section>\n</aside>\n<main>\n<div class=\"mapcard\">\n"
      "<div class=\"maphead\"><h2 id=\"current\"></h2></div>\n<div id=\"maps\">\n";

  report::SvgOptions options;
  options.standalone = false;
  options.op_summaries = &ops;
  for (std::size_t k = 0; k < plans.size(); ++k)
    out += fmt::format("<div class=\"map\"{}>\n{}</div>\n", k == initial ? "" : " hidden",
                       report::DrawMap(workload, plans[k], totals, options));
  out += fmt::format(
      "</div>\n</div>\n</main>\n</div>\n<div id=\"tip\" hidden></div>\n<script>\nvar MEMPLAN = "
      "{};\n{}</script>\n</body>\n</html>\n",
      ScriptJson(data), report::kHtmlScript);
  return out;
}

}  // namespace memplan
