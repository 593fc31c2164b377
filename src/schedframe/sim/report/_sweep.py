"""The HTML page of a sweep (``schedframe sweep --report FILE.html``): a table of its runs and a
chart of a metric over a parameter (see :mod:`schedframe.sim.report`).

A sweep's rows hold each run's parameters and metrics (``SweepResult.rows()`` of
:mod:`schedframe.sweep`), not its pods, nodes and decisions, which stay in the
workers: so the page summarises the points; the per-run page is ``simulate --report``'s.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ._build import ReportError, _asset, _script_json, _table, check_report_path

__all__ = ["MAX_SWEEP_POINTS", "MAX_SWEEP_ROWS", "build_sweep_report", "sweep_data", "write_sweep_report"]

#: Runs the page's chart reads (the first ones; all of them count in the header).
MAX_SWEEP_POINTS: Final = 20_000
#: Runs listed in the page's table.
MAX_SWEEP_ROWS: Final = 2000
#: Metrics the chart offers (the first numeric ones of the rows).
MAX_SWEEP_METRICS: Final = 40
#: The columns of a sweep row that are not a run's parameters or metrics.
_FIXED: Final = ("run", "task", "status", "error", "seconds")
#: The summary of a ``simulate`` run, as the simulate page's: (column of the row, heading).
_SIMULATE: Final = (
    ("pods", "pods"), ("placed", "placed"), ("pending", "pending"), ("running", "running"),
    ("completed", "completed"), ("preemptions", "preemptions"), ("attempts", "attempts"),
    ("wait_p50", "wait p50"), ("wait_p90", "wait p90"), ("wait_p99", "wait p99"), ("wait_max", "wait max"),
    ("utilisation_mean.cpu", "cpu mean"), ("utilisation_peak.cpu", "cpu peak"),
    ("utilisation_mean.memory", "memory mean"), ("fragmentation_mean.cpu", "cpu fragmentation"),
    ("end", "simulated"),
)
#: Metrics shown as percentages (fractions in the rows).
_SHARES: Final = ("utilisation_", "fragmentation_")
#: Columns of other tasks the table shows (the chart offers up to MAX_SWEEP_METRICS).
_TABLE_METRICS: Final = 12


def _number(value: Any) -> float | None:
    """*value* as a finite number (a number, or a CSV field holding one), else ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):  # a CSV field
        try:
            value = int(value)
        except ValueError:
            try:
                value = float(value)
            except ValueError:
                return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value) if isinstance(value, float) else value
    return None


def _share(name: str) -> bool:
    return name.startswith(_SHARES)


