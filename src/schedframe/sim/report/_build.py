"""The data of the HTML report, and the page around it (see :mod:`schedframe.sim.report`)."""

from __future__ import annotations

import bisect
import html
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final

from ...errors import SchedframeError
from ..decisions import last_attempt_verdicts
from ..results import RUNNING, SimResult

__all__ = [
    "MAX_EXPLAINED_PODS",
    "MAX_MOVED_ROWS",
    "MAX_SERIES_POINTS",
    "ReportError",
    "build_report",
    "check_report_path",
    "node_labels",
    "write_report",
]

#: Pending pods per configuration whose Filter verdicts and scores the page carries (the first ones).
MAX_EXPLAINED_PODS: Final = 50
#: Pending pods per configuration the page lists (every one counts in its reason's group).
MAX_PENDING_LISTED: Final = 2000
#: Node names listed per verdict group of a pending pod's matrix.
MAX_GROUP_NODES: Final = 30
#: Moved pods listed in the placement diff (every one counts in the per-node figures).
MAX_MOVED_ROWS: Final = 1000
#: Points per chart series (samples are thinned beyond it).
MAX_SERIES_POINTS: Final = 1500
#: Distinct ``key=value`` node labels the heat map's filter offers.
MAX_LABEL_CHOICES: Final = 400
#: Labels unique to a node (one value per node): no use as a filter.
_PER_NODE_LABELS: Final = frozenset({"kubernetes.io/hostname"})
_SUFFIXES: Final = (".html", ".htm")
_COUNT: Final = re.compile(r"^\d+ ")


