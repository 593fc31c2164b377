// schedframe simulation report: draws the page from the JSON in #report-data (uPlot for charts).
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("report-data").textContent);
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b"];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) { e.setAttribute(k, attrs[k]); } } }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function options(select, values, labels) {
    values.forEach(function (v, i) { select.appendChild(el("option", { value: v }, labels ? labels[i] : v)); });
  }
  function table(head, rows, msgCols) {
    var wrap = el("div", { "class": "scroll" }), t = el("table"), tr = el("tr"), body = el("tbody");
    head.forEach(function (h) { tr.appendChild(el("th", null, h)); });
    var thead = el("thead"); thead.appendChild(tr); t.appendChild(thead);
    rows.forEach(function (row) {
      var r = el("tr");
      row.forEach(function (v, i) {
        var td = el("td", msgCols && msgCols.indexOf(i) >= 0 ? { "class": "msg" } : null);
        if (v instanceof Node) { td.appendChild(v); } else { td.textContent = v === null || v === undefined ? "" : String(v); }
        r.appendChild(td);
      });
      body.appendChild(r);
    });
    t.appendChild(body); wrap.appendChild(t); return wrap;
  }
  function width(node) { return Math.max(240, Math.min(node.clientWidth || 600, 1100)); }

  // -- charts -------------------------------------------------------------------------------
  var charts = [];
  function chart(target, title, xs, series, yLabel, xLabel) {
    var box = el("div", { "class": "chart" });
    target.appendChild(box);
    var names = Object.keys(series);
    var opts = {
      title: title, width: width(target), height: 220,
      scales: { x: { time: false } },
      axes: [{ label: xLabel || "simulated seconds" }, { label: yLabel }],
      series: [{ label: xLabel || "t" }].concat(names.map(function (n, i) {
        return { label: n, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true,
                 paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } };
      }))
    };
    var u = new uPlot(opts, [xs].concat(names.map(function (n) { return series[n]; })), box);
    charts.push([u, target]);
  }
  window.addEventListener("resize", function () {
    charts.forEach(function (c) { c[0].setSize({ width: width(c[1]), height: 220 }); });
  });
  var U = D.utilisation, uc = document.getElementById("util-charts");
  Object.keys(U.charts).forEach(function (res) {
    var pending = res === "pending";
    chart(uc, pending ? "pods pending" : res + " requested / allocatable", U.t, U.charts[res],
          pending ? "pods" : "%");
  });
  var W = D.waits, wc = document.getElementById("wait-chart");
  if (W.t.length) { chart(wc, "pods bound within a wait (cumulative)", W.t, W.cdf, "% of pods", "wait (s)"); }
  else { wc.appendChild(el("p", { "class": "muted" }, "no pod waited in this run")); }
  document.getElementById("wait-counts").appendChild(table(["config", "bound", "never bound"],
    Object.keys(W.counts).map(function (c) { return [c, W.counts[c].bound, W.counts[c].never_bound]; })));

  // -- heat map -----------------------------------------------------------------------------
  var H = D.heatmap, grid = document.getElementById("hm-grid");
  var hmConfig = document.getElementById("hm-config"), hmRes = document.getElementById("hm-resource");
  var hmLabel = document.getElementById("hm-label"), hmName = document.getElementById("hm-name");
  var hmCount = document.getElementById("hm-count"), hmDetail = document.getElementById("hm-detail");
  options(hmConfig, D.configs);
  options(hmRes, D.resources);
  options(hmLabel, H.labels.map(function (_, i) { return String(i); }), H.labels);
  function color(p) {
    if (p < 0) { return null; }
    var stops = [[0, [232, 241, 251]], [50, [91, 155, 213]], [80, [242, 163, 58]], [100, [192, 57, 43]]];
    p = Math.min(100, p);
    for (var i = 1; i < stops.length; i++) {
      if (p <= stops[i][0]) {
        var a = stops[i - 1], b = stops[i], f = (p - a[0]) / (b[0] - a[0]);
        var c = a[1].map(function (x, j) { return Math.round(x + (b[1][j] - x) * f); });
        return "rgb(" + c.join(",") + ")";
      }
    }
    return "rgb(192,57,43)";
  }
  if (H.nodes.length <= 300) { grid.classList.add("large"); }
  var cells = H.nodes.map(function (name, i) {
    var c = el("div", { "class": "cell", "data-node": name, "data-i": String(i), title: name });
    grid.appendChild(c); return c;
  });
  function paint() {
    var cfg = H.configs[hmConfig.value], res = hmRes.value, pct = cfg.pct[res];
    cells.forEach(function (c, i) {
      var col = color(pct[i]);
      c.classList.toggle("absent", col === null);
      c.style.background = col === null ? "" : col;
      c.title = H.nodes[i] + ": " + (pct[i] < 0 ? "not in this run" : pct[i] + "% " + res);
    });
  }
  function filter() {
    var lab = hmLabel.value === "" ? -1 : Number(hmLabel.value), q = hmName.value.trim().toLowerCase(), shown = 0;
    cells.forEach(function (c, i) {
      var ok = (lab < 0 || H.node_labels[i].indexOf(lab) >= 0) && (!q || H.nodes[i].toLowerCase().indexOf(q) >= 0);
      c.classList.toggle("off", !ok); if (ok) { shown++; }
    });
    hmCount.textContent = shown + " of " + H.nodes.length + " node(s) shown; colour: requested / allocatable at the end of the run";
  }
  grid.addEventListener("click", function (ev) {
    var t = ev.target; if (!t || !t.getAttribute || t.getAttribute("data-i") === null) { return; }
    var i = Number(t.getAttribute("data-i")), cfg = H.configs[hmConfig.value];
    var parts = D.resources.map(function (r) {
      return r + " " + (cfg.pct[r][i] < 0 ? "-" : cfg.pct[r][i] + "% (" + cfg.requested[r][i] + " of " + H.allocatable[r][i] + ")");
    });
    var labs = H.node_labels[i].map(function (j) { return H.labels[j]; });
    hmDetail.textContent = H.nodes[i] + ": " + parts.join(", ") + (labs.length ? "; " + labs.join(", ") : "");
  });
  [hmConfig, hmRes].forEach(function (s) { s.addEventListener("change", paint); });
  hmLabel.addEventListener("change", filter); hmName.addEventListener("input", filter);
  var legend = el("div", { "class": "legend" });
  legend.appendChild(el("span", null, "0%")); legend.appendChild(el("span", { "class": "bar" })); legend.appendChild(el("span", null, "100%"));
  grid.parentNode.insertBefore(legend, grid);
  paint(); filter();

  // -- pending pods ---------------------------------------------------------------------------
  var pdConfig = document.getElementById("pd-config"), pdGroups = document.getElementById("pd-groups");
  var pdMatrix = document.getElementById("pd-matrix");
  options(pdConfig, D.configs);
  function showMatrix(cfg, key, button) {
    Array.prototype.forEach.call(pdGroups.querySelectorAll(".pod.active"), function (b) { b.classList.remove("active"); });
    if (button) { button.classList.add("active"); }
    var P = D.pending[cfg], m = P.matrices[key];
    pdMatrix.textContent = "";
    pdMatrix.appendChild(el("h3", null, key + " (" + cfg + ")"));
    if (!m) {
      pdMatrix.appendChild(el("p", { "class": "muted" }, "not explained: the page carries the Filter verdicts of the first pending pods only"));
      return;
    }
    if (!P.recorded) {
      pdMatrix.appendChild(el("p", { "class": "muted" }, "Filter verdicts were not recorded for this run (RecordDecisions(filter_verdicts=True))"));
      return;
    }
    pdMatrix.appendChild(el("p", null, "Filter, attempt " + m.attempt + ": nodes by verdict"));
    pdMatrix.setAttribute("data-pod", key);
    pdMatrix.appendChild(table(["verdict", "stage", "plugin", "code", "reason", "nodes", "e.g."],
      m.groups.map(function (g) {
        var v = el("span", { "class": g.passed ? "pass" : "fail" }, g.passed ? "passed" : "rejected");
        return [v, g.stage, g.plugin, g.code, g.reason, g.count, g.nodes.join(", ") + (g.nodes.length < g.count ? ", ..." : "")];
      }), [4, 6]));
    if (m.top.length) {
      pdMatrix.appendChild(el("p", null, "Score: the best feasible nodes (weighted scores)"));
      pdMatrix.appendChild(table(["node", "total"].concat(m.plugins),
        m.top.map(function (t) { return [t.node, t.total].concat(t.scores); })));
    } else {
      pdMatrix.appendChild(el("p", { "class": "muted" }, "Score: no feasible node to score"));
    }
  }
  function pending() {
    var cfg = pdConfig.value, P = D.pending[cfg];
    pdGroups.textContent = ""; pdMatrix.textContent = ""; pdMatrix.removeAttribute("data-pod");
    if (!P.total) { pdGroups.appendChild(el("p", null, "No pod pending at the end of the run.")); return; }
    pdGroups.appendChild(el("p", null, P.total + " pod(s) pending at the end, by FitError reason" +
      (P.pods.length < P.total ? " (" + P.pods.length + " listed)" : "") + "; click a pod for its Filter and Score matrix."));
    P.groups.forEach(function (g, gi) {
      var d = el("details", { "class": "group" }), s = el("summary", null, g[1] + " × " + g[0]);
      if (gi === 0) { d.setAttribute("open", ""); }
      d.appendChild(s);
      var rows = P.pods.filter(function (p) { return p.group === g[0]; }).map(function (p) {
        var b = el("button", { "class": "pod", type: "button", "data-pod": p.key }, p.key);
        b.addEventListener("click", function () { showMatrix(cfg, p.key, b); });
        return [b, p.workload, p.attempts, p.since, p.message];
      });
      d.appendChild(table(["pod", "workload", "attempts", "arrived (s)", "message"], rows, [4]));
      pdGroups.appendChild(d);
    });
  }
  pdConfig.addEventListener("change", pending);
  pending();

  // -- placement diff: any two configurations, computed here from each one's placements ---------------
  var P = D.placements, diffBody = document.getElementById("diff-body");
  var diffA = document.getElementById("diff-a"), diffB = document.getElementById("diff-b");
  function diff(a, b) {
    var A = P.configs[a], B = P.configs[b], onA = new Map(), onB = new Map(), keys = new Map();
    A.placed.forEach(function (pn) { onA.set(pn[0], pn[1]); keys.set(pn[0], true); });
    B.placed.forEach(function (pn) { onB.set(pn[0], pn[1]); keys.set(pn[0], true); });
    var out = {}, into = {}, moved = [], total = 0;
    keys.forEach(function (_, k) {
      var na = onA.has(k) ? onA.get(k) : -1, nb = onB.has(k) ? onB.get(k) : -1;
      if (na === nb) { return; }
      if (na >= 0) { out[na] = (out[na] || 0) + 1; }
      if (nb >= 0) { into[nb] = (into[nb] || 0) + 1; }
      total++;
      if (moved.length < P.max_moved) { moved.push([P.pods[k], na < 0 ? "" : P.nodes[na], nb < 0 ? "" : P.nodes[nb]]); }
    });
    var runA = new Map(A.running), runB = new Map(B.running), nodes = new Map();
    A.nodes.concat(B.nodes).forEach(function (n) { nodes.set(n, true); });
    var rows = [];
    nodes.forEach(function (_, n) {
      rows.push([P.nodes[n], runA.get(n) || 0, runB.get(n) || 0, out[n] || 0, into[n] || 0]);
    });
    return { nodes: rows, moved: moved, moved_total: total };
  }
  function showDiff() {
    var a = diffA.value, b = diffB.value;
    diffBody.textContent = "";
    diffBody.setAttribute("data-a", a); diffBody.setAttribute("data-b", b);
    if (a === b) {
      diffBody.setAttribute("data-moved", "0");
      diffBody.appendChild(el("p", { "class": "muted" }, "The same configuration twice: pick two to compare."));
      return;
    }
    var d = diff(a, b);
    diffBody.setAttribute("data-moved", String(d.moved_total));
    diffBody.appendChild(el("h3", null, a + " → " + b + ": " + d.moved_total + " pod(s) on another node"));
    var changed = d.nodes.filter(function (n) { return n[1] !== n[2] || n[3] || n[4]; });
    diffBody.appendChild(el("p", null, "Pods running per node at the end (" + changed.length + " of " + d.nodes.length + " node(s) differ; all listed)"));
    diffBody.appendChild(table(["node", "pods (" + a + ")", "pods (" + b + ")", "moved away", "moved here"], d.nodes));
    if (d.moved.length) {
      var det = el("details", { "class": "group" });
      det.appendChild(el("summary", null, "what moved where" + (d.moved.length < d.moved_total ? " (first " + d.moved.length + ")" : "")));
      det.appendChild(table(["pod", "node (" + a + ")", "node (" + b + ")"],
        d.moved.map(function (m) { return [m[0], m[1] || "-", m[2] || "-"]; })));
      diffBody.appendChild(det);
    }
  }
  if (D.configs.length < 2) {
    document.getElementById("diff-controls").style.display = "none";
    diffBody.appendChild(el("p", { "class": "muted" }, "One configuration only: nothing to compare."));
  } else {
    options(diffA, D.configs); options(diffB, D.configs);
    diffA.value = D.configs[0]; diffB.value = D.configs[1];
    [diffA, diffB].forEach(function (s) { s.addEventListener("change", showDiff); });
    showDiff();
  }
  document.documentElement.setAttribute("data-ready", "1");
}());