def _label(value: Any) -> str:
    """A parameter value as the page shows it."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


def _metrics(rows: Sequence[Mapping[str, Any]], params: Sequence[str]) -> list[str]:
    """The numeric metric columns of *rows*: the ones a ``simulate`` summary has first (in its
    order), then the others in the order they appear, then ``seconds``."""
    skip = {*_FIXED, *params}
    seen: dict[str, None] = {}
    for r in rows:
        for k, v in r.items():
            if k not in skip and k not in seen and _number(v) is not None:
                seen[k] = None
    known = [c for c, _ in _SIMULATE if c in seen]
    rest = [c for c in seen if c not in known]
    return [*[*known, *rest][: MAX_SWEEP_METRICS - 1], "seconds"]


def sweep_data(rows: Sequence[Mapping[str, Any]], params: Sequence[str]) -> dict[str, Any]:
    """The sweep page's data (what its script reads): the parameters that vary, each run's
    values of them, status and metrics (the first :data:`MAX_SWEEP_POINTS` runs)."""
    if not rows:
        raise ReportError("sweep report: no runs to report")
    varying = [p for p in params if len({_label(r.get(p)) for r in rows}) > 1]
    metrics = _metrics(rows, params)
    shown = rows[:MAX_SWEEP_POINTS]
    values: dict[str, list[float | None]] = {}
    for m in metrics:
        col = [_number(r.get(m)) for r in shown]
        if _share(m):
            col = [None if v is None else round(100 * v, 3) for v in col]
        values[m] = col
    return {
        "runs": len(rows),
        "params": varying,
        "points": [[_label(r.get(p)) for p in varying] for r in shown],
        "numeric": [all(_number(r.get(p)) is not None for r in shown) for p in varying],
        "status": [str(r.get("status", "")) for r in shown],
        "metrics": metrics,
        "metric": "placed" if "placed" in metrics else metrics[0],
        "labels": [f"{m} (%)" if _share(m) else m for m in metrics],
        "values": values,
    }


def _cell(row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    v = _number(value)
    if v is None:
        return "-" if value in (None, "") else str(value)
    if _share(name):
        return f"{v:.1%}"
    if name == "end":
        return f"{v:,.1f}s"
    if name.startswith("wait_"):
        lower = row.get("wait_lower_bound")
        stat = name[len("wait_"):]
        if isinstance(lower, str):  # a CSV field
            try:
                lower = json.loads(lower)
            except ValueError:
                lower = []
        mark = "≥" if isinstance(lower, list) and stat in lower else ""
        return f"{mark}{v:,.1f}s"
    return f"{v:,}" if isinstance(v, int) else f"{v:,.3g}"


def _runs_table(rows: Sequence[Mapping[str, Any]], varying: Sequence[str], metrics: Sequence[str]) -> str:
    simulate = any(c in metrics for c, _ in _SIMULATE)
    if simulate:
        cols = [(c, h) for c, h in _SIMULATE if c in metrics]
    else:
        cols = [(m, m) for m in metrics if m != "seconds"][:_TABLE_METRICS]
    head = [*varying, "status", *(h for _, h in cols), "seconds"]
    body = [[_label(r.get(p)) for p in varying] + [str(r.get("status", ""))]
            + [_cell(r, c) for c, _ in cols] + [_cell(r, "seconds")] for r in rows[:MAX_SWEEP_ROWS]]
    return _table(head, body, cls="summary runs")


def build_sweep_report(rows: Sequence[Mapping[str, Any]], *, params: Sequence[str], title: str = "",
                       description: str = "") -> str:
    """The page of a sweep's *rows* (``SweepResult.rows()``, or the rows of its results file,
    ``schedframe.sweep.read_table``) whose parameters are *params*: the runs' table (the
    parameters that vary, the status, the metrics) and a chart of a metric against a parameter,
    one line per value of another, averaged over the runs that share both values (the seeds).
    Self-contained, as :func:`build_report`'s.

    Raises:
        ReportError: no rows.

    .. versionadded:: 0.1.0
    """
    data = sweep_data(rows, params)
    fixed = [(p, _label(rows[0].get(p))) for p in params if p not in data["params"]]
    failed = [r for r in rows if r.get("status") == "failed"]
    name = title or "sweep"
    listed = min(len(rows), MAX_SWEEP_ROWS)
    tasks = sorted({str(r.get("task", "")) for r in rows} - {""})
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(name)}: schedframe sweep report</title>",
        f"<style>{_asset('_vendor/uPlot.min.css')}</style><style>{_asset('_page.css')}</style>",
        "</head><body><header>",
        f"<h1>{html.escape(name)}</h1>",
        f"<p>{html.escape(description)}</p>" if description else "",
        f"<p class=\"meta\">{len(rows):,} run(s) of {html.escape(', '.join(tasks) or 'the task')}, "
        f"{len(failed):,} failed; "
        + (f"fixed: {html.escape(', '.join(f'{p}={v}' for p, v in fixed))}; " if fixed else "")
        + f"charts by uPlot {html.escape(_asset('_vendor/uPlot.VERSION').strip())} (MIT)</p>",
        '<nav><a href="#chart">chart</a> <a href="#runs">runs</a>'
        + (' <a href="#failed">failed</a>' if failed else "") + "</nav></header><main>",
        '<section id="chart"><h2>Metrics over the parameters</h2><div class="controls">'
        '<label>metric <select id="sw-metric"></select></label> '
        '<label>x <select id="sw-x"></select></label> '
        '<label>lines <select id="sw-by"></select></label></div>'
        '<p id="sw-note"></p><div id="sw-chart"></div></section>',
        f'<section id="runs"><h2>Runs</h2><p>{listed:,} of {len(rows):,} run(s) listed, in the order '
        "of the sweep; waits marked ≥ are lower bounds (pods still pending).</p>",
        _runs_table(rows, data["params"], data["metrics"]), "</section>",
        ('<section id="failed"><h2>Failed runs</h2>'
         + _table([*data["params"], "error"],
                  [[_label(r.get(p)) for p in data["params"]] + [str(r.get("error", ""))]
                   for r in failed[:MAX_SWEEP_ROWS]], cls="failed")
         + "</section>") if failed else "",
        "</main>",
        f'<script type="application/json" id="sweep-data">{_script_json(data)}</script>',
        f"<script>{_asset('_vendor/uPlot.iife.min.js')}</script>",
        f"<script>{_asset('_sweep.js')}</script>",
        "</body></html>\n",
    ])


def write_sweep_report(path: str | os.PathLike[str], rows: Sequence[Mapping[str, Any]], *,
                       params: Sequence[str], title: str = "", description: str = "") -> int:
    """Write :func:`build_sweep_report` to *path* (checked by :func:`check_report_path`) and
    return its size in bytes.

    Raises:
        ReportError: a bad *path*, or no rows.

    .. versionadded:: 0.1.0
    """
    check_report_path(path)
    text = build_sweep_report(rows, params=params, title=title, description=description).encode("utf-8")
    Path(path).write_bytes(text)
    return len(text)