class ReportError(SchedframeError, ValueError):
    """A report that cannot be written: a file name without ``.html``, a directory, a missing
    directory, or no results.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.sim.report"


def check_report_path(path: str | os.PathLike[str], what: str = "report") -> None:
    """Check, before a run, that the report can be written to *path*: an ``.html`` (or
    ``.htm``) name, not a directory, in a directory that exists.

    Raises:
        ReportError: what is wrong, naming *path*.
    """
    p = Path(path)
    if p.suffix.lower() not in _SUFFIXES:
        raise ReportError(f"{what} {os.fspath(path)!r}: the report is one HTML page; give a file "
                          f"name ending in .html (got {p.suffix or 'no suffix'})")
    if p.is_dir():
        raise ReportError(f"{what} {os.fspath(path)!r}: is a directory; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ReportError(f"{what} {os.fspath(path)!r}: no such directory {os.fspath(parent)!r}")


def node_labels(plan: Any) -> dict[str, dict[str, str]]:
    """``{node: labels}`` of a :class:`~schedframe.sim.scenario.Plan`'s starting nodes and of the
    nodes its events add (as they are added)."""
    out = {n.name: dict(n.labels) for n in plan.nodes}
    for a in plan.timeline:
        e = getattr(a, "event", None)
        if e is not None and e.action == "add" and e.node is not None:
            out.setdefault(e.node.name, dict(e.node.labels))
    return out


# -- the data -------------------------------------------------------------------------------------


def _thin(n: int, limit: int = MAX_SERIES_POINTS) -> list[int]:
    """At most *limit* indices of ``range(n)``, evenly spread, the first and last kept."""
    if n <= limit:
        return list(range(n))
    step = (n - 1) / (limit - 1)
    return sorted({round(i * step) for i in range(limit)})


def _step_at(times: Sequence[float], values: Sequence[float], grid: Sequence[float]) -> list[float | None]:
    """The step function (*times*, *values*) at each time of *grid* (``None`` before it starts)."""
    out: list[float | None] = []
    for t in grid:
        i = bisect.bisect_right(times, t) - 1
        out.append(None if i < 0 else values[i])
    return out


def _resources(results: Sequence[SimResult]) -> list[str]:
    """The resources shown: cpu, memory, the GPU-like extended ones the nodes have, pods."""
    gpus = sorted({k for r in results for n in r.nodes for k, v in n.allocatable.items()
                   if "gpu" in k.lower() and v})
    return ["cpu", "memory", *gpus, "pods"]


def _utilisation(results: Sequence[SimResult], res: list[str]) -> dict[str, Any]:
    grid_all = sorted({s.t for r in results for s in r.samples})
    grid = [grid_all[i] for i in _thin(len(grid_all))]
    charts: dict[str, Any] = {}
    for name in [*res, "pending"]:
        series = {}
        for r in results:
            times = [s.t for s in r.samples]
            if name == "pending":
                vals: list[float] = [float(s.pending) for s in r.samples]
            else:
                vals = [round(100.0 * s.utilisation(name), 2) for s in r.samples]
            series[r.config] = _step_at(times, vals, grid)
        charts[name] = series
    return {"t": [round(t, 3) for t in grid], "charts": charts}


def _heatmap(results: Sequence[SimResult], res: list[str], labels: Mapping[str, Mapping[str, str]]
             ) -> dict[str, Any]:
    names: dict[str, None] = {}
    for r in results:
        names.update(dict.fromkeys(n.node for n in r.nodes))
    nodes = list(names)
    pairs: dict[str, int] = {}
    counts: dict[str, int] = {}
    for n in nodes:
        for k, v in labels.get(n, {}).items():
            if k not in _PER_NODE_LABELS:
                counts[f"{k}={v}"] = counts.get(f"{k}={v}", 0) + 1
    for pair in sorted(counts)[:MAX_LABEL_CHOICES]:
        pairs[pair] = len(pairs)
    node_pairs = [[pairs[p] for k, v in sorted(labels.get(n, {}).items()) if (p := f"{k}={v}") in pairs]
                  for n in nodes]
    per_config = {}
    for r in results:
        by = {s.node: s for s in r.nodes}
        values: dict[str, list[int]] = {}
        raw: dict[str, list[int]] = {}
        for name in res:
            pct, amount = [], []
            for n in nodes:
                s = by.get(n)
                req = s.requested.get(name, ()) if s is not None else ()
                last = req[-1] if req else 0
                alloc = s.allocatable.get(name, 0) if s is not None else 0
                pct.append(-1 if s is None else (round(100 * last / alloc) if alloc else 0))
                amount.append(last)
            values[name], raw[name] = pct, amount
        per_config[r.config] = {"pct": values, "requested": raw}
    return {"nodes": nodes, "labels": list(pairs), "node_labels": node_pairs, "configs": per_config,
            "allocatable": _alloc(results, nodes, res)}


def _alloc(results: Sequence[SimResult], nodes: list[str], res: list[str]) -> dict[str, list[int]]:
    first: dict[str, Any] = {}
    for r in results:
        for s in r.nodes:
            first.setdefault(s.node, s)
    return {name: [first[n].allocatable.get(name, 0) for n in nodes] for name in res}


def reason_group(message: str) -> str:
    """The FitError reasons of *message* without their node counts (``0/9 nodes are available:
    3 Insufficient cpu, 6 node(s) had untolerated taint(s). preemption: ...`` gives
    ``Insufficient cpu, node(s) had untolerated taint(s)``); other messages as they are."""
    if not message:
        return "(not attempted yet)"
    head = message.split(" preemption:", 1)[0].strip()
    _, sep, tail = head.partition(" nodes are available: ")
    if not sep:
        return head
    reasons = [_COUNT.sub("", part.strip()) for part in tail.rstrip(".").split(", ")]
    return ", ".join(sorted(r for r in reasons if r))


def _matrices(r: SimResult, pods: Sequence[Any]) -> dict[str, Any]:
    """Per pod of *pods*: its last attempt's Filter verdicts grouped by (stage, plugin, code,
    reason) and its best-scoring nodes, from the decision tables (empty when not recorded)."""
    wanted = {p.key: p.attempts for p in pods if p.attempts}
    out: dict[str, Any] = {k: {"attempt": a, "groups": [], "top": [], "plugins": []}
                           for k, a in wanted.items()}
    if not wanted or r.recorded_verdicts is None:
        return out
    for key, groups in last_attempt_verdicts(r.recorded_verdicts, wanted, MAX_GROUP_NODES).items():
        out[key]["groups"] = [
            {"stage": s, "passed": ok, "plugin": pl, "code": c, "reason": rs, "count": n, "nodes": ns}
            for (s, ok, pl, c, rs), n, ns in sorted(groups, key=lambda g: (-g[1], g[0][2]))
        ]
    if r.recorded_decisions is not None:
        d = r.recorded_decisions
        cols = d.columns
        plugins = [c[len("top1_"):] for c in cols
                   if c.startswith("top1_") and c not in ("top1_node", "top1_total")]
        k = sum(1 for c in cols if c.startswith("top") and c.endswith("_node"))
        i_pod, i_attempt = cols.index("pod"), cols.index("attempt")
        at = [(cols.index(f"top{i}_node"), cols.index(f"top{i}_total"),
               [cols.index(f"top{i}_{p}") for p in plugins]) for i in range(1, k + 1)]
        for row in d.rows:
            key = row[i_pod]
            if wanted.get(key) != row[i_attempt]:
                continue
            top = [{"node": row[n], "total": row[t], "scores": [row[j] for j in ps]}
                   for n, t, ps in at if row[n]]
            out[key]["top"], out[key]["plugins"] = top, plugins
    return out


def _pending(r: SimResult) -> dict[str, Any]:
    pending = r.pending()
    groups: dict[str, int] = {}
    rows = []
    for i, p in enumerate(pending):
        g = reason_group(p.message)
        groups[g] = groups.get(g, 0) + 1
        if i < MAX_PENDING_LISTED:
            rows.append({"key": p.key, "workload": p.workload, "attempts": p.attempts, "message": p.message,
                         "group": g, "since": round(p.arrival, 3)})
    return {"total": len(pending), "groups": sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])),
            "pods": rows, "matrices": _matrices(r, pending[:MAX_EXPLAINED_PODS]),
            "recorded": r.recorded_verdicts is not None}


def _waits(results: Sequence[SimResult]) -> dict[str, Any]:
    """The empirical CDF of every configuration's waits (never-bound pods with their censored
    wait, up to the end of the run or their deletion) on one grid of wait times."""
    per = {}
    for r in results:
        unhandled = {k for keys in r.unhandled.values() for k in keys}
        exact, censored = [], []
        for p in r.pods:
            if p.initial or p.key in unhandled:
                continue
            if p.wait is not None:
                exact.append(p.wait)
            else:
                end = p.ended_at if p.ended_at is not None else r.metrics.end
                censored.append(max(0.0, end - p.arrival))
        per[r.config] = (sorted(exact), sorted([*exact, *censored]), len(censored))
    grid_all = sorted({w for _, ws, _ in per.values() for w in ws})
    grid = [grid_all[i] for i in _thin(len(grid_all))]
    cdf = {}
    for name, (_, ws, _) in per.items():
        n = len(ws)
        cdf[name] = [round(100.0 * bisect.bisect_right(ws, x) / n, 3) if n else None for x in grid]
    return {"t": [round(x, 3) for x in grid], "cdf": cdf,
            "counts": {name: {"bound": len(ex), "never_bound": c} for name, (ex, _, c) in per.items()}}


def _placements(results: Sequence[SimResult]) -> dict[str, Any]:
    """What the page's placement diff of any two configurations is computed from: per
    configuration, each pod ever bound and its last node (in the run's pod order), its nodes
    (in its order) and the pods running on each node at the end -- pods and nodes as indexes
    into one list of each, so the data grows with the configurations, not their pairs."""
    pods: dict[str, int] = {}
    nodes: dict[str, int] = {}

    def at(table: dict[str, int], name: str) -> int:
        i = table.get(name)
        if i is None:
            i = table[name] = len(table)
        return i

    per: dict[str, Any] = {}
    for r in results:
        placed = [[at(pods, p.key), at(nodes, p.node)] for p in r.pods if p.node]
        order = [at(nodes, s.node) for s in r.nodes]
        running: dict[int, int] = {}
        for p in r.pods:
            if p.state == RUNNING and p.node:
                i = at(nodes, p.node)
                running[i] = running.get(i, 0) + 1
        per[r.config] = {"placed": placed, "nodes": order, "running": sorted(running.items())}
    return {"pods": list(pods), "nodes": list(nodes), "configs": per, "max_moved": MAX_MOVED_ROWS}


def report_data(results: Sequence[SimResult], labels: Mapping[str, Mapping[str, str]] | None = None
                ) -> dict[str, Any]:
    """The report's data (what the page's script reads) as one JSON-ready mapping."""
    if not results:
        raise ReportError("report: no results to report")
    res = _resources(results)
    return {
        "configs": [r.config for r in results],
        "resources": res,
        "utilisation": _utilisation(results, res),
        "heatmap": _heatmap(results, res, labels or {}),
        "pending": {r.config: _pending(r) for r in results},
        "waits": _waits(results),
        "placements": _placements(results),
    }


# -- the page -------------------------------------------------------------------------------------


def _asset(name: str) -> str:
    return (resources.files(__package__) / name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """*data* as JSON that cannot end its ``<script>`` element early."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _fmt(value: float | None, unit: str = "s") -> str:
    return "-" if value is None else f"{value:,.1f}{unit}"


