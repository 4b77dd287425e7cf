// One HTML file, no external assets: every plan's map as inline SVG (drawn by the same
// code as the standalone picture), the tensors' details as JSON for the tooltip, and a
// few lines of script to switch plans and follow the mouse.
#include "memplan/html.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "memplan/error.h"
#include "memplan/table.h"
#include "src/report/svg_map.h"
#include "src/report/xml_text.h"

namespace memplan {

namespace {

constexpr const char* kStyle =
    R"(body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;margin:16px;color:#111}
header{display:flex;gap:18px;align-items:baseline;flex-wrap:wrap;margin-bottom:8px}
h1{font-size:18px;margin:0}
select{font-size:14px}
.map svg{max-width:100%;height:auto;display:block}
rect.tensor:hover{stroke:#000;stroke-width:1.5px}
#tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #888;border-radius:4px;
padding:6px 8px;font-size:12px;max-width:460px;box-shadow:0 2px 6px rgba(0,0,0,.25);white-space:pre-line}
table{border-collapse:collapse;font-size:13px;margin-top:10px}
td,th{padding:2px 10px;text-align:right}td:first-child,th:first-child{text-align:left}
tr.plan{cursor:pointer}tr.plan:hover{background:#eef}tr.current{font-weight:bold}
)";

// Switches maps, fills the tooltip from the JSON (textContent only: names are data,
// never markup).
constexpr const char* kScript = R"(
(function () {
  var sel = document.getElementById('plan'), tip = document.getElementById('tip');
  var maps = document.querySelectorAll('.map'), rows = document.querySelectorAll('tr.plan');
  function human(b) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (b >= 1024 && i < 4) { b /= 1024; i++; }
    return (i ? b.toFixed(2).replace(/\.?0+$/, '') : b) + ' ' + u[i];
  }
  function show(k) {
    maps.forEach(function (m, i) { m.hidden = i !== k; });
    rows.forEach(function (r, i) { r.className = i === k ? 'plan current' : 'plan'; });
    sel.value = String(k);
  }
  sel.addEventListener('change', function () { show(+sel.value); });
  rows.forEach(function (r, i) { r.addEventListener('click', function () { show(i); }); });
  document.addEventListener('mousemove', function (e) {
    var r = e.target.closest ? e.target.closest('rect.tensor') : null;
    if (!r) { tip.hidden = true; return; }
    var i = +r.getAttribute('data-i'), p = MEMPLAN.plans[+sel.value], t = MEMPLAN.tensors[i];
    var o = p.offsets[i];
    var text = t[0] + '\n' + human(t[1]) + (t[1] >= 1024 ? ' (' + t[1] + ' B)' : '') +
        '\nlifetime: steps ' + t[2] + '..' + t[3] +
        '\noffset: ' + o + ' (bytes ' + o + '..' + (o + t[1] - 1) + ')';
    if (p.objects) text += '\nobject: ' + p.objects[i];
    if (t[4]) text += '\n' + t[4];
    tip.textContent = text;
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth) x = e.clientX - tip.offsetWidth - 8;
    if (y + tip.offsetHeight > window.innerHeight) y = e.clientY - tip.offsetHeight - 8;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
  show(MEMPLAN.initial);
})();
)";

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

}  // namespace

std::string RenderHtml(const Workload& workload, const std::vector<MapPlan>& plans,
                       std::size_t initial) {
  if (plans.empty()) throw InternalError("HTML report with no plan");
  if (initial >= plans.size()) initial = 0;
  const Problem& problem = workload.problem;
  const MapTotals totals = ComputeMapTotals(problem);
  const auto ops = TensorOpSummaries(workload);

  nlohmann::ordered_json data;
  data["input"] = workload.label;
  data["initial"] = initial;
  auto& tensors = data["tensors"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const UsageRecord& r = problem.records[i];
    tensors.push_back({problem.NameOf(i), r.size, r.first, r.last, ops[i]});
  }
  auto& plan_data = data["plans"] = nlohmann::ordered_json::array();
  for (const MapPlan& p : plans) {
    nlohmann::ordered_json j{{"key", p.key}, {"bytes", p.bytes}, {"offsets", p.offsets}};
    if (!p.groups.empty()) j["objects"] = p.groups;
    plan_data.push_back(std::move(j));
  }

  const std::string title = report::XmlEscape(workload.label);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>memplan: {}</title>\n<style>\n{}</style>\n</head>\n<body>\n<header>\n"
      "<h1>Memory plans of {}</h1>\n<label>plan <select id=\"plan\">\n",
      title, kStyle, title);
  for (std::size_t k = 0; k < plans.size(); ++k)
    out += fmt::format("<option value=\"{}\"{}>{} — {} (× {:.3f})</option>\n", k,
                       k == initial ? " selected" : "", report::XmlEscape(plans[k].key),
                       HumanBytes(plans[k].bytes), Ratio(plans[k].bytes, totals.lower_bound));
  out += fmt::format(
      "</select></label>\n<span>{} tensors, {} steps, lower bound {}, naive {}</span>\n"
      "</header>\n<div id=\"maps\">\n",
      problem.size(), totals.steps, HumanBytes(totals.lower_bound), HumanBytes(totals.naive));

  report::SvgOptions options;
  options.standalone = false;
  options.op_summaries = &ops;
  for (std::size_t k = 0; k < plans.size(); ++k)
    out += fmt::format("<div class=\"map\"{}>\n{}</div>\n", k == initial ? "" : " hidden",
                       report::DrawMap(workload, plans[k], totals, options));
  out += "</div>\n<table>\n<tr><th>plan</th><th>bytes</th><th>× lower bound</th></tr>\n";
  for (const MapPlan& p : plans)
    out += fmt::format("<tr class=\"plan\"><td>{}</td><td>{}</td><td>{:.3f}</td></tr>\n",
                       report::XmlEscape(p.key), WithThousands(p.bytes),
                       Ratio(p.bytes, totals.lower_bound));
  out += fmt::format(
      "</table>\n<div id=\"tip\" hidden></div>\n<script>\nvar MEMPLAN = "
      "{};\n{}</script>\n</body>\n</html>\n",
      ScriptJson(data), kScript);
  return out;
}

}  // namespace memplan
