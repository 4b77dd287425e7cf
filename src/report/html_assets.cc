// The HTML page's style and script. Names and other data reach the page only through
// textContent and attributes set from script, never as markup.
#include "src/report/html_assets.h"

namespace memplan::report {

const char* const kHtmlStyle =
    R"(:root{--ink:#1d232a;--muted:#5b6570;--line:#d9dee4;--accent:#2f6db3;--hit:#e08e00}
*{box-sizing:border-box}
body{font-family:"DejaVu Sans",system-ui,Helvetica,Arial,sans-serif;margin:0;color:var(--ink);
background:#f1f3f6;font-size:14px}
header{background:#fff;border-bottom:1px solid var(--line);padding:12px 20px}
h1{font-size:19px;margin:0 0 4px;overflow-wrap:anywhere}
.facts{color:var(--muted);font-size:13px}
.layout{display:grid;grid-template-columns:330px minmax(0,1fr);gap:16px;padding:14px 20px;
align-items:start}
section,.mapcard{background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px 12px;
margin-bottom:14px}
h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 8px}
table{border-collapse:collapse;width:100%;font-size:12.5px}
th{font-weight:600;color:var(--muted);text-align:right;padding:3px 5px;white-space:nowrap;
border-bottom:1px solid var(--line)}
td{padding:3px 5px;text-align:right;white-space:nowrap}
td:first-child,th:first-child{text-align:left}
td:first-child{max-width:150px;overflow:hidden;text-overflow:ellipsis}
tr.plan{cursor:pointer}tr.plan:hover{background:#eef4fb}
tr.plan.current{background:#dbe9f8;font-weight:600}
tr.plan a{color:inherit;text-decoration:none}
tr.group td{color:var(--muted);font-size:11.5px;padding-top:9px;font-style:italic}
td.bar{width:60px}.bar{height:7px;background:#e3e8ee;border-radius:3px}
.bar span{display:block;height:7px;background:var(--accent);border-radius:3px}
tr.best td:nth-child(3){color:#1f7a32}
input[type=search]{width:100%;font:inherit;padding:6px 8px;border:1px solid #b8c0c8;border-radius:6px}
#found{display:flex;flex-wrap:wrap;gap:4px;margin:8px 0 6px;max-height:132px;overflow:auto}
#found:empty{display:none}
#found button{font:inherit;font-size:12px;border:1px solid var(--line);background:#f7f9fb;
border-radius:4px;padding:2px 6px;cursor:pointer;max-width:100%;overflow:hidden;
text-overflow:ellipsis;white-space:nowrap}
#found button.on{background:#fff1d0;border-color:var(--hit)}
#details{white-space:pre-line;font-size:12.5px;line-height:1.45;overflow-wrap:anywhere}
.hint{color:var(--muted);font-size:12px;line-height:1.45;margin:6px 0 0}
.maphead{display:flex;justify-content:space-between;align-items:baseline;gap:12px;flex-wrap:wrap}
.maphead h2{font-size:14px;text-transform:none;letter-spacing:0;color:var(--ink)}
.map svg{width:100%;height:auto;display:block}
rect.tensor{cursor:pointer}
rect.tensor:hover{stroke:#000;stroke-width:1.5px}
body.searching rect.tensor,body.searching .label{opacity:.25}
body.searching rect.tensor.hit{opacity:1;stroke:#111;stroke-width:2.5px}
body.searching .label.hit{opacity:1;font-weight:bold}
rect.life{fill:var(--hit);fill-opacity:.14;stroke:var(--hit);stroke-width:1.2px;pointer-events:none}
#tip{position:fixed;pointer-events:none;background:#fff;border:1px solid #888;border-radius:4px;
padding:6px 8px;font-size:12px;max-width:460px;box-shadow:0 2px 6px rgba(0,0,0,.25);
white-space:pre-line;z-index:2}
#selftest{margin:0 20px 20px;padding:8px;background:#fff;border:1px solid var(--line)}
@media (max-width:900px){.layout{grid-template-columns:1fr}}
)";

const char* const kHtmlScript = R"(
(function () {
  'use strict';
  var D = MEMPLAN;
  var maps = Array.prototype.slice.call(document.querySelectorAll('.map'));
  var rows = Array.prototype.slice.call(document.querySelectorAll('tr.plan'));
  var tip = document.getElementById('tip'), box = document.getElementById('search');
  var found = document.getElementById('found'), details = document.getElementById('details');
  var heading = document.getElementById('current');
  var current = D.initial, picked = -1;
  var detailsHint = details.textContent;

  function human(b) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (b >= 1024 && i < 4) { b /= 1024; i++; }
    return (i ? b.toFixed(2).replace(/\.?0+$/, '') : b) + ' ' + u[i];
  }
  function exact(b) { return b >= 1024 ? human(b) + ' (' + b.toLocaleString('en-US') + ' B)' : b + ' B'; }
  function stepText(s) { var l = D.steps[s]; return 'step ' + s + (l ? ' (' + l[1] + ')' : ''); }
  // Live bytes from step s on: the last change at or before s.
  function liveAt(s) {
    var lo = 0, hi = D.live.length - 1, v = 0;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (D.live[mid][0] <= s) { v = D.live[mid][1]; lo = mid + 1; } else hi = mid - 1;
    }
    return v;
  }
  function placement(p, i) {
    var t = D.tensors[i];
    if (!t[1]) return 'takes no memory';
    if (p.objects) {
      var o = p.objects[i];
      return 'object #' + o + ' of ' + human(p.sizes[o]) + ' (' + p.sizes.length + ' objects)';
    }
    var at = p.offsets[i];
    return 'offset ' + at + ' (bytes ' + at + '..' + (at + t[1] - 1) + ')';
  }
  function tensorText(i) {
    var t = D.tensors[i], p = D.plans[current];
    var text = t[0] + '\n' + exact(t[1]) + ', steps ' + t[2] + '..' + t[3];
    if (D.steps.length) text += '\nfrom ' + stepText(t[2]) + '\nto ' + stepText(t[3]);
    text += '\n' + p.key + ': ' + placement(p, i);
    if (t[4]) text += '\n' + t[4];
    return text;
  }

  function show(k) {
    if (!(k >= 0 && k < maps.length)) return;
    current = k;
    maps.forEach(function (m, i) { m.hidden = i !== k; });
    rows.forEach(function (r) {
      var on = +r.getAttribute('data-k') === k;
      r.classList.toggle('current', on);
      r.setAttribute('aria-selected', on ? 'true' : 'false');
    });
    heading.textContent = D.plans[k].key + ' \u2014 ' + human(D.plans[k].bytes);
    if (picked >= 0) details.textContent = tensorText(picked);
  }
  function fromHash() {
    var m = /^#plan=(.+)$/.exec(location.hash);
    if (!m) return false;
    var key = decodeURIComponent(m[1]);
    for (var k = 0; k < D.plans.length; k++) if (D.plans[k].key === key) { show(k); return true; }
    return false;
  }
  window.addEventListener('hashchange', fromHash);
  rows.forEach(function (r) {
    r.addEventListener('click', function (e) {
      var k = +r.getAttribute('data-k');
      e.preventDefault();
      show(k);
      var h = '#plan=' + encodeURIComponent(D.plans[k].key);
      if (location.hash !== h) location.hash = h;
    });
  });

  function xOf(svg, s) {
    var l = +svg.getAttribute('data-left'), r = +svg.getAttribute('data-right');
    return l + s / +svg.getAttribute('data-steps') * (r - l);
  }
  // Highlights tensor i (-1: none) in every map: its rectangle, and a band over its
  // lifetime from the map down through the live-bytes curve.
  function pick(i) {
    picked = i;
    document.body.classList.toggle('searching', i >= 0);
    document.querySelectorAll('.hit').forEach(function (r) { r.classList.remove('hit'); });
    maps.forEach(function (m) {
      var svg = m.querySelector('svg'), band = svg.querySelector('rect.life');
      if (i < 0) { band.setAttribute('visibility', 'hidden'); return; }
      svg.querySelectorAll('[data-i="' + i + '"]').forEach(function (r) { r.classList.add('hit'); });
      var t = D.tensors[i], x0 = xOf(svg, t[2]), x1 = xOf(svg, t[3] + 1);
      band.setAttribute('x', x0.toFixed(2));
      band.setAttribute('width', Math.max(x1 - x0, 1).toFixed(2));
      band.setAttribute('visibility', 'visible');
    });
    found.querySelectorAll('button').forEach(function (b) {
      b.classList.toggle('on', +b.getAttribute('data-i') === i);
    });
    details.textContent = i >= 0 ? tensorText(i) : detailsHint;
  }
  function search() {
    var q = box.value.trim().toLowerCase(), same = [], part = [];
    found.textContent = '';
    if (!q) { pick(-1); return; }
    D.tensors.forEach(function (t, i) {
      var n = t[0].toLowerCase();
      if (n === q) same.push(i); else if (n.indexOf(q) >= 0) part.push(i);
    });
    var all = same.concat(part), limit = 40;
    all.slice(0, limit).forEach(function (i) {
      var b = document.createElement('button');
      b.type = 'button';
      b.textContent = D.tensors[i][0];
      b.title = D.tensors[i][0];
      b.setAttribute('data-i', i);
      b.addEventListener('click', function () { pick(i); });
      found.appendChild(b);
    });
    if (all.length > limit) {
      var more = document.createElement('span');
      more.className = 'hint';
      more.textContent = (all.length - limit) + ' more match';
      found.appendChild(more);
    }
    if (!all.length) { pick(-1); details.textContent = 'no tensor name contains \u201c' + box.value.trim() + '\u201d'; return; }
    pick(all[0]);
  }
  box.addEventListener('input', search);
  // Enter steps to the next match, Escape clears the search.
  box.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { box.value = ''; search(); return; }
    if (e.key !== 'Enter') return;
    var list = found.querySelectorAll('button');
    if (!list.length) return;
    var at = 0;
    list.forEach(function (b, k) { if (+b.getAttribute('data-i') === picked) at = k + 1; });
    pick(+list[at % list.length].getAttribute('data-i'));
  });
  document.addEventListener('click', function (e) {
    var r = e.target.closest ? e.target.closest('rect.tensor') : null;
    if (!r) return;
    var i = +r.getAttribute('data-i');
    box.value = D.tensors[i][0];
    search();
    pick(i);
  });

  // The step under the pointer, when it is over a map's plot or curve.
  function stepUnder(e) {
    var svg = e.target.closest ? e.target.closest('.map svg') : null;
    if (!svg) return -1;
    var b = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
    var x = (e.clientX - b.left) * vb.width / b.width, y = (e.clientY - b.top) * vb.height / b.height;
    var l = +svg.getAttribute('data-left'), r = +svg.getAttribute('data-right');
    if (x < l || x >= r || y < +svg.getAttribute('data-top')) return -1;
    return Math.floor((x - l) / (r - l) * +svg.getAttribute('data-steps'));
  }
  document.addEventListener('mousemove', function (e) {
    var r = e.target.closest ? e.target.closest('rect.tensor') : null, text = '';
    if (r) text = tensorText(+r.getAttribute('data-i'));
    else {
      var s = stepUnder(e);
      if (s >= 0) text = stepText(s) + '\nlive: ' + exact(liveAt(s));
    }
    if (!text) { tip.hidden = true; return; }
    tip.textContent = text;
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth) x = e.clientX - tip.offsetWidth - 8;
    if (y + tip.offsetHeight > window.innerHeight) y = e.clientY - tip.offsetHeight - 8;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });

  // ?selftest=NAME: search NAME as a user would, then check in every plan's map that its
  // rectangle (if it takes memory) and its lifetime band are highlighted; the verdict
  // goes into a pre element with the id selftest, for the browser test to read.
  function selftest(name) {
    var problems = [], i = -1;
    D.tensors.forEach(function (t, k) { if (i < 0 && t[0] === name) i = k; });
    if (i < 0) problems.push('no tensor named ' + name);
    else {
      box.value = name;
      search();
      if (picked !== i) problems.push('the search picked #' + picked + ', not #' + i);
      var t = D.tensors[i];
      rows.forEach(function (row) {
        var k = +row.getAttribute('data-k'), key = D.plans[k].key;
        show(k);
        if (!row.classList.contains('current')) problems.push(key + ': row not current');
        var svg = maps[k].querySelector('svg');
        if (maps[k].hidden) problems.push(key + ': map hidden');
        maps.forEach(function (m, j) { if (j !== k && !m.hidden) problems.push(key + ': map ' + j + ' shown too'); });
        var hits = svg.querySelectorAll('rect.tensor.hit');
        if (t[1] > 0) {
          if (hits.length !== 1 || +hits[0].getAttribute('data-i') !== i) problems.push(key + ': ' + hits.length + ' highlighted');
          else {
            var on = getComputedStyle(hits[0]), other = svg.querySelector('rect.tensor:not(.hit)');
            if (+on.opacity !== 1 || parseFloat(on.strokeWidth) < 2) problems.push(key + ': highlight not drawn');
            if (other && +getComputedStyle(other).opacity >= 1) problems.push(key + ': others not dimmed');
          }
        }
        var band = svg.querySelector('rect.life');
        if (band.getAttribute('visibility') !== 'visible' || Math.abs(+band.getAttribute('x') - xOf(svg, t[2])) > 0.01 ||
            Math.abs(+band.getAttribute('width') - Math.max(xOf(svg, t[3] + 1) - xOf(svg, t[2]), 1)) > 0.01)
          problems.push(key + ': lifetime band misplaced');
        if (details.textContent.indexOf(key) < 0 || details.textContent.indexOf(name) !== 0) problems.push(key + ': details wrong');
      });
      show(D.initial);
    }
    var out = document.createElement('pre');
    out.id = 'selftest';
    out.setAttribute('data-result', problems.length ? 'fail' : 'pass');
    out.textContent = problems.length ? 'selftest fail: ' + problems.join('; ')
        : 'selftest pass: ' + name + ' highlighted with its lifetime in ' + rows.length + ' plans';
    document.body.appendChild(out);
  }

  var params = new URLSearchParams(location.search);
  if (!fromHash()) show(D.initial);
  if (params.get('selftest') !== null) selftest(params.get('selftest'));
  else if (params.get('search')) { box.value = params.get('search'); search(); }
})();
)";

}  // namespace memplan::report