def _summary(results: Sequence[SimResult]) -> str:
    head = ["config", "pods", "placed", "pending", "running", "completed", "preemptions", "attempts",
            "wait p50", "wait p90", "wait p99", "wait max", "cpu mean", "cpu peak", "memory mean",
            "cpu fragmentation", "simulated", "ended"]
    rows = []
    for r in results:
        m = r.metrics
        waits = [("≥" if s in m.wait_lower_bound else "") + _fmt(getattr(m, f"wait_{s}"))
                 for s in ("p50", "p90", "p99", "max")]
        rows.append([r.config, f"{m.pods:,}", f"{m.placed:,}", f"{m.pending:,}", f"{m.running:,}",
                     f"{m.completed:,}", f"{m.preemptions:,}", f"{m.attempts:,}", *waits,
                     f"{m.utilisation_mean.get('cpu', 0.0):.1%}", f"{m.utilisation_peak.get('cpu', 0.0):.1%}",
                     f"{m.utilisation_mean.get('memory', 0.0):.1%}",
                     f"{m.fragmentation_mean.get('cpu', 0.0):.1%}",
                     _fmt(m.end), r.end_reason])
    return _table(head, rows, cls="summary")


def _table(head: Iterable[str], rows: Iterable[Iterable[Any]], cls: str = "") -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
    return (f'<div class="scroll"><table class="{html.escape(cls)}"><thead><tr>{th}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def build_report(results: Sequence[SimResult], *, title: str = "", description: str = "",
                 labels: Mapping[str, Mapping[str, str]] | None = None) -> str:
    """The report of *results* (runs of one scenario under one or more configurations) as one
    self-contained HTML page; *labels* (``{node: labels}``, :func:`node_labels`) lets the heat
    map be filtered by zone, pool or any label.

    Raises:
        ReportError: no results.

    .. versionadded:: 0.1.0
    """
    data = report_data(results, labels)
    name = title or results[0].scenario
    seed = results[0].seed
    version = _asset("_vendor/uPlot.VERSION").strip()
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(name)}: schedframe simulation report</title>",
        f"<style>{_asset('_vendor/uPlot.min.css')}</style><style>{_asset('_page.css')}</style>",
        "</head><body><header>",
        f"<h1>{html.escape(name)}</h1>",
        f"<p>{html.escape(description)}</p>" if description else "",
        f"<p class=\"meta\">seed {seed}; configurations: {html.escape(', '.join(data['configs']))}; "
        f"charts by uPlot {html.escape(version)} (MIT)</p>",
        '<nav><a href="#summary">summary</a> <a href="#utilisation">utilisation</a> '
        '<a href="#heatmap">nodes</a> <a href="#pending">pending</a> <a href="#waits">waits</a> '
        '<a href="#diff">placement diff</a></nav></header><main>',
        '<section id="summary"><h2>Summary</h2>', _summary(results),
        "<p>Waits run from arrival to binding; a pod never bound counts until the end of the run (or "
        "its deletion), so with pods pending a figure is a lower bound (marked ≥).</p></section>",
        '<section id="utilisation"><h2>Utilisation over time</h2>'
        '<p>Requested over allocatable (%) of the whole cluster, and pods pending.</p>'
        '<div id="util-charts"></div></section>',
        '<section id="heatmap"><h2>Nodes at the end</h2><div class="controls">'
        '<label>config <select id="hm-config"></select></label> '
        '<label>resource <select id="hm-resource"></select></label> '
        '<label>label <select id="hm-label"><option value="">all nodes</option></select></label> '
        '<label>name <input id="hm-name" type="search" placeholder="node name contains"></label>'
        '</div><p id="hm-count"></p><div id="hm-grid" class="grid"></div>'
        '<p id="hm-detail" class="detail"></p></section>',
        '<section id="pending"><h2>Pending pods</h2><div class="controls">'
        '<label>config <select id="pd-config"></select></label></div>'
        '<div id="pd-groups"></div><div id="pd-matrix" class="matrix"></div></section>',
        '<section id="waits"><h2>Wait-time distribution</h2>'
        '<p>Share of pods bound within a wait (cumulative); never-bound pods count with their wait '
        'so far, so they keep every curve below 100%.</p><div id="wait-chart"></div>'
        '<div id="wait-counts"></div></section>',
        '<section id="diff"><h2>Placement diff</h2><div class="controls" id="diff-controls">'
        '<label>from <select id="diff-a"></select></label> '
        '<label>to <select id="diff-b"></select></label></div><div id="diff-body"></div></section>',
        "</main>",
        f'<script type="application/json" id="report-data">{_script_json(data)}</script>',
        f"<script>{_asset('_vendor/uPlot.iife.min.js')}</script>",
        f"<script>{_asset('_page.js')}</script>",
        "</body></html>\n",
    ])


def write_report(path: str | os.PathLike[str], results: Sequence[SimResult], *, title: str = "",
                 description: str = "", labels: Mapping[str, Mapping[str, str]] | None = None) -> int:
    """Write :func:`build_report` of *results* to *path* (checked by :func:`check_report_path`)
    and return its size in bytes.

    Raises:
        ReportError: a bad *path*, or no results.

    .. versionadded:: 0.1.0
    """
    check_report_path(path)
    text = build_report(results, title=title, description=description, labels=labels).encode("utf-8")
    Path(path).write_bytes(text)
    return len(text)
