// schedframe sweep report: the chart of a metric over the parameters, from the JSON in #sweep-data.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("sweep-data").textContent);
  var COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22"];
  var MAX_LINES = 20;
  var RUN = "#";

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { for (var k in attrs) { if (Object.prototype.hasOwnProperty.call(attrs, k)) { e.setAttribute(k, attrs[k]); } } }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function distinct(values) {
    var seen = {}, out = [];
    values.forEach(function (v) { if (!Object.prototype.hasOwnProperty.call(seen, v)) { seen[v] = true; out.push(v); } });
    return out;
  }
  var metric = document.getElementById("sw-metric"), xSel = document.getElementById("sw-x");
  var bySel = document.getElementById("sw-by"), note = document.getElementById("sw-note");
  var box = document.getElementById("sw-chart");
  D.metrics.forEach(function (m, i) { metric.appendChild(el("option", { value: m }, D.labels[i])); });
  metric.value = D.metric;
  xSel.appendChild(el("option", { value: RUN }, "run (in sweep order)"));
  bySel.appendChild(el("option", { value: "" }, "one line (all runs)"));
  D.params.forEach(function (p, i) {
    xSel.appendChild(el("option", { value: String(i) }, p));
    bySel.appendChild(el("option", { value: String(i) }, p));
  });
  function column(i) { return D.points.map(function (pt) { return pt[i]; }); }
  // defaults: x the parameter with the most values (a numeric one first), lines the one with the fewest
  var counts = D.params.map(function (_, i) { return distinct(column(i)).length; });
  if (D.params.length) {
    var best = 0;
    D.params.forEach(function (_, i) {
      if ((D.numeric[i] && !D.numeric[best]) || (D.numeric[i] === D.numeric[best] && counts[i] > counts[best])) { best = i; }
    });
    xSel.value = String(best);
    var by = -1;
    D.params.forEach(function (_, i) { if (i !== best && (by < 0 || counts[i] < counts[by])) { by = i; } });
    if (by >= 0) { bySel.value = String(by); }
  }
  function width() { return Math.max(240, Math.min(box.clientWidth || 600, 1100)); }
  var chart = null;
  function draw() {
    var m = metric.value, values = D.values[m], label = D.labels[D.metrics.indexOf(m)];
    var xi = xSel.value, bi = bySel.value === xSel.value ? "" : bySel.value;
    var n = D.points.length, xs, xKey, categorical = false;
    if (xi === RUN) {
      xs = D.points.map(function (_, i) { return i + 1; });
      xKey = function (i) { return i + 1; };
    } else {
      var col = column(Number(xi));
      xs = distinct(col);
      if (D.numeric[Number(xi)]) { xs.sort(function (a, b) { return Number(a) - Number(b); }); }
      else { categorical = true; }
      xKey = function (i) { return col[i]; };
    }
    var lineCol = bi === "" ? null : column(Number(bi));
    var lines = lineCol === null ? ["all runs"] : distinct(lineCol);
    var dropped = Math.max(0, lines.length - MAX_LINES);
    lines = lines.slice(0, MAX_LINES);
    var at = {}, li = {};
    xs.forEach(function (x, j) { at[x] = j; });
    lines.forEach(function (l, j) { li[l] = j; });
    var sum = lines.map(function () { return xs.map(function () { return 0; }); });
    var cnt = lines.map(function () { return xs.map(function () { return 0; }); });
    var used = 0, left = 0;
    for (var i = 0; i < n; i++) {
      var v = values[i], l = lineCol === null ? 0 : li[lineCol[i]];
      if (v === null || v === undefined || D.status[i] !== "ok") { left++; continue; }
      if (l === undefined) { continue; }
      var j = at[xKey(i)];
      sum[l][j] += v; cnt[l][j] += 1; used++;
    }
    var series = sum.map(function (s, l) {
      return s.map(function (total, j) { return cnt[l][j] ? Math.round(1000 * total / cnt[l][j]) / 1000 : null; });
    });
    var plotX = categorical ? xs.map(function (_, j) { return j; }) : xs.map(Number);
    var many = Math.max.apply(null, cnt.map(function (c) { return Math.max.apply(null, c.concat([0])); }));
    note.textContent = label + (many > 1 ? ": the mean of the runs with the same values" : "") +
      " (" + used + " run(s)" + (left ? "; " + left + " failed or without it left out" : "") +
      (dropped ? "; " + dropped + " more line(s) not drawn" : "") +
      (D.runs > n ? "; the first " + n + " of " + D.runs + " runs" : "") + ")";
    box.setAttribute("data-plot", JSON.stringify({ x: xs, lines: lines, y: series }));
    if (chart) { chart.destroy(); }
    var xName = xi === RUN ? "run" : D.params[Number(xi)];
    var opts = {
      title: label + " by " + xName, width: width(), height: 260,
      scales: { x: categorical ? { time: false, range: [-0.5, Math.max(0.5, xs.length - 0.5)] } : { time: false } },
      axes: [categorical ? {
        label: xName,
        splits: function () { return plotX; },
        values: function (u, splits) { return splits.map(function (s) { return Number.isInteger(s) && s >= 0 && s < xs.length ? String(xs[s]) : ""; }); }
      } : { label: xName }, { label: label }],
      series: [{ label: xName, value: function (u, v) { return v === null ? "-" : categorical ? String(xs[v]) : String(v); } }].concat(lines.map(function (l, j) {
        return { label: bi === "" ? l : D.params[Number(bi)] + "=" + l, stroke: COLORS[j % COLORS.length], width: 2,
                 spanGaps: true, points: { show: xs.length <= 60 } };
      }))
    };
    chart = new uPlot(opts, [plotX].concat(series), box);
  }
  [metric, xSel, bySel].forEach(function (s) { s.addEventListener("change", draw); });
  window.addEventListener("resize", function () { if (chart) { chart.setSize({ width: width(), height: 260 }); } });
  draw();
  document.documentElement.setAttribute("data-ready", "1");
}());
